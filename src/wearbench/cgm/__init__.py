"""CGM: the canonical CGM record, real CGM loaders and consensus CGM metrics.

The closed-loop T1D simulator that produces CGM data lives in :mod:`wearbench.sim`; real exports
load with :func:`wearbench.cgm.sources.import_cgm` (registry kind ``cgm_loader``), and
:func:`read_cgm` reads any CGM folder (imported or simulated) or export. :func:`resample_cgm`
puts readings on a regular clock grid (5 minutes: 288 points a day).
"""

from wearbench.cgm._grid import GRID_COUNTS, resample_cgm
from wearbench.cgm._record import (
    DROP_COLUMNS,
    EVENT_COLUMNS,
    EVENTS_FILE,
    GLUCOSE_RANGE,
    MMOL_TO_MGDL,
    READING_COLUMNS,
    READINGS_FILE,
    CGMData,
    check_readings,
    read_cgm,
    screen_readings,
    to_mgdl,
    write_cgm_tables,
)
from wearbench.cgm.metrics import CGMMetrics, agp_percentiles, cgm_metrics, metrics_table

__all__ = [
    "DROP_COLUMNS",
    "EVENTS_FILE",
    "EVENT_COLUMNS",
    "GLUCOSE_RANGE",
    "GRID_COUNTS",
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
    "resample_cgm",
    "screen_readings",
    "to_mgdl",
    "write_cgm_tables",
]
