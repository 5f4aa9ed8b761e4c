"""Gated coupling statistics of one 28-day window: lag and sign of a pair, strongest pair.

The labelled outcome of a coupling is ``(lag, sign)`` of its largest ``|r|`` over lags
``-3 … 3`` (``lagged_correlation(max_lag=3)``); of a strongest-pair comparison, the pair whose
best-lag ``|r|`` is largest. Both are gated by effect size (at the winning lag), the margin
(comparative questions), a 30-resample day bootstrap and leave-one-day-out, all evaluated
at once through day weights (:mod:`._kernels`).

Bootstrap resamples need :data:`BOOT_MIN_OVERLAP` distinct anchor days at a lag (a resample
holds ~63 % distinct days), below the 14 of the plain correlation.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from wearbench.grounding._gates import (
    HALF_MIN_OVERLAP,
    MARGIN_DEAD_BAND,
    MIN_ABS_R,
    MIN_MARGIN,
    MIN_REPRODUCE,
    N_RESAMPLES,
    R_DEAD_BAND,
    GateResult,
    bootstrap_gate,
    combine,
    effect_size_gate,
    lodo_gate,
    margin_gate,
)
from wearbench.grounding._kernels import (
    best_lag_index,
    bootstrap_weights,
    lag_corr_counts,
    lodo_lag_corr,
    weighted_lag_corr,
)

#: Largest lag (days) searched, as ``lagged_correlation(max_lag=3)``.
MAX_LAG = 3
#: Fewest distinct anchor days for a correlation within a bootstrap resample.
BOOT_MIN_OVERLAP = 10

FloatArray = NDArray[np.float64]
Weights = np.random.Generator | FloatArray


@dataclass(frozen=True)
class CouplingOutcome:
    """Lag (days, x leads when > 0) and sign of the strongest coupling, with its gates."""

    lag: int
    sign: int
    r: float
    gates: GateResult


def _weights(rng: Weights, n: int) -> FloatArray:
    return bootstrap_weights(n, N_RESAMPLES, rng) if isinstance(rng, np.random.Generator) else rng


def _outcomes(r: FloatArray) -> list[tuple[int, int]]:
    """``(lag, sign)`` per row of ``(B, L)`` correlations (``(0, 0)`` when undefined)."""
    idx, val = best_lag_index(r, MAX_LAG)
    return [(int(i) - MAX_LAG, int(np.sign(v))) if i >= 0 else (0, 0) for i, v in zip(idx, val, strict=True)]


def _observed_days(x: FloatArray, y: FloatArray) -> NDArray[np.intp]:
    n = x.shape[-1]
    present = np.isfinite(x.reshape(-1, n)).any(0) | np.isfinite(y.reshape(-1, n)).any(0)
    return np.flatnonzero(present)


def coupling_gates(
    x: FloatArray, y: FloatArray, rng: Weights, *, lag_margin: bool = True
) -> CouplingOutcome | None:
    """Lag and sign of the x→y coupling over a window, with every gate evaluated.

    Args:
        x: Window of the leading series (NaN = missing).
        y: Aligned window of the response.
        rng: Seeded source of the bootstrap resamples, or ``(30, n)`` bootstrap day weights.
        lag_margin: Also require the best lag to beat the runner-up lag by the margin.

    Returns:
        The outcome (``gates.passed`` says whether it is promotable), or None when no lag
        has a defined correlation. The resampling gates are skipped when the effect-size or
        margin gate already fails.
    """
    n = x.size
    r = weighted_lag_corr(x[None], y[None], np.ones((1, n)), max_lag=MAX_LAG)[0, 0]
    ((lag, sign),) = _outcomes(r[None])
    if sign == 0:
        return None
    parts = [effect_size_gate(x, y, lag)]
    if lag_margin:
        lags = range(-MAX_LAG, MAX_LAG + 1)
        parts.append(margin_gate({f"{lg:+d}": float(v) for lg, v in zip(lags, r, strict=True)}))
    if not all(p.passed for p in parts):
        return CouplingOutcome(lag, sign, float(r[lag + MAX_LAG]), combine(*parts))
    boot = weighted_lag_corr(
        x[None], y[None], _weights(rng, n), max_lag=MAX_LAG, min_overlap=BOOT_MIN_OVERLAP
    )
    parts.append(bootstrap_gate(_outcomes(boot[0]), (lag, sign)))
    lodo = lodo_lag_corr(x[None], y[None], _observed_days(x, y), max_lag=MAX_LAG)
    parts.append(lodo_gate(_outcomes(lodo[0]), (lag, sign)))
    return CouplingOutcome(lag, sign, float(r[lag + MAX_LAG]), combine(*parts))


def effect_prefilter(x: FloatArray, y: FloatArray) -> NDArray[np.bool_]:
    """Vectorised effect-size, dead-band and split-half gates for ``(N, n)`` window pairs."""
    n = x.shape[-1]
    first = (np.arange(n) < n // 2).astype(float)
    r_all, days = lag_corr_counts(x, y, np.stack([np.ones(n), first, 1.0 - first]), max_lag=MAX_LAG)
    r = np.where(days[:, 0] >= 14, r_all[:, 0], np.nan)
    halves = np.where(days[:, 1:] >= HALF_MIN_OVERLAP, r_all[:, 1:], np.nan)
    idx, best = best_lag_index(r, MAX_LAG)
    safe = np.maximum(idx, 0)
    h = np.take_along_axis(halves, np.repeat(safe[:, None, None], 2, 1), -1)[..., 0]
    with np.errstate(invalid="ignore"):
        same = (np.sign(h) == np.sign(best)[:, None]).all(-1)
        strong = np.abs(best) >= MIN_ABS_R + R_DEAD_BAND
    out: NDArray[np.bool_] = (idx >= 0) & strong & same
    return out


def _lag_sign(r: FloatArray) -> tuple[NDArray[np.int64], FloatArray]:
    idx, val = best_lag_index(r, MAX_LAG)
    return idx, np.where(idx >= 0, np.sign(val), 0.0)


def _robust(xs: FloatArray, ys: FloatArray, weights: FloatArray, lag_margin: bool) -> NDArray[np.bool_]:
    n, b = xs.shape[-1], len(weights)
    r_all, days = lag_corr_counts(xs, ys, np.concatenate([np.ones((1, n)), weights]), max_lag=MAX_LAG)
    r = np.where(days[:, 0] >= 14, r_all[:, 0], np.nan)
    idx, sign = _lag_sign(r)
    ok = np.ones(len(xs), dtype=bool)
    if lag_margin:
        mags = np.sort(np.where(np.isnan(r), 0.0, np.abs(r)), -1)
        ok &= mags[:, -1] - mags[:, -2] >= MIN_MARGIN + MARGIN_DEAD_BAND
    boot = np.where(days[:, 1 : b + 1] >= BOOT_MIN_OVERLAP, r_all[:, 1 : b + 1], np.nan)
    b_idx, b_sign = _lag_sign(boot)
    ok &= ((b_idx == idx[:, None]) & (b_sign == sign[:, None])).sum(-1) >= MIN_REPRODUCE
    keep = np.flatnonzero(ok)  # leave-one-day-out only where every other gate passed
    if keep.size:
        l_idx, l_sign = _lag_sign(lodo_lag_corr(xs[keep], ys[keep], np.arange(n), max_lag=MAX_LAG))
        present = np.isfinite(xs[keep]) | np.isfinite(ys[keep])
        flips = ((l_idx != idx[keep, None]) | (l_sign != sign[keep, None])) & present
        ok[keep] = ~flips.any(-1)
    return ok


def coupling_pass_batch(
    x: FloatArray, y: FloatArray, rng: Weights, *, lag_margin: bool = True
) -> NDArray[np.bool_]:
    """Whether the coupling passes every gate, for a batch of window pairs ``(..., n)``.

    Vectorised equivalent of ``coupling_gates(...).gates.passed``; the bootstrap resamples
    (drawn from ``rng``, or given as ``(30, n)`` weights) are shared by the batch. The
    effect-size prefilter runs first; the other gates run on its survivors only.
    """
    shape, n = x.shape[:-1], x.shape[-1]
    xf, yf = x.reshape(-1, n), y.reshape(-1, n)
    weights = _weights(rng, n)
    out = effect_prefilter(xf, yf)
    keep = np.flatnonzero(out)
    if keep.size:
        out[keep] = _robust(xf[keep], yf[keep], weights, lag_margin)
    return out.reshape(shape)


def _winners(r: FloatArray, names: Sequence[str]) -> list[str | None]:
    """Winning pair per resample from ``(P, B, L)`` correlations (ties: smaller name)."""
    _, best = best_lag_index(r, MAX_LAG)  # P,B
    order = np.argsort(np.asarray(names))
    key = np.where(np.isnan(best), -np.inf, np.abs(best))[order]
    pos = key.argmax(0)
    none = np.isneginf(key.max(0))
    return [None if e else names[int(order[p])] for p, e in zip(pos, none, strict=True)]


def strongest_gates(
    x: FloatArray, y: FloatArray, names: Sequence[str], rng: Weights
) -> tuple[str | None, GateResult]:
    """Which of ``P`` pairs has the largest best-lag ``|r|``, with every gate evaluated.

    Args:
        x: ``(P, n)`` windows of each pair's x signal.
        y: ``(P, n)`` aligned windows of each pair's y signal.
        names: Pair names.
        rng: Seeded source of the bootstrap resamples, or ``(30, n)`` bootstrap day weights.

    Returns:
        The winner (None when no pair has a defined correlation) and the gates (the resampling
        gates are skipped when the margin or effect-size gate already fails).
    """
    n = x.shape[-1]
    r = weighted_lag_corr(x, y, np.ones((1, n)), max_lag=MAX_LAG)
    idx, best = best_lag_index(r[:, 0], MAX_LAG)
    (winner,) = _winners(r, names)
    if winner is None:
        return None, GateResult(False, {"defined": False}, {})
    w = list(names).index(winner)
    parts = [
        margin_gate({nm: float(b) for nm, b in zip(names, best, strict=True)}),
        effect_size_gate(x[w], y[w], int(idx[w]) - MAX_LAG),
    ]
    if not all(p.passed for p in parts):
        return winner, combine(*parts)  # the resampling gates are not run
    boot = weighted_lag_corr(x, y, _weights(rng, n), max_lag=MAX_LAG, min_overlap=BOOT_MIN_OVERLAP)
    parts.append(bootstrap_gate(_winners(boot, names), winner))
    lodo = lodo_lag_corr(x, y, _observed_days(x, y), max_lag=MAX_LAG)
    parts.append(lodo_gate(_winners(lodo, names), winner))
    return winner, combine(*parts)
