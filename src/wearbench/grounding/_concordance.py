"""Gated same-day concordance of two linked signals over a 28-day window.

Each signal is signed by its health polarity (:data:`POLARITY`: lower resting HR and stress,
higher HRV, sleep and steps are better), so a positive same-day Pearson ``r`` of the signed
values means the two moved together in health terms (a worse day in one was a worse day in
the other: *concordant*) and a negative one that they moved against each other
(*discordant*). The label is the direction and the ``|r|`` bin between :data:`R_EDGES`.

Gates: ``|r| ≥ 0.5`` outside the dead-band with the same sign in both halves (the shared
effect-size gate), bootstrap (≥ 24 of 30 day resamples reproduce the *direction*) and
leave-one-day-out (direction unchanged with any day removed). The strength bin is too fine for
an 80 % bootstrap at n = 28; it is guarded by the dead-band :data:`BIN_DEAD_BAND` around every
inner bin edge instead (a documented relaxation).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from numpy.typing import NDArray

from wearbench.grounding._gates import (
    MIN_ABS_R,
    N_RESAMPLES,
    R_DEAD_BAND,
    GateResult,
    bootstrap_gate,
    combine,
    effect_size_gate,
    lodo_gate,
)
from wearbench.grounding._kernels import bootstrap_weights, lag_corr_counts, lodo_weights

#: +1 when a higher value is better, −1 when lower is better.
POLARITY: Mapping[str, int] = {
    "resting_hr": -1,
    "hrv": 1,
    "stress": -1,
    "sleep_efficiency": 1,
    "sleep_minutes": 1,
    "steps": 1,
}
#: Bin edges of |r| (the last bin is closed at 1).
R_EDGES: tuple[float, ...] = (0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
#: Rejected half-width around every inner bin edge.
BIN_DEAD_BAND = 0.02

FloatArray = NDArray[np.float64]
Label = tuple[str, int] | None


def concordance_label(r: float | None) -> Label:
    """``(concordant|discordant, bin)`` of a polarity-signed ``r`` (None below 0.5 or undefined)."""
    if r is None or not np.isfinite(r) or abs(r) < R_EDGES[0]:
        return None
    k = min(int(np.searchsorted(np.asarray(R_EDGES), abs(r), side="right")) - 1, len(R_EDGES) - 2)
    return ("concordant" if r > 0 else "discordant", k)


def _r0(x: FloatArray, y: FloatArray, weights: FloatArray, min_days: int) -> FloatArray:
    r, days = lag_corr_counts(x, y, weights, max_lag=0)
    out: FloatArray = np.where(days >= min_days, r, np.nan)[..., 0]
    return out


def concordance_gates(x: FloatArray, y: FloatArray, rng: np.random.Generator) -> tuple[Label, GateResult]:
    """Label and gates of two *polarity-signed* aligned windows."""
    n = x.size
    r = float(_r0(x[None], y[None], np.ones((1, n)), 14)[0, 0])
    label = concordance_label(r)
    parts = [effect_size_gate(x, y, 0)]
    inner = R_EDGES[1:-1]
    near = not np.isfinite(r) or any(abs(abs(r) - e) < BIN_DEAD_BAND for e in inner)
    parts.append(GateResult(not near, {"bin_dead_band": not near}, {}))
    if label is None or not all(p.passed for p in parts):
        return label, combine(*parts)
    boot = _r0(x[None], y[None], bootstrap_weights(n, N_RESAMPLES, rng), 10)[0]
    direction = [None if not np.isfinite(b) else ("concordant" if b > 0 else "discordant") for b in boot]
    days = np.flatnonzero(np.isfinite(x) | np.isfinite(y))
    lodo = _r0(x[None], y[None], lodo_weights(n)[days], 14)[0]
    lodo_dir = [None if not np.isfinite(v) else ("concordant" if v > 0 else "discordant") for v in lodo]
    parts += [bootstrap_gate(direction, label[0]), lodo_gate(lodo_dir, label[0])]
    return label, combine(*parts)


def concordance_pass_batch(x: FloatArray, y: FloatArray, rng: np.random.Generator) -> NDArray[np.bool_]:
    """Whether every gate passes, for ``(..., n)`` batches of polarity-signed window pairs."""
    shape, n = x.shape[:-1], x.shape[-1]
    xf, yf = x.reshape(-1, n), y.reshape(-1, n)
    r = _r0(xf, yf, np.ones((1, n)), 14)[:, 0]
    out: NDArray[np.bool_] = np.nan_to_num(np.abs(r)) >= MIN_ABS_R + R_DEAD_BAND
    for i in np.flatnonzero(out):
        out[i] = concordance_gates(xf[i], yf[i], rng)[1].passed
    return out.reshape(shape)
