"""CGM: the canonical CGM record, real CGM loaders, consensus CGM metrics and the T1D simulator."""

from wearbench.cgm._record import (
    EVENT_COLUMNS,
    MMOL_TO_MGDL,
    READING_COLUMNS,
    CGMData,
    check_readings,
    to_mgdl,
)

__all__ = ["EVENT_COLUMNS", "MMOL_TO_MGDL", "READING_COLUMNS", "CGMData", "check_readings", "to_mgdl"]
