"""Gated conditional effects: direction × magnitude of a response after a driver's personal lows.

The statistic is :func:`wearbench.primitives.conditional_mean_difference` (effect in SD units);
its label is the direction (``higher``/``lower``) and the magnitude bin of ``|effect|`` between
:data:`EFFECT_EDGES`. Effects below the first edge are *no clear effect* and are not labelled;
nor are effects at or beyond the last edge (3 SD: beyond what a 20 % condition group can
plausibly shift a mean, so every bin is closed and can be shown in one template).
Gates:

- dead-band: ``|effect|`` within :data:`EFFECT_DEAD_BAND` SD of any edge is rejected;
- bootstrap: 30 day resamples (the pair ``(driver[t], response[t + lag])`` follows its anchor
  day ``t``; the driver cut is held fixed) reproduce the label ≥ 24 times;
- leave-one-day-out: removing any day (both pairs it belongs to) keeps the label;
- cut stability (the baseline-choice gate of a history statistic): the label is the same with
  the driver cut at the :data:`CUT_STABILITY` quantiles around the chosen one.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence

import numpy as np
from numpy.typing import NDArray

from wearbench.grounding._gates import (
    MIN_REPRODUCE,
    N_RESAMPLES,
    GateResult,
    bootstrap_gate,
    combine,
    lodo_gate,
    stability_gate,
)
from wearbench.grounding._kernels import bootstrap_weights

#: Magnitude bin edges of |effect| (SD units); effects at or beyond the last edge are not labelled.
EFFECT_EDGES: tuple[float, ...] = (0.3, 0.6, 0.9, 1.3, 1.8, 2.2, 2.6, 3.0)
#: Rejected half-width (SD units) around every edge.
EFFECT_DEAD_BAND = 0.05
#: Offsets of the driver cut's quantile the label must be stable across.
CUT_STABILITY: tuple[float, ...] = (-0.05, 0.0, 0.05)
MIN_DAYS = 10

FloatArray = NDArray[np.float64]
Label = tuple[str, int] | None


def conditional_label(effect: float, edges: Sequence[float] = EFFECT_EDGES) -> Label:
    """``(direction, bin index)`` of an effect, or None when undefined or outside the edges."""
    if not math.isfinite(effect) or not edges[0] <= abs(effect) < edges[-1]:
        return None
    k = int(np.searchsorted(np.asarray(edges), abs(effect), side="right")) - 1
    return ("higher" if effect > 0 else "lower", k)


def _pairs(
    x: FloatArray, y: FloatArray, lag: int, quantile: float, side: str
) -> tuple[FloatArray, NDArray[np.bool_]]:
    """Responses ``y[t + lag]`` (NaN where a side is missing) and the condition mask per anchor ``t``."""
    present = x[np.isfinite(x)]
    cut = float(np.quantile(present, quantile)) if present.size else math.nan
    xs, ys = x[: x.size - lag], y[lag:]
    used = np.isfinite(xs) & np.isfinite(ys)
    with np.errstate(invalid="ignore"):
        cond = used & ((xs <= cut) if side == "below" else (xs >= cut))
    return np.where(used, ys, np.nan), cond


def _effects(resp: FloatArray, cond: NDArray[np.bool_], weights: FloatArray) -> FloatArray:
    """Weighted ``(mean_cond - mean_other) / sd`` per weight row (NaN with < 10 days a group)."""
    used = np.isfinite(resp)
    y0 = np.where(used, resp, 0.0)
    c, o = (cond & used).astype(float), (~cond & used).astype(float)
    w_c, w_o = weights @ c, weights @ o
    with np.errstate(invalid="ignore", divide="ignore"):
        m_c, m_o = weights @ (c * y0) / w_c, weights @ (o * y0) / w_o
        w_all = w_c + w_o
        m = (weights @ y0) / w_all
        var = (weights @ (y0 * y0) - w_all * m * m) / (w_all - 1.0)
        eff = (m_c - m_o) / np.sqrt(var)
    n_c, n_o = (weights > 0) @ c, (weights > 0) @ o
    out: FloatArray = np.where((n_c >= MIN_DAYS) & (n_o >= MIN_DAYS) & (var > 0), eff, np.nan)
    return out


def _lodo_weights(n_days: int, lag: int, observed: NDArray[np.intp]) -> FloatArray:
    n = n_days - lag
    w = np.ones((observed.size, n))
    rows = np.arange(observed.size)
    for shift in {0, lag}:
        t = observed - shift
        ok = (t >= 0) & (t < n)
        w[rows[ok], t[ok]] = 0.0
    return w


def conditional_prefilter(
    x: FloatArray, y: FloatArray, *, quantile: float, side: str, lag: int
) -> tuple[float, bool]:
    """The effect and whether it is labelled and outside every dead-band (cheap first gate)."""
    resp, cond = _pairs(x, y, lag, quantile, side)
    eff = float(_effects(resp, cond, np.ones((1, resp.size)))[0])
    near = any(abs(abs(eff) - e) < EFFECT_DEAD_BAND for e in EFFECT_EDGES) if math.isfinite(eff) else True
    return eff, conditional_label(eff) is not None and not near


def conditional_pass_batch(
    x: FloatArray, y: FloatArray, rng: np.random.Generator, *, quantile: float, side: str, lag: int
) -> NDArray[np.bool_]:
    """Whether every gate passes, for a batch of ``(..., n)`` history pairs (vectorised prefilter)."""
    shape, n = x.shape[:-1], x.shape[-1]
    xf, yf = x.reshape(-1, n), y.reshape(-1, n)
    with warnings.catch_warnings(), np.errstate(invalid="ignore", divide="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        cut = np.nanquantile(xf, quantile, axis=-1, keepdims=True)
        xs, ys = xf[:, : n - lag], yf[:, lag:]
        used = np.isfinite(xs) & np.isfinite(ys)
        cond = used & ((xs <= cut) if side == "below" else (xs >= cut))
        other = used & ~cond
        y0 = np.where(used, ys, 0.0)
        m_c = (cond * y0).sum(-1) / cond.sum(-1)
        m_o = (other * y0).sum(-1) / other.sum(-1)
        sd = np.sqrt(np.nanvar(np.where(used, ys, np.nan), -1, ddof=1))
        eff = np.abs((m_c - m_o) / sd)
    # loose: the exact gates below decide; this only skips clearly null rows
    out: NDArray[np.bool_] = np.nan_to_num(eff) >= EFFECT_EDGES[0] - 2 * EFFECT_DEAD_BAND
    for i in np.flatnonzero(out):
        out[i] = conditional_gates(xf[i], yf[i], rng, quantile=quantile, side=side, lag=lag).passed
    return out.reshape(shape)


def conditional_gates(
    x: FloatArray,
    y: FloatArray,
    rng: np.random.Generator,
    *,
    quantile: float,
    side: str,
    lag: int,
) -> GateResult:
    """Every gate of the conditional effect of driver ``x`` on response ``y`` (whole history)."""
    eff, clear = conditional_prefilter(x, y, quantile=quantile, side=side, lag=lag)
    label = conditional_label(eff)
    checks = {"effect_size": label is not None, "effect_dead_band": clear or label is None}
    first = GateResult(clear, checks, {"effect": eff})
    if not clear:
        return first
    resp, cond = _pairs(x, y, lag, quantile, side)
    boot = _effects(resp, cond, bootstrap_weights(resp.size, N_RESAMPLES, rng))
    observed = np.flatnonzero(np.isfinite(x) | np.isfinite(y))
    lodo = _effects(resp, cond, _lodo_weights(x.size, lag, observed))
    cuts = {}
    for dq in CUT_STABILITY:
        r2, c2 = _pairs(x, y, lag, quantile + dq, side)
        cuts[round((quantile + dq) * 100)] = conditional_label(
            float(_effects(r2, c2, np.ones((1, r2.size)))[0])
        )
    return combine(
        first,
        bootstrap_gate([conditional_label(float(e)) for e in boot], label, min_reproduce=MIN_REPRODUCE),
        lodo_gate([conditional_label(float(e)) for e in lodo], label),
        stability_gate(cuts, label),
    )
