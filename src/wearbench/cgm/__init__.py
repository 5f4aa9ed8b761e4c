"""CGM: the canonical CGM record, real CGM loaders and consensus CGM metrics.

The closed-loop T1D simulator that produces CGM data lives in :mod:`wearbench.sim`; real exports
load with :func:`wearbench.cgm.sources.import_cgm` (registry kind ``cgm_loader``), and
:func:`read_cgm` reads any CGM folder (imported or simulated) or export.
"""

from wearbench.cgm._record import (
    EVENT_COLUMNS,
    EVENTS_FILE,
    MMOL_TO_MGDL,
    READING_COLUMNS,
    READINGS_FILE,
    CGMData,
    check_readings,
    read_cgm,
    to_mgdl,
    write_cgm_tables,
)
from wearbench.cgm.metrics import CGMMetrics, agp_percentiles, cgm_metrics, metrics_table

__all__ = [
    "EVENTS_FILE",
    "EVENT_COLUMNS",
    "MMOL_TO_MGDL",
    "READINGS_FILE",
    "READING_COLUMNS",
    "CGMData",
    "CGMMetrics",
    "agp_percentiles",
    "cgm_metrics",
    "check_readings",
    "metrics_table",
    "read_cgm",
    "to_mgdl",
    "write_cgm_tables",
]
