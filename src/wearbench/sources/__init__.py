"""Cohort sources: the synthetic default and loaders for real export formats.

Real loaders (registry kind ``loader``): ``apple-health``, ``fitabase``, ``pmdata``,
``garmin-uom``, ``fit``, ``whoop``, ``csv``. Each maps its format onto the canonical daily
metrics; :func:`import_source` assembles and writes the cohort with ``import_report.json``.
"""

from wearbench.sources._days import bedtime_regularity, onset_minutes
from wearbench.sources._loader import (
    REPORT_NAME,
    LoadedSource,
    assemble_cohort,
    import_source,
    loader,
    run_loader,
)
from wearbench.sources._report import ImportLog, ImportReport
from wearbench.sources.synthetic import MinuteParams, synthesize, synthesize_minutes

__all__ = [
    "REPORT_NAME",
    "ImportLog",
    "ImportReport",
    "LoadedSource",
    "MinuteParams",
    "assemble_cohort",
    "bedtime_regularity",
    "import_source",
    "loader",
    "onset_minutes",
    "run_loader",
    "synthesize",
    "synthesize_minutes",
]
