"""Vectorised kernels behind the gates: day weights and weighted lagged correlations.

A day bootstrap or a leave-one-day-out pass re-runs a statistic on perturbed copies of the
same days. Rather than copying arrays, both are expressed as *day weights*: a bootstrap
resample weights each anchor day by the number of times it was drawn, leaving a day out
gives it weight zero. A weighted statistic with all-ones weights is the plain statistic, so
one kernel evaluates the observed value, 30 resamples and every leave-one-out copy at once.

Lag convention (as :func:`wearbench.primitives.lagged_correlation`): lag ``L > 0`` pairs
``x[t]`` with ``y[t + L]`` (x leads); the weight of a pair is the weight of its anchor day
``t``. Resampling anchors keeps every pair's lag exact, unlike resampling then shifting.
Leave-one-day-out of a lagged statistic is exact in :func:`lodo_lag_corr` (the day is removed
from both series, so every pair using it drops).
"""

from __future__ import annotations

import warnings

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]


def bootstrap_weights(n: int, n_resamples: int, rng: np.random.Generator) -> FloatArray:
    """``(n_resamples, n)`` counts of each day in ``n_resamples`` draws of ``n`` days with replacement."""
    if n < 1 or n_resamples < 1:
        raise ValueError(f"n and n_resamples must be >= 1, got {n} and {n_resamples}")
    idx = rng.integers(0, n, size=(n_resamples, n))
    out = np.zeros((n_resamples, n))
    np.add.at(out, (np.arange(n_resamples)[:, None], idx), 1.0)
    return out


def lodo_weights(n: int) -> FloatArray:
    """``(n, n)`` weights: row ``i`` leaves day ``i`` out."""
    return 1.0 - np.eye(n)


def _shift(y: FloatArray, lags: IntArray) -> FloatArray:
    """``(..., L, n)``: ``y[..., t + lag]`` (NaN outside the series)."""
    m = int(np.abs(lags).max(initial=0))
    pad = np.full((*y.shape[:-1], m), np.nan)
    padded = np.concatenate([pad, y, pad], axis=-1)
    cols = np.arange(y.shape[-1])[None, :] + lags[:, None] + m
    out: FloatArray = padded[..., cols]
    return out


def weighted_lag_corr(
    x: FloatArray, y: FloatArray, weights: FloatArray, *, max_lag: int = 3, min_overlap: int = 14
) -> FloatArray:
    """Weighted Pearson r at every lag for a batch of pairs and weightings.

    Args:
        x: ``(P, n)`` daily series (NaN = missing), one row per pair.
        y: ``(P, n)`` aligned partner series.
        weights: ``(B, n)`` non-negative day weights (of the anchor day ``t``).
        max_lag: Lags ``-max_lag … max_lag``.
        min_overlap: Fewest distinct anchor days with weight > 0 and both values present.

    Returns:
        ``(P, B, 2 * max_lag + 1)`` correlations; NaN where undefined (too few days, a constant
        side).
    """
    r, n_days = lag_corr_counts(x, y, weights, max_lag=max_lag)
    out: FloatArray = np.where(n_days >= min_overlap, r, np.nan)
    return out


def _centred(a: FloatArray) -> FloatArray:
    """``a`` minus its NaN-ignoring mean along the last axis (0 for an all-NaN row).

    The same arithmetic as ``np.nanmean`` (zero the NaNs, pairwise sum, divide by the count),
    without its warnings machinery, which costs more than the sum at these sizes.
    """
    missing = np.isnan(a)
    total = np.where(missing, 0.0, a).sum(-1, keepdims=True)
    count = (~missing).sum(-1, keepdims=True, dtype=np.intp)
    mean = total / count  # 0/0 = NaN for an all-NaN row (the caller silences it)
    out: FloatArray = a - np.nan_to_num(mean)  # centring limits cancellation
    return out


def lag_corr_counts(
    x: FloatArray, y: FloatArray, weights: FloatArray, *, max_lag: int = 3
) -> tuple[FloatArray, FloatArray]:
    """:func:`weighted_lag_corr` without the overlap rule.

    Every lag at once: the partner series is shifted into a ``(P, L, n)`` stack and the six
    sufficient sums (count, Σx, Σy, Σx², Σy², Σxy) of every pair, lag and weighting are six
    ``(P, L, n) @ (n, B)`` products (one stacked product measured no faster: the stacking copy
    costs what the saved calls gain, and more for many pairs).

    Args:
        x: ``(P, n)`` daily series (NaN = missing).
        y: ``(P, n)`` aligned partner series.
        weights: ``(B, n)`` non-negative day weights (of the anchor day).
        max_lag: Lags ``-max_lag … max_lag`` (``L = 2 * max_lag + 1``).

    Returns:
        ``(r, distinct anchor days)``, both ``(P, B, L)``; ``r`` is NaN where a side is constant
        or there are no pairs.
    """
    lags = np.arange(-max_lag, max_lag + 1, dtype=np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        xc, yc = _centred(x), _centred(y)
        ys = _shift(yc, lags)  # P,L,n
        xs = np.broadcast_to(xc[:, None, :], ys.shape)
        valid = np.isfinite(xs) & np.isfinite(ys)
        x0, y0 = np.where(valid, xs, 0.0), np.where(valid, ys, 0.0)
        v = valid.astype(np.float64)
        wt = weights.T  # n,B
        s, sx, sy = v @ wt, x0 @ wt, y0 @ wt  # P,L,B
        sxx, syy, sxy = (x0 * x0) @ wt, (y0 * y0) @ wt, (x0 * y0) @ wt
        n_days = v @ (weights > 0).T.astype(np.float64)
        vx = sxx - sx * sx / s
        vy = syy - sy * sy / s
        r = (sxy - sx * sy / s) / np.sqrt(vx * vy)
        ok = (vx > 1e-10 * sxx) & (vy > 1e-10 * syy) & (vx > 0) & (vy > 0)
    out: FloatArray = np.where(ok, np.clip(r, -1.0, 1.0), np.nan).transpose(0, 2, 1)
    return out, n_days.transpose(0, 2, 1)


def lodo_lag_corr(
    x: FloatArray, y: FloatArray, days: NDArray[np.intp], *, max_lag: int = 3, min_overlap: int = 14
) -> FloatArray:
    """Lagged correlations with each of ``days`` removed from both series (exact leave-one-day-out).

    Removing day ``d`` drops every pair that uses it: the pair anchored at ``d`` (``x[d]``) and,
    at lag ``L ≠ 0``, the pair anchored at ``d - L`` (``y[d]``). Computed by subtracting those
    pairs from the sufficient sums, so it costs one pass, not one per day.

    Returns:
        ``(P, len(days), 2 * max_lag + 1)`` correlations.
    """
    lags = np.arange(-max_lag, max_lag + 1, dtype=np.int64)
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        xc = x - np.nan_to_num(np.nanmean(x, -1, keepdims=True))
        yc = y - np.nan_to_num(np.nanmean(y, -1, keepdims=True))
    ys = _shift(yc, lags)  # P,L,n (anchor t)
    xs = np.broadcast_to(xc[:, None, :], ys.shape)
    valid = np.isfinite(xs) & np.isfinite(ys)
    x0, y0 = np.where(valid, xs, 0.0), np.where(valid, ys, 0.0)
    comps = np.stack([valid.astype(np.float64), x0, y0, x0 * x0, y0 * y0, x0 * y0])  # 6,P,L,n
    other = np.zeros_like(comps)  # pair anchored at d - L, indexed by d
    n = x.shape[-1]
    for k, lag in enumerate(lags.tolist()):
        if lag > 0:
            other[:, :, k, lag:] = comps[:, :, k, : n - lag]
        elif lag < 0:
            other[:, :, k, : n + lag] = comps[:, :, k, -lag:]
    left = comps.sum(-1, keepdims=True) - comps - other  # 6,P,L,n
    s, sx, sy, sxx, syy, sxy = left[..., days]
    with np.errstate(invalid="ignore", divide="ignore"):
        vx, vy = sxx - sx * sx / s, syy - sy * sy / s
        r = (sxy - sx * sy / s) / np.sqrt(vx * vy)
        ok = (s >= min_overlap) & (vx > 1e-10 * sxx) & (vy > 1e-10 * syy) & (vx > 0) & (vy > 0)
    out: FloatArray = np.where(ok, np.clip(r, -1.0, 1.0), np.nan).transpose(0, 2, 1)
    return out


def best_lag_index(r: FloatArray, max_lag: int) -> tuple[IntArray, FloatArray]:
    """Index (into lags ``-max_lag … max_lag``) and value of the largest ``|r|`` along the last axis.

    Ties go to the smallest ``|lag|``, then the smaller lag, as in
    :func:`wearbench.primitives.lagged_correlation`. Where every ``r`` is NaN the index is -1
    and the value NaN.
    """
    lags = np.arange(-max_lag, max_lag + 1)
    order = np.array(sorted(range(lags.size), key=lambda i: (abs(int(lags[i])), int(lags[i]))))
    key = np.where(np.isnan(r), -np.inf, np.abs(r))[..., order]
    pos = key.argmax(-1)
    idx = order[pos]
    value = np.take_along_axis(r, idx[..., None], -1)[..., 0]
    none = np.isneginf(np.take_along_axis(key, pos[..., None], -1)[..., 0])
    return np.where(none, -1, idx).astype(np.int64), np.where(none, np.nan, value)
