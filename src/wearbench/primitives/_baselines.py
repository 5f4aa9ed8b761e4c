"""Personal rolling baselines and z-scores over a dense daily calendar.

The baseline for day ``t`` is computed from the trailing window of the previous ``window``
calendar days, ``values[t - window : t]`` (``values[t - window + 1 : t + 1]`` when
``include_current``). Days before the start of the series simply do not exist, so early
windows are shorter; a baseline is defined only where the window holds at least ``min_count``
non-missing values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from numpy.typing import ArrayLike

from wearbench.primitives._common import FloatArray, IntArray, as_series, check_choice, check_int, readonly
from wearbench.primitives._registry import primitive

BaselineMethod = Literal["mean_sd", "median_mad"]
_METHODS: tuple[BaselineMethod, ...] = ("mean_sd", "median_mad")

#: Scale factor that makes the median absolute deviation a consistent estimator of the SD
#: for normally distributed data (1 / Φ⁻¹(3/4)).
MAD_TO_SD = 1.4826


@dataclass(frozen=True, eq=False)
class Baseline:
    """Per-day trailing baseline; every array has the length of the input series.

    Attributes:
        center: Window mean (``mean_sd``) or median (``median_mad``), in input units; NaN where
            undefined (fewer than ``min_count`` values).
        scale: Window SD with ddof=1 (``mean_sd``) or 1.4826·MAD (``median_mad``), in input
            units; NaN where undefined; exactly 0.0 where every value in the window is equal.
        count: Number of non-missing values in each window (int64).
    """

    center: FloatArray
    scale: FloatArray
    count: IntArray


def _windows(values: FloatArray, window: int, include_current: bool) -> FloatArray:
    """Return the (n, window) matrix of trailing windows, NaN-padded before day 0."""
    padded = np.concatenate([np.full(window, np.nan), values])
    view = sliding_window_view(padded, window)
    return view[1:] if include_current else view[:-1]


def _window_mean_sd(win: FloatArray) -> tuple[FloatArray, FloatArray, IntArray]:
    """Mean and SD (ddof=1) of every row of ``win`` ignoring NaN; two-pass for accuracy."""
    mask = ~np.isnan(win)
    count = mask.sum(axis=1)
    filled = np.where(mask, win, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = filled.sum(axis=1) / count
        dev = np.where(mask, win - mean[:, None], 0.0)
        sd = np.sqrt((dev * dev).sum(axis=1) / (count - 1))
    hi = np.where(mask, win, -np.inf).max(axis=1, initial=-np.inf)
    lo = np.where(mask, win, np.inf).min(axis=1, initial=np.inf)
    constant = (hi == lo) & (count >= 1)
    mean = np.where(constant, lo, mean)  # exact center and zero SD for constant windows
    sd = np.where(constant & (count >= 2), 0.0, sd)
    return mean, sd, count


def _row_median(win: FloatArray, count: IntArray) -> FloatArray:
    """Median of the non-NaN values in every row (NaN rows sort last); NaN where count is 0."""
    ordered = np.sort(win, axis=1)
    safe = np.maximum(count, 1)
    lo = np.take_along_axis(ordered, ((safe - 1) // 2)[:, None], axis=1)[:, 0]
    hi = np.take_along_axis(ordered, (safe // 2)[:, None], axis=1)[:, 0]
    return np.where(count > 0, (lo + hi) / 2.0, np.nan)


def _window_median_mad(win: FloatArray) -> tuple[FloatArray, FloatArray, IntArray]:
    """Median and 1.4826·MAD of every row of ``win`` ignoring NaN."""
    count = (~np.isnan(win)).sum(axis=1)
    med = _row_median(win, count)
    mad = _row_median(np.abs(win - med[:, None]), count)
    return med, MAD_TO_SD * mad, count


def _check(window: int, min_count: int, method: str) -> None:
    check_int("window", window, 1)
    check_int("min_count", min_count, 1, window)
    check_choice("method", method, _METHODS)


@primitive(inputs=("values",), output="Baseline", units="same as input", cost="cheap")
def rolling_baseline(
    values: ArrayLike,
    *,
    window: int = 28,
    min_count: int = 14,
    method: BaselineMethod = "mean_sd",
    include_current: bool = False,
) -> Baseline:
    """Trailing personal baseline (center, scale, count) for every day.

    Args:
        values: Daily series (NaN = missing), any units.
        window: Window length in calendar days (≥ 1).
        min_count: Fewest non-missing days for a defined baseline (1 ≤ min_count ≤ window).
        method: ``"mean_sd"`` (mean, SD with ddof=1) or ``"median_mad"`` (median, 1.4826·MAD).
        include_current: Use ``values[t-window+1 : t+1]`` instead of the previous ``window`` days.

    Returns:
        A :class:`Baseline` whose arrays have the input's length, in the input's units. With
        ``mean_sd`` a window holding a single value has an undefined (NaN) scale.

    Raises:
        ValueError: On a non-1-D input, ±inf values or out-of-range parameters.
    """
    x = as_series(values)
    _check(window, min_count, method)
    win = _windows(x, window, include_current)
    center, scale, count = (_window_mean_sd if method == "mean_sd" else _window_median_mad)(win)
    ok = count >= min_count
    return Baseline(
        center=readonly(np.where(ok, center, np.nan)),
        scale=readonly(np.where(ok, scale, np.nan)),
        count=readonly(count.astype(np.int64)),
    )


@primitive(inputs=("values",), output="array", units="SD units (z)", cost="cheap")
def zscore(
    values: ArrayLike,
    *,
    window: int = 28,
    min_count: int = 14,
    method: BaselineMethod = "mean_sd",
) -> FloatArray:
    """Each day's deviation from its trailing baseline, ``(x - center) / scale``.

    The baseline excludes the day itself (see :func:`rolling_baseline`). The result is NaN
    where the day is missing, the baseline is undefined, or the scale is exactly zero (a
    constant window gives no scale; no epsilon is added).

    Args:
        values: Daily series (NaN = missing), any units.
        window: Baseline window in calendar days.
        min_count: Fewest non-missing days in the window.
        method: ``"mean_sd"`` or ``"median_mad"``.

    Returns:
        Float array of z-scores (unitless, in baseline-scale units), same length as the input.
    """
    x = as_series(values)
    base = rolling_baseline(x, window=window, min_count=min_count, method=method)
    defined = base.scale > 0  # False for NaN and zero
    with np.errstate(invalid="ignore", divide="ignore"):
        z = (x - base.center) / base.scale
    return np.where(defined, z, np.nan)


@primitive(inputs=("values",), output="array", units="SD units (robust z)", cost="moderate")
def robust_zscore(values: ArrayLike, *, window: int = 28, min_count: int = 14) -> FloatArray:
    """Robust z-score, ``(x - median) / (1.4826 · MAD)`` over the trailing window.

    Same as :func:`zscore` with ``method="median_mad"``; NaN where the MAD is zero.

    Args:
        values: Daily series (NaN = missing), any units.
        window: Baseline window in calendar days.
        min_count: Fewest non-missing days in the window.

    Returns:
        Float array of robust z-scores, same length as the input.
    """
    return zscore(values, window=window, min_count=min_count, method="median_mad")
