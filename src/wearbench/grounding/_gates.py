"""Population-grounding gates (WearableQA §3.3): effect size, robustness, authenticity.

A candidate pattern mined on a 28-day window is promoted to a question only if it survives
every gate. Thresholds (the seed's numbers, restated in ``DESIGN.md``):

- **effect size**: ``|ρ| ≥ 0.5`` (:data:`MIN_ABS_R`) with the same sign in both halves of the
  window (pairs anchored in days 1–14 and in days 15–28, each needing
  :data:`HALF_MIN_OVERLAP` pairs);
- **comparative margin**: the winner beats the runner-up by ``≥ 0.15`` (:data:`MIN_MARGIN`);
- **bootstrap**: the labelled outcome reproduces in ``≥ 24`` of ``30`` day resamples
  (:data:`MIN_REPRODUCE` of :data:`N_RESAMPLES`, i.e. 80 %), drawn from a seeded generator;
- **leave-one-day-out**: the outcome is unchanged with any single day removed;
- **baseline-window stability**: where the statistic depends on a personal baseline, the
  outcome is the same with 21-, 28- and 35-day baselines (:data:`BASELINE_WINDOWS`);
- **dead-band** (our choice; the seed names the gate but not its width): near-boundary cases
  are rejected: ``|ρ|`` within :data:`R_DEAD_BAND` = 0.15 of 0.5 (so a correlation passes only
  at ``|ρ| ≥ 0.65``) and a margin within :data:`MARGIN_DEAD_BAND` = 0.03 of 0.15 (passes only
  at ``≥ 0.18``). The correlation band is wide on purpose: at n = 28 with day-to-day
  persistence, unrelated signals reach ``|ρ| ≥ 0.55`` at some lag in ~9 % of windows and pass
  every other gate in ~1.4 % (cross-user null, synthetic cohort 200 × 500); with 0.15 that falls
  to ~0.4 % while planted couplings keep ~14 % of windows, which is what keeps pattern families
  under the FDR bar when a coupling is present in only a fifth of users;
- **cross-user null test**: the gated statistic recomputed on deliberately mismatched user
  pairings; empirical FDR = null prevalence / observed prevalence must be ``≤ 0.20``
  (:data:`MAX_FDR`; see :func:`null_test`).

Every gate is a pure function returning a frozen :class:`GateResult`; :func:`combine` joins
them. Results are JSON-able through :meth:`GateResult.to_dict` and stored on each item.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from wearbench.grounding._kernels import weighted_lag_corr

#: Smallest |correlation| of a promoted coupling (seed: |ρ| ≥ 0.5).
MIN_ABS_R = 0.5
#: Half-width of the rejected band around :data:`MIN_ABS_R` (our choice; see the module docstring).
R_DEAD_BAND = 0.15
#: Smallest winner − runner-up gap of a comparative question (seed: 0.15).
MIN_MARGIN = 0.15
#: Half-width of the rejected band around :data:`MIN_MARGIN` (our choice).
MARGIN_DEAD_BAND = 0.03
#: Bootstrap resamples of days (seed: 30).
N_RESAMPLES = 30
#: Resamples that must reproduce the labelled outcome (seed: 24 of 30, 80 %).
MIN_REPRODUCE = 24
#: Baseline lengths (days) the outcome must be stable across.
BASELINE_WINDOWS = (21, 28, 35)
#: Largest empirical FDR (null / observed prevalence) of a promoted pattern family.
MAX_FDR = 0.20
#: Fewest pairs for the correlation of one half-window.
HALF_MIN_OVERLAP = 7


@dataclass(frozen=True)
class GateResult:
    """Outcome of one or several gates.

    Attributes:
        passed: Every check passed.
        checks: Gate name → passed.
        stats: Statistics the checks were decided on (JSON values).
    """

    passed: bool
    checks: Mapping[str, bool]
    stats: Mapping[str, Any]

    def to_dict(self) -> dict[str, Any]:
        """``{"passed", "checks", "stats"}`` as plain JSON values (NaN → None)."""
        return {
            "passed": bool(self.passed),
            "checks": {k: bool(v) for k, v in sorted(self.checks.items())},
            "stats": {k: _json(v) for k, v in sorted(self.stats.items())},
        }


def _json(v: Any) -> Any:
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, float) and not math.isfinite(v):
        return None
    if isinstance(v, list | tuple):
        return [_json(x) for x in v]
    return v


def _result(checks: Mapping[str, bool], stats: Mapping[str, Any]) -> GateResult:
    return GateResult(all(checks.values()), {k: bool(v) for k, v in checks.items()}, dict(stats))


def combine(*results: GateResult) -> GateResult:
    """Join gate results (checks and stats merged; later names win)."""
    checks: dict[str, bool] = {}
    stats: dict[str, Any] = {}
    for r in results:
        checks.update(r.checks)
        stats.update(r.stats)
    return _result(checks, stats)


def _as_float(a: ArrayLike, name: str) -> NDArray[np.float64]:
    arr = np.asarray(a, dtype=np.float64)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D daily array, got shape {arr.shape}")
    return arr


def _corr_at(
    x: NDArray[np.float64], y: NDArray[np.float64], lag: int, w: NDArray[np.float64], k: int
) -> float:
    m = max(abs(lag), 1)
    r = weighted_lag_corr(x[None], y[None], w[None], max_lag=m, min_overlap=k)
    return float(r[0, 0, lag + m])


def effect_size_gate(
    x: ArrayLike,
    y: ArrayLike,
    lag: int,
    *,
    min_abs_r: float = MIN_ABS_R,
    dead_band: float = R_DEAD_BAND,
    min_overlap: int = 14,
) -> GateResult:
    """``|r| ≥ min_abs_r`` at ``lag``, outside the dead-band, with the same sign in both halves.

    Args:
        x: Window of the leading series (NaN = missing).
        y: Aligned window of the other series; pairs are ``(x[t], y[t + lag])``.
        lag: Lag in days (``> 0``: x leads).
        min_abs_r: Effect-size threshold.
        dead_band: Rejected half-width around ``min_abs_r``.
        min_overlap: Fewest pairs for the whole-window correlation.

    Returns:
        Checks ``effect_size``, ``r_dead_band``, ``split_half_sign``; stats ``r``, ``r_first``,
        ``r_second``, ``lag``.
    """
    xs, ys = _as_float(x, "x"), _as_float(y, "y")
    if xs.size != ys.size:
        raise ValueError(f"x and y must be aligned, got lengths {xs.size} and {ys.size}")
    n, half = xs.size, xs.size // 2
    first = (np.arange(n) < half).astype(float)
    r = _corr_at(xs, ys, lag, np.ones(n), min_overlap)
    r1 = _corr_at(xs, ys, lag, first, HALF_MIN_OVERLAP)
    r2 = _corr_at(xs, ys, lag, 1.0 - first, HALF_MIN_OVERLAP)
    ok = math.isfinite(r)
    same = ok and all(math.isfinite(h) and np.sign(h) == np.sign(r) for h in (r1, r2))
    checks = {
        "effect_size": ok and abs(r) >= min_abs_r,
        "r_dead_band": ok and abs(abs(r) - min_abs_r) >= dead_band,
        "split_half_sign": same,
    }
    return _result(checks, {"r": r, "r_first": r1, "r_second": r2, "lag": lag})


def margin_gate(
    scores: Mapping[str, float], *, margin: float = MIN_MARGIN, dead_band: float = MARGIN_DEAD_BAND
) -> GateResult:
    """The best ``|score|`` beats the runner-up by ``≥ margin``, outside the dead-band.

    NaN scores are ignored; ties for first go to the smaller name (as ``argmax_pair``). With a
    single finite score the gap is infinite.

    Returns:
        Checks ``margin``, ``margin_dead_band``; stats ``winner``, ``runner_up``, ``gap``.
    """
    finite = {k: abs(float(v)) for k, v in scores.items() if math.isfinite(float(v))}
    if not finite:
        return _result({"margin": False, "margin_dead_band": False}, {"winner": None, "gap": math.nan})
    ranked = sorted(finite, key=lambda k: (-finite[k], k))
    gap = finite[ranked[0]] - finite[ranked[1]] if len(ranked) > 1 else math.inf
    checks = {"margin": gap >= margin and gap > 0, "margin_dead_band": abs(gap - margin) >= dead_band}
    runner = ranked[1] if len(ranked) > 1 else None
    return _result(checks, {"winner": ranked[0], "runner_up": runner, "gap": gap})


def bootstrap_gate(
    outcomes: Sequence[Hashable], label: Hashable, *, min_reproduce: int = MIN_REPRODUCE
) -> GateResult:
    """The label reproduces in at least ``min_reproduce`` of the resample ``outcomes``.

    ``min_reproduce`` is stated for :data:`N_RESAMPLES` resamples and scaled to
    ``len(outcomes)`` (the same share) when another number of resamples is given.

    Returns:
        Check ``bootstrap``; stats ``bootstrap_agree``, ``bootstrap_n``.
    """
    n = len(outcomes)
    if n == 0:
        raise ValueError("bootstrap_gate needs at least one resample outcome")
    need = min_reproduce if n == N_RESAMPLES else math.ceil(min_reproduce / N_RESAMPLES * n)
    agree = sum(o == label for o in outcomes)
    return _result({"bootstrap": agree >= need}, {"bootstrap_agree": agree, "bootstrap_n": n})


def lodo_gate(outcomes: Sequence[Hashable], label: Hashable) -> GateResult:
    """The label survives every leave-one-day-out recomputation.

    Returns:
        Check ``lodo``; stats ``lodo_flips`` (days whose removal changes the outcome), ``lodo_n``.
    """
    flips = sum(o != label for o in outcomes)
    return _result({"lodo": flips == 0 and len(outcomes) > 0}, {"lodo_flips": flips, "lodo_n": len(outcomes)})


def stability_gate(outcomes: Mapping[int, Hashable], label: Hashable) -> GateResult:
    """The label is the outcome for every baseline length in ``outcomes`` (days → outcome).

    Returns:
        Check ``baseline_stability``; stat ``baseline_windows`` (lengths that agree).
    """
    agree = sorted(k for k, o in outcomes.items() if o == label)
    ok = bool(outcomes) and len(agree) == len(outcomes)
    return _result({"baseline_stability": ok}, {"baseline_windows": agree})


@dataclass(frozen=True)
class NullResult:
    """Cross-user null test of one pattern family.

    Attributes:
        observed: Share of matched (same-user) windows where the gated statistic passes.
        null: Share of mismatched windows (x of user i, y of user π(i)) where it passes.
        fdr: ``null / observed`` (inf when nothing passes on matched windows).
        n_windows: Matched windows tested.
        passes: Matched windows where the statistic passes (``observed = passes / n_windows``).
        hits: Mismatched windows where it passes; ``tested``: mismatched windows tested
            (``null = (hits + 1) / (tested + 1)``). The counts let a builder pool the test
            over groups of users.
    """

    observed: float
    null: float
    fdr: float
    n_windows: int
    passes: int = 0
    hits: int = 0
    tested: int = 0

    def to_dict(self) -> dict[str, float]:
        """``{"null", "observed", "fdr"}`` (what the builder's null hook expects) and the counts."""
        return {
            "null": self.null,
            "observed": self.observed,
            "fdr": self.fdr,
            "windows": float(self.n_windows),
            "passes": float(self.passes),
            "hits": float(self.hits),
            "tested": float(self.tested),
        }


def derangement(n: int, rng: np.random.Generator) -> NDArray[np.int64]:
    """A seeded permutation of ``range(n)`` with no fixed point (``n ≥ 2``).

    A uniform permutation is drawn; each remaining fixed point is swapped with its right-hand
    neighbour (cyclically), which never creates a new fixed point.
    """
    if n < 2:
        raise ValueError(f"a derangement needs n >= 2, got {n}")
    perm = rng.permutation(n).astype(np.int64)
    for i in range(n):
        if perm[i] == i:
            j = (i + 1) % n
            perm[i], perm[j] = perm[j], perm[i]
    return perm


def null_test(
    statistic: Callable[[NDArray[np.float64], NDArray[np.float64]], NDArray[np.bool_]],
    xs: Sequence[NDArray[np.float64]],
    ys: Sequence[NDArray[np.float64]],
    rng: np.random.Generator,
    *,
    n_pairings: int = 3,
    pseudo_count: int = 1,
) -> NullResult:
    """Empirical FDR of a gated statistic: mismatched vs matched user pairings.

    Args:
        statistic: Batch form of the gated statistic: ``(X, Y)`` of shape ``(N, k, n)`` (N users,
            ``k`` windows each, ``n`` days) → ``(N, k)`` booleans (the pattern passes every gate
            on that window pair).
        xs: Per user, ``(k, n)`` windows of the x signal (the same ``k`` window positions for
            every user).
        ys: Per user, the aligned ``(k, n)`` windows of the y signal.
        rng: Seeded source of the derangements.
        n_pairings: Independent derangements pooled for the null prevalence.
        pseudo_count: Added to the null hits and trials (``(hits + 1) / (trials + 1)``): a
            conservative estimate, so that a small cohort with no null hit by chance cannot
            promote a family on a handful of observed hits.

    Returns:
        A :class:`NullResult`; windows where either side has no value are not counted.
    """
    if len(xs) != len(ys) or len(xs) < 2:
        raise ValueError(f"need aligned window stacks for at least 2 users, got {len(xs)} and {len(ys)}")
    x, y = np.stack(xs), np.stack(ys)
    present = np.isfinite(x).any(-1) & np.isfinite(y).any(-1)
    n_windows = int(present.sum())
    passes = int(statistic(x, y)[present].sum())
    observed = float(passes / max(n_windows, 1))
    hits, tested = 0, 0
    for _ in range(n_pairings):
        perm = derangement(len(xs), rng)
        both = np.isfinite(x).any(-1) & np.isfinite(y[perm]).any(-1)
        hits += int(statistic(x, y[perm])[both].sum())
        tested += int(both.sum())
    null = (hits + pseudo_count) / (tested + pseudo_count) if tested + pseudo_count > 0 else 0.0
    fdr = null / observed if observed > 0 else math.inf
    return NullResult(observed, null, fdr, n_windows, passes, hits, tested)
