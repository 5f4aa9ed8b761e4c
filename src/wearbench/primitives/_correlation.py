"""Lagged correlation between two daily series, and picking the strongest of several scores.

Lag convention: a lag ``L > 0`` means **x leads y by L days**: ``r(L) = corr(x[t], y[t + L])``
over all ``t`` with both values present. ``L < 0`` means y leads x. This equals pandas'
``x.corr(y.shift(-L))``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats

from wearbench.primitives._common import (
    FloatArray,
    IntArray,
    as_series,
    check_choice,
    check_int,
    check_real,
    readonly,
)
from wearbench.primitives._registry import primitive

CorrMethod = Literal["pearson", "spearman"]


@dataclass(frozen=True, eq=False)
class LagCorrelation:
    """Correlation at every lag in ``-max_lag … max_lag``.

    Attributes:
        lags: Lags in days, ascending (int64); ``L > 0`` means x leads y by ``L`` days.
        r: Correlation coefficient per lag (unitless, in [-1, 1]); NaN where undefined.
        n: Number of (x, y) pairs used per lag (int64).
        best_lag: Lag with the largest ``|r|`` (ties: smallest ``|lag|``, then the smaller lag);
            None when every ``r`` is NaN.
        best_r: ``r`` at ``best_lag`` (signed); NaN when every ``r`` is NaN.
    """

    lags: IntArray
    r: FloatArray
    n: IntArray
    best_lag: int | None
    best_r: float


def _shifted(y: FloatArray, lags: IntArray) -> FloatArray:
    """Matrix whose row ``i`` holds ``y[t + lags[i]]`` at column ``t`` (NaN outside the series)."""
    m = int(np.abs(lags).max(initial=0))
    padded = np.concatenate([np.full(m, np.nan), y, np.full(m, np.nan)])
    cols = np.arange(len(y))[None, :] + lags[:, None] + m
    out: FloatArray = padded[cols]
    return out


def _masked_ranks(a: FloatArray, mask: np.ndarray) -> FloatArray:
    """Average ranks (1-based) of the masked-in entries of each row; other entries get NaN."""
    ranks = stats.rankdata(np.where(mask, a, np.inf), method="average", axis=1)
    return np.where(mask, ranks, np.nan)


def _masked_pearson(a: FloatArray, b: FloatArray, mask: np.ndarray) -> tuple[FloatArray, IntArray]:
    """Row-wise Pearson r over masked-in pairs; NaN where a side is constant or n < 2."""
    n = mask.sum(axis=1)
    a0, b0 = np.where(mask, a, 0.0), np.where(mask, b, 0.0)
    with np.errstate(invalid="ignore", divide="ignore"):
        da = np.where(mask, a - (a0.sum(axis=1) / n)[:, None], 0.0)
        db = np.where(mask, b - (b0.sum(axis=1) / n)[:, None], 0.0)
        r = (da * db).sum(axis=1) / np.sqrt((da * da).sum(axis=1) * (db * db).sum(axis=1))
    constant = np.zeros(len(a), dtype=bool)
    for side in (a, b):
        hi = np.where(mask, side, -np.inf).max(axis=1, initial=-np.inf)
        lo = np.where(mask, side, np.inf).min(axis=1, initial=np.inf)
        constant |= hi == lo
    r = np.where(constant | (n < 2), np.nan, np.clip(r, -1.0, 1.0))
    return r, n.astype(np.int64)


def _best(lags: IntArray, r: FloatArray) -> tuple[int | None, float]:
    finite = np.flatnonzero(~np.isnan(r))
    if finite.size == 0:
        return None, float("nan")
    order = sorted(finite, key=lambda i: (-abs(r[i]), abs(lags[i]), lags[i]))
    return int(lags[order[0]]), float(r[order[0]])


@primitive(inputs=("x", "y"), output="LagCorrelation", units="r", cost="cheap")
def lagged_correlation(
    x: ArrayLike,
    y: ArrayLike,
    *,
    max_lag: int = 3,
    method: CorrMethod = "pearson",
    min_overlap: int = 14,
) -> LagCorrelation:
    """Correlation of x with y shifted by every lag from ``-max_lag`` to ``max_lag`` days.

    ``r(L) = corr(x[t], y[t + L])``: positive ``L`` means x leads y. Pairs with a missing value
    on either side are dropped. Spearman is Pearson on the average ranks of the pairs used at
    that lag.

    Args:
        x: Daily series (NaN = missing), any units.
        y: Daily series aligned with ``x`` (same calendar), any units.
        max_lag: Largest absolute lag in days (≥ 0).
        method: ``"pearson"`` or ``"spearman"``.
        min_overlap: Fewest pairs for a defined ``r`` (≥ 2).

    Returns:
        A :class:`LagCorrelation`; ``r`` is NaN at a lag with fewer than ``min_overlap`` pairs or
        where either side is constant over its pairs.

    Raises:
        ValueError: If ``x`` and ``y`` differ in length, or on bad parameters.
    """
    xs, ys = as_series(x, "x"), as_series(y, "y")
    if len(xs) != len(ys):
        raise ValueError(f"x and y must have the same length, got {len(xs)} and {len(ys)}")
    check_int("max_lag", max_lag, 0)
    check_choice("method", method, ("pearson", "spearman"))
    check_int("min_overlap", min_overlap, 2)
    lags = np.arange(-max_lag, max_lag + 1, dtype=np.int64)
    a = np.broadcast_to(xs, (len(lags), len(xs)))
    b = _shifted(ys, lags)
    mask = ~np.isnan(a) & ~np.isnan(b)
    if method == "spearman" and len(xs) > 0:
        a, b = _masked_ranks(a, mask), _masked_ranks(b, mask)
    r, n = _masked_pearson(a, b, mask)
    r = np.where(n >= min_overlap, r, np.nan)
    best_lag, best_r = _best(lags, r)
    return LagCorrelation(readonly(lags), readonly(r), readonly(n), best_lag, best_r)


@dataclass(frozen=True)
class PairWinner:
    """The highest score among named candidates and its margin over the runner-up.

    Attributes:
        winner: Name of the best candidate.
        value: Its score (signed, as given).
        runner_up: Name of the second best; None when only one score is finite.
        runner_up_value: Its score (signed); NaN when there is no runner-up.
        gap: Ranking-key difference winner − runner-up (``|score|`` if ``by_abs``); inf when
            there is no runner-up.
        decisive: ``gap >= margin`` and the top two are not tied.
    """

    winner: str
    value: float
    runner_up: str | None
    runner_up_value: float
    gap: float
    decisive: bool


@primitive(inputs=("scores",), output="PairWinner", units="same as scores", cost="cheap")
def argmax_pair(scores: Mapping[str, float], *, margin: float = 0.15, by_abs: bool = True) -> PairWinner:
    """Pick the candidate with the largest score and say whether it wins decisively.

    NaN scores are ignored. Candidates are ranked by score (``|score|`` when ``by_abs``), ties
    broken by name in ascending order; a tie for first place is never decisive.

    Args:
        scores: Candidate name → score (e.g. a correlation per signal pair).
        margin: Smallest winning gap that counts as decisive (≥ 0, in score units).
        by_abs: Rank by absolute value (for signed correlations).

    Returns:
        A :class:`PairWinner`.

    Raises:
        ValueError: If no score is finite, or a score is ±inf.
    """
    check_real("margin", margin, 0.0, math.inf)
    finite = {}
    for name, value in scores.items():
        v = float(value)
        if math.isinf(v):
            raise ValueError(f"score {name!r} is {v}; scores must be finite or NaN")
        if not math.isnan(v):
            finite[str(name)] = v
    if not finite:
        raise ValueError(f"argmax_pair needs at least one finite score, got {dict(scores)!r}")
    key = {name: abs(v) if by_abs else v for name, v in finite.items()}
    ranked = sorted(finite, key=lambda name: (-key[name], name))
    top = ranked[0]
    if len(ranked) == 1:
        return PairWinner(top, finite[top], None, float("nan"), math.inf, True)
    second = ranked[1]
    gap = key[top] - key[second]
    return PairWinner(top, finite[top], second, finite[second], gap, gap > 0 and gap >= margin)
