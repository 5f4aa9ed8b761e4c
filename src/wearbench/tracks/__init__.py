"""OpenMHC tracks over minute-level data: preprocessing, masking and imputation."""

from wearbench.tracks._hourly import MEAN_CHANNELS, SUM_CHANNELS, hourly
from wearbench.tracks._preprocess import (
    MAX_NONWEAR_MINUTES,
    MIN_SLEEP_MINUTES,
    VARIANCE_DDOF,
    VARIANCE_THRESHOLDS,
    low_variance_filter,
    retained_days,
    wear_filter,
    within_day_variance,
    zero_to_nan,
)
from wearbench.tracks._weekly import (
    MIN_RETAINED_DAYS,
    WEEK_DAYS,
    WEEK_STRIDE,
    stack_weeks,
    weekly_windows,
)

__all__: list[str] = [
    "MAX_NONWEAR_MINUTES",
    "MEAN_CHANNELS",
    "MIN_RETAINED_DAYS",
    "MIN_SLEEP_MINUTES",
    "SUM_CHANNELS",
    "VARIANCE_DDOF",
    "VARIANCE_THRESHOLDS",
    "WEEK_DAYS",
    "WEEK_STRIDE",
    "hourly",
    "low_variance_filter",
    "retained_days",
    "stack_weeks",
    "wear_filter",
    "weekly_windows",
    "within_day_variance",
    "zero_to_nan",
]
