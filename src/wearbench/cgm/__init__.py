"""CGM: the canonical CGM record, real CGM loaders and consensus CGM metrics.

The closed-loop T1D simulator that produces CGM data lives in :mod:`wearbench.sim`; real exports
load with :func:`wearbench.cgm.sources.import_cgm` (registry kind ``cgm_loader``).
"""

from wearbench.cgm._record import (
    EVENT_COLUMNS,
    MMOL_TO_MGDL,
    READING_COLUMNS,
    CGMData,
    check_readings,
    to_mgdl,
)
from wearbench.cgm.metrics import CGMMetrics, agp_percentiles, cgm_metrics, metrics_table

__all__ = [
    "EVENT_COLUMNS",
    "MMOL_TO_MGDL",
    "READING_COLUMNS",
    "CGMData",
    "CGMMetrics",
    "agp_percentiles",
    "cgm_metrics",
    "check_readings",
    "metrics_table",
    "to_mgdl",
]
