"""Primitive library: pure, registered kernels over dense daily arrays (NaN = missing).

Every primitive takes 1-D arrays on a dense daily calendar (one element per consecutive day)
plus JSON-serialisable keyword parameters, and returns a float, an array or a frozen dataclass.
Importing this package registers all primitives under the ``"primitive"`` registry kind.

Example:
    >>> import numpy as np
    >>> from wearbench.primitives import ols_slope
    >>> ols_slope(np.array([1.0, 2.0, 3.0, 4.0])).slope
    1.0
"""

import sys

from wearbench._registry import import_submodules
from wearbench.primitives._aggregate import PeriodTable, WeekSplit, period_aggregate, weekday_weekend
from wearbench.primitives._baselines import MAD_TO_SD, Baseline, robust_zscore, rolling_baseline, zscore
from wearbench.primitives._blood import Flag, homa_ir, threshold_flags
from wearbench.primitives._conditional import ConditionalEffect, conditional_mean_difference
from wearbench.primitives._correlation import LagCorrelation, PairWinner, argmax_pair, lagged_correlation
from wearbench.primitives._cutoffs import FLAG_BIOMARKERS, cutoff_tables
from wearbench.primitives._excursions import Run, excursion_count, excursions, recovery_time
from wearbench.primitives._percentile import percentile_band, percentile_rank
from wearbench.primitives._reduce import count_days, count_valid, nan_argext, nan_stat
from wearbench.primitives._registry import primitive
from wearbench.primitives._resample import bootstrap_days, bootstrap_indices, leave_one_day_out
from wearbench.primitives._strain import Shift, focus_shift, sustained_level
from wearbench.primitives._trend import Slope, ols_slope, theil_sen_slope, window_change

__all__ = [
    "FLAG_BIOMARKERS",
    "MAD_TO_SD",
    "Baseline",
    "ConditionalEffect",
    "Flag",
    "LagCorrelation",
    "PairWinner",
    "PeriodTable",
    "Run",
    "Shift",
    "Slope",
    "WeekSplit",
    "argmax_pair",
    "bootstrap_days",
    "bootstrap_indices",
    "conditional_mean_difference",
    "count_days",
    "count_valid",
    "cutoff_tables",
    "excursion_count",
    "excursions",
    "focus_shift",
    "homa_ir",
    "lagged_correlation",
    "leave_one_day_out",
    "nan_argext",
    "nan_stat",
    "ols_slope",
    "percentile_band",
    "percentile_rank",
    "period_aggregate",
    "primitive",
    "recovery_time",
    "robust_zscore",
    "rolling_baseline",
    "sustained_level",
    "theil_sen_slope",
    "threshold_flags",
    "weekday_weekend",
    "window_change",
    "zscore",
]


import_submodules(sys.modules[__name__])  # register every primitive module, re-exported or not
