"""Day-to-day dynamics of 14 daily metrics, for the outcome track's XGBoost features.

Each metric (a daily descriptor, :data:`DYNAMIC_METRICS`) becomes a series on the participant's
**calendar grid**: one slot per calendar day from the first to the last retained date, NaN on
days that were not retained or where the metric is missing. Every lag is a calendar-day lag: a
lag-1 pair is two consecutive calendar days that both have the metric, so a gap never joins the
days on either side of it.

Per metric (13, :data:`METRIC_STATS`): number of days, mean, SD (ddof 1), coefficient of variation
(SD / |mean|), min, max, lag-1 autocorrelation, SD and mean absolute value of the day-to-day
differences, trend slope (ordinary least squares on the calendar day number, metric units per
day), and ARIMA(2,1,0) ``ar1``, ``ar2``, ``sigma2``. Autocorrelation and cross-correlation are the
Pearson correlation of the lagged pairs, ``corr(x_t, y_{t+k})`` over the calendar days ``t`` where
both are finite (NaN with fewer than :data:`MIN_PAIRS` pairs or a constant side); so an
alternating series has lag-1 autocorrelation exactly −1. ARIMA(2,1,0) without a constant is fitted
by conditional least squares: the day-to-day differences ``d_t`` are regressed on ``d_{t−1}`` and
``d_{t−2}`` over the calendar days where all three exist; ``sigma2`` is the residual sum of squares
over the number of rows (statsmodels' ``AutoReg(d, 2, trend="n")`` on a gap-free series). It is
fitted only with at least :data:`MIN_ARIMA_DAYS` days of the metric (else NaN).

Cross-correlations: the 28 pairs of the 8 metrics in :data:`CROSS_METRICS`, at lags 0, 1, 2
(``corr(a_t, b_{t+k})``, ``a`` the first of the pair in :data:`CROSS_METRICS` order).
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
from numpy.typing import NDArray

from wearbench.tracks._features_daily import DESCRIPTOR_NAMES

FloatArray = NDArray[np.floating[Any]]
F64 = NDArray[np.float64]

#: The 14 daily metrics treated as series (daily descriptor names).
DYNAMIC_METRICS: tuple[str, ...] = (
    "phone_steps_total",
    "watch_steps_total",
    "phone_distance_total",
    "watch_distance_total",
    "phone_flights_total",
    "active_energy_total",
    "hr_p5",
    "hr_p50",
    "hr_p95",
    "hr_resting",
    "asleep_min",
    "inbed_min",
    "active_min",
    "workout_total_min",
)
#: The 8-metric subset for cross-correlations.
CROSS_METRICS: tuple[str, ...] = (
    "watch_steps_total",
    "active_energy_total",
    "hr_p50",
    "hr_resting",
    "asleep_min",
    "inbed_min",
    "active_min",
    "workout_total_min",
)
CROSS_LAGS: tuple[int, ...] = (0, 1, 2)
METRIC_STATS: tuple[str, ...] = (
    "n_days",
    "mean",
    "sd",
    "cv",
    "min",
    "max",
    "ac1",
    "diff_sd",
    "diff_mean_abs",
    "slope_per_day",
    "arima_ar1",
    "arima_ar2",
    "arima_sigma2",
)
MIN_PAIRS = 3  #: fewest lagged pairs for a correlation
MIN_ARIMA_DAYS = 15  #: fewest days of a metric for the ARIMA(2,1,0) fit
CROSS_PAIRS: tuple[tuple[int, int], ...] = tuple(itertools.combinations(range(len(CROSS_METRICS)), 2))

DYNAMICS_NAMES: tuple[str, ...] = (
    *(f"dyn_{m}_{s}" for m in DYNAMIC_METRICS for s in METRIC_STATS),
    *(f"xcorr_{CROSS_METRICS[i]}__{CROSS_METRICS[j]}_lag{k}" for i, j in CROSS_PAIRS for k in CROSS_LAGS),
)
N_DYNAMICS = len(DYNAMICS_NAMES)  #: 14 × 13 + 28 × 3 = 266

_METRIC_COLS = [DESCRIPTOR_NAMES.index(m) for m in DYNAMIC_METRICS]
_CROSS_ROWS = [DYNAMIC_METRICS.index(m) for m in CROSS_METRICS]


def calendar_grid(values: FloatArray, dates: NDArray[np.datetime64]) -> F64:
    """Place per-day values on the calendar from the first to the last date.

    Args:
        values: ``(n_days, k)`` values of the retained days.
        dates: ``(n_days,)`` ``datetime64[D]`` dates, strictly increasing.

    Returns:
        ``(k, span)`` with ``span = last − first + 1`` days; NaN on days not in ``dates``.

    Raises:
        ValueError: Dates not strictly increasing, or a length mismatch.
    """
    v = np.asarray(values, dtype=np.float64)
    d = np.asarray(dates, dtype="datetime64[D]")
    if v.ndim != 2 or d.shape != (v.shape[0],):
        raise ValueError(f"values (n, k) and dates (n,) must match; got {v.shape} and {d.shape}")
    if v.shape[0] == 0:
        return np.empty((v.shape[1], 0))
    off = (d - d[0]).astype(np.int64)
    if np.any(np.diff(off) <= 0):
        raise ValueError(f"dates must be strictly increasing; got {d[:5]}…")
    grid = np.full((v.shape[1], int(off[-1]) + 1), np.nan)
    grid[:, off] = v.T
    return grid


def rowwise_corr(a: FloatArray, b: FloatArray) -> F64:
    """Pearson correlation of each row pair over the columns where both are finite.

    Args:
        a: ``(m, t)``.
        b: ``(m, t)``.

    Returns:
        ``(m,)``; NaN with fewer than :data:`MIN_PAIRS` pairs or zero variance on a side.
    """
    x, y = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    ok = np.isfinite(x) & np.isfinite(y)
    n = ok.sum(axis=-1)
    nn = np.maximum(n, 1)
    xm = np.where(ok, x, 0.0).sum(axis=-1) / nn
    ym = np.where(ok, y, 0.0).sum(axis=-1) / nn
    dx = np.where(ok, x - xm[:, None], 0.0)
    dy = np.where(ok, y - ym[:, None], 0.0)
    sxy, sxx, syy = (dx * dy).sum(-1), (dx * dx).sum(-1), (dy * dy).sum(-1)
    good = (n >= MIN_PAIRS) & (sxx > 0) & (syy > 0)
    return np.where(good, sxy / np.sqrt(np.where(good, sxx * syy, 1.0)), np.nan)


def trend_slope(grid: FloatArray) -> F64:
    """OLS slope of each row on its column index (calendar day), units per day; NaN with < 2 days."""
    g = np.asarray(grid, dtype=np.float64)
    t = np.broadcast_to(np.arange(g.shape[-1], dtype=np.float64), g.shape)
    ok = np.isfinite(g)
    n = np.maximum(ok.sum(-1), 1)
    tm = np.where(ok, t, 0.0).sum(-1) / n
    gm = np.where(ok, g, 0.0).sum(-1) / n
    dt = np.where(ok, t - tm[:, None], 0.0)
    stt = (dt * dt).sum(-1)
    sty = (dt * np.where(ok, g - gm[:, None], 0.0)).sum(-1)
    return np.where(stt > 0, sty / np.where(stt > 0, stt, 1.0), np.nan)


def arima210(series: FloatArray) -> F64:
    """ARIMA(2,1,0) without constant by conditional least squares on a calendar series.

    Args:
        series: ``(span,)`` daily values on the calendar grid (NaN = missing day).

    Returns:
        ``[ar1, ar2, sigma2]``; NaN when fewer than :data:`MIN_ARIMA_DAYS` finite days, fewer than
        3 usable rows, or a singular design.
    """
    x = np.asarray(series, dtype=np.float64)
    out = np.full(3, np.nan)
    if np.isfinite(x).sum() < MIN_ARIMA_DAYS:
        return out
    d = np.diff(x)
    y, x1, x2 = d[2:], d[1:-1], d[:-2]
    ok = np.isfinite(y) & np.isfinite(x1) & np.isfinite(x2)
    if ok.sum() < 3:
        return out
    design = np.stack([x1[ok], x2[ok]], axis=1)
    coef, _, rank, _ = np.linalg.lstsq(design, y[ok], rcond=None)
    if rank < 2:
        return out
    resid = y[ok] - design @ coef
    out[:2] = coef
    out[2] = float(resid @ resid) / ok.sum()
    return out


def _metric_stats(grid: F64) -> F64:
    """``(14, 13)`` per-metric statistics of the ``(14, span)`` calendar grid."""
    ok = np.isfinite(grid)
    n = ok.sum(-1).astype(np.float64)
    nn = np.maximum(n, 1)
    mean = np.where(n > 0, np.where(ok, grid, 0.0).sum(-1) / nn, np.nan)
    ss = np.where(ok, (grid - mean[:, None]) ** 2, 0.0).sum(-1)
    sd = np.where(n >= 2, np.sqrt(ss / np.maximum(n - 1, 1)), np.nan)
    cv = np.where(np.abs(mean) > 0, sd / np.where(np.abs(mean) > 0, np.abs(mean), 1.0), np.nan)
    lo = np.where(n > 0, np.where(ok, grid, np.inf).min(-1), np.nan)
    hi = np.where(n > 0, np.where(ok, grid, -np.inf).max(-1), np.nan)
    if grid.shape[1] >= 2:
        ac1 = rowwise_corr(grid[:, :-1], grid[:, 1:])
        d = np.diff(grid, axis=-1)
    else:
        ac1 = np.full(grid.shape[0], np.nan)
        d = np.full((grid.shape[0], 1), np.nan)
    dok = np.isfinite(d)
    nd = dok.sum(-1)
    dmean = np.where(dok, d, 0.0).sum(-1) / np.maximum(nd, 1)
    dss = np.where(dok, (d - dmean[:, None]) ** 2, 0.0).sum(-1)
    dsd = np.where(nd >= 2, np.sqrt(dss / np.maximum(nd - 1, 1)), np.nan)
    dabs = np.where(nd >= 1, np.where(dok, np.abs(d), 0.0).sum(-1) / np.maximum(nd, 1), np.nan)
    arima = (
        np.stack([arima210(row) for row in grid]) if grid.shape[1] else np.full((grid.shape[0], 3), np.nan)
    )
    cols = [n, mean, sd, cv, lo, hi, ac1, dsd, dabs, trend_slope(grid)]
    return np.concatenate([np.stack(cols, axis=1), arima], axis=1)


def _cross(grid8: F64) -> F64:
    """``(28 × 3,)`` lagged cross-correlations, pair-major then lag."""
    i = np.array([p[0] for p in CROSS_PAIRS])
    j = np.array([p[1] for p in CROSS_PAIRS])
    span = grid8.shape[1]
    out = np.full((len(CROSS_PAIRS), len(CROSS_LAGS)), np.nan)
    for col, k in enumerate(CROSS_LAGS):
        if span > k:
            out[:, col] = rowwise_corr(grid8[i, : span - k], grid8[j, k:])
    return out.reshape(-1)


def dynamics_features(descriptors: FloatArray, dates: NDArray[np.datetime64]) -> F64:
    """Day-to-day dynamics of one participant.

    Args:
        descriptors: ``(n_days, N_DESCRIPTORS)`` daily descriptors of the retained days.
        dates: ``(n_days,)`` their ``datetime64[D]`` dates, strictly increasing.

    Returns:
        ``(N_DYNAMICS,)`` in :data:`DYNAMICS_NAMES` order (NaN where not computable).
    """
    d = np.asarray(descriptors, dtype=np.float64)
    if d.shape[0] == 0:
        stats = np.full((len(DYNAMIC_METRICS), len(METRIC_STATS)), np.nan)
        stats[:, 0] = 0.0
        return np.concatenate([stats.reshape(-1), np.full(len(CROSS_PAIRS) * len(CROSS_LAGS), np.nan)])
    grid = calendar_grid(d[:, _METRIC_COLS], dates)
    return np.concatenate([_metric_stats(grid).reshape(-1), _cross(grid[_CROSS_ROWS])])
