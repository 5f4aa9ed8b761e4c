"""Linear trend of a daily series: OLS and Theil–Sen slopes with confidence intervals.

The regressor is the day index (0, 1, 2, …) so slopes are in input units per day; missing days
are skipped but keep their place on the calendar (a gap widens the x distance).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from wearbench.primitives._common import FloatArray, as_series, check_int, check_real
from wearbench.primitives._registry import primitive

_NAN = float("nan")


@dataclass(frozen=True)
class Slope:
    """A fitted linear trend.

    Attributes:
        slope: Change per day, in input units per day; NaN when ``n < 3``.
        lo: Lower end of the ``1 - alpha`` confidence interval of the slope (units per day).
        hi: Upper end of the confidence interval (units per day).
        n: Number of non-missing days used.
        intercept: Fitted value at day index 0, in input units.
    """

    slope: float
    lo: float
    hi: float
    n: int
    intercept: float


def _points(values: ArrayLike, alpha: float) -> tuple[FloatArray, FloatArray]:
    check_real("alpha", alpha, 0.0, 1.0, open_lo=True)
    if alpha >= 1.0:
        raise ValueError(f"alpha must be in (0, 1), got {alpha!r}")
    y = as_series(values)
    keep = ~np.isnan(y)
    return np.flatnonzero(keep).astype(np.float64), y[keep]


@primitive(inputs=("values",), output="Slope", units="per day", cost="cheap")
def ols_slope(values: ArrayLike, *, alpha: float = 0.05) -> Slope:
    """Ordinary least-squares slope of value on day index, with a Student-t CI.

    CI: ``slope ± t(1 - alpha/2, n - 2) · SE`` with ``SE = sqrt(SSR / (n - 2) / Sxx)``
    (the interval of :func:`scipy.stats.linregress`); an exact fit gives ``lo == hi``.

    Args:
        values: Daily series (NaN = missing), any units.
        alpha: Two-sided CI level is ``1 - alpha``, 0 < alpha < 1.

    Returns:
        A :class:`Slope` in input units per day; all float fields NaN when fewer than 3 points.
    """
    x, y = _points(values, alpha)
    n = len(y)
    if n < 3:
        return Slope(_NAN, _NAN, _NAN, n, _NAN)
    xc = x - x.mean()
    sxx = float(xc @ xc)
    slope = float(xc @ (y - y.mean())) / sxx
    intercept = float(y.mean() - slope * x.mean())
    resid = y - (intercept + slope * x)
    se = float(np.sqrt(float(resid @ resid) / (n - 2) / sxx))
    half = float(stats.t.ppf(1.0 - alpha / 2.0, n - 2)) * se
    return Slope(slope, slope - half, slope + half, n, intercept)


@primitive(inputs=("values",), output="Slope", units="per day", cost="moderate")
def theil_sen_slope(values: ArrayLike, *, alpha: float = 0.05) -> Slope:
    """Theil–Sen slope: the median of all pairwise slopes, robust to outliers.

    The CI follows Sen (1968, eq. 2.6) with the tie-corrected variance of Kendall's S, exactly as
    :func:`scipy.stats.theilslopes`; the intercept is ``median(y) - slope · median(x)``
    (scipy's ``method="separate"``). Memory and time are O(n²) in the number of points.

    Args:
        values: Daily series (NaN = missing), any units.
        alpha: Two-sided CI level is ``1 - alpha``, 0 < alpha < 1.

    Returns:
        A :class:`Slope` in input units per day; all float fields NaN when fewer than 3 points.
    """
    x, y = _points(values, alpha)
    n = len(y)
    if n < 3:
        return Slope(_NAN, _NAN, _NAN, n, _NAN)
    i, j = np.triu_indices(n, k=1)
    slopes = np.sort((y[j] - y[i]) / (x[j] - x[i]))  # x is strictly increasing
    slope = float(np.median(slopes))
    _, y_counts = np.unique(y, return_counts=True)
    ties = float(np.sum(y_counts * (y_counts - 1) * (2 * y_counts + 5)))
    sigma = np.sqrt((n * (n - 1) * (2 * n + 5) - ties) / 18.0)
    z = float(stats.norm.ppf(alpha / 2.0))  # negative
    n_slopes = len(slopes)
    upper = min(int(np.round((n_slopes - z * sigma) / 2.0)), n_slopes - 1)
    lower = max(int(np.round((n_slopes + z * sigma) / 2.0)) - 1, 0)
    intercept = float(np.median(y) - slope * np.median(x))
    return Slope(slope, float(slopes[lower]), float(slopes[upper]), n, intercept)


@primitive(inputs=("values",), output="float", units="same as input", cost="cheap")
def window_change(values: ArrayLike, *, edge_days: int = 7, min_count: int = 3) -> float:
    """Mean of the last ``edge_days`` days minus mean of the first ``edge_days`` days.

    Args:
        values: Daily series (NaN = missing), any units.
        edge_days: Length of each edge in calendar days (≥ 1).
        min_count: Fewest non-missing days required in each edge (1 ≤ min_count ≤ edge_days).

    Returns:
        The difference in input units; NaN if the series is shorter than ``2 · edge_days``
        (the edges would overlap) or either edge has fewer than ``min_count`` values.
    """
    y = as_series(values)
    check_int("edge_days", edge_days, 1)
    check_int("min_count", min_count, 1, edge_days)
    if len(y) < 2 * edge_days:
        return _NAN
    first, last = y[:edge_days], y[-edge_days:]
    first, last = first[~np.isnan(first)], last[~np.isnan(last)]
    if len(first) < min_count or len(last) < min_count:
        return _NAN
    return float(last.mean() - first.mean())
