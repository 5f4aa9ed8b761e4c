"""OpenMHC skill score, average rank and participant bootstrap over a :class:`SkillErrors`.

``S = 1 - exp(mean over approaches in scope of mean over buckets of mean over tasks of l_{m,r})``
with ``l_{m,r}`` the mean over participants ``P_r`` of the clipped log-ratio against the
reference. The bootstrap draws ONE ``(B, P)`` matrix of participant indices from a
``numpy.random.Generator`` and re-runs the whole aggregation on every row for every method: a draw
becomes a ``(B, P)`` multiplicity matrix ``W`` and every per-task mean over participants is one
matrix product with ``W`` (the full split is ``W = 1``), so the point estimate and all ``B``
replicates share one code path.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from wearbench.minutes import CATEGORY_NAMES
from wearbench.scoring._skill import (
    Scope,
    SkillErrors,
    hierarchy_mean,
    log_ratios,
    participant_ranks,
    scope_groups,
)

STRUCTURAL_APPROACHES: tuple[str, ...] = ("random_noise", "temporal_slice", "signal_slice")
SEMANTIC_APPROACHES: tuple[str, ...] = ("sleep_gap", "workout_gap", "intensity_failure")


def imputation_scopes(
    structural: Sequence[str] = STRUCTURAL_APPROACHES,
    semantic: Sequence[str] = SEMANTIC_APPROACHES,
    categories: Sequence[str] = CATEGORY_NAMES,
) -> tuple[Scope, ...]:
    """The imputation track's columns: Overall, one per category, Semantic.

    Overall averages all six approaches; a category column averages the structural approaches
    restricted to that bucket; Semantic averages the semantic approaches over their buckets.
    """
    both = (*structural, *semantic)
    per_cat = tuple(Scope(k, tuple(structural), (k,)) for k in categories)
    return (Scope("Overall", both), *per_cat, Scope("Semantic", tuple(semantic)))


def forecast_scopes(categories: Sequence[str] = CATEGORY_NAMES) -> tuple[Scope, ...]:
    """The forecasting track's columns: Overall (all categories) and one per category (``K = {k}``)."""
    return (Scope("Overall"), *(Scope(k, None, (k,)) for k in categories))


def draw_matrix(n_participants: int, rng: np.random.Generator, n_boot: int = 1000) -> np.ndarray:
    """One participant-draw matrix for a split, shared by every method.

    Args:
        n_participants: ``P`` participants of the split (≥ 1).
        rng: Seeded generator.
        n_boot: ``B`` replicates (≥ 1).

    Returns:
        ``(B, P)`` integer indices into the participants, drawn with replacement.

    Raises:
        ValueError: If ``n_participants`` or ``n_boot`` is below 1.
    """
    if n_participants < 1 or n_boot < 1:
        raise ValueError(f"need >= 1 participant and >= 1 replicate, got {n_participants} and {n_boot}")
    return rng.integers(0, n_participants, size=(n_boot, n_participants))


def draw_weights(draws: np.ndarray, n_participants: int) -> np.ndarray:
    """``(B, P)`` multiplicity of each participant in each row of a draw matrix."""
    n_boot = draws.shape[0]
    flat = (draws + n_participants * np.arange(n_boot)[:, None]).ravel()
    return np.bincount(flat, minlength=n_boot * n_participants).reshape(n_boot, n_participants).astype(float)


def weighted_task_means(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """Mean over participants of the finite entries, one mean per weight row.

    Args:
        values: ``(M, T, P)``; NaN entries are left out (participant not in ``P_r``).
        weights: ``(B, P)`` participant multiplicities.

    Returns:
        ``(M, T, B)``; NaN where no finite entry carries weight.
    """
    m, t, p = values.shape
    ok = np.isfinite(values).reshape(m * t, p)
    total = np.where(ok, values.reshape(m * t, p), 0.0) @ weights.T
    count = ok.astype(float) @ weights.T
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(count > 0, total / np.maximum(count, 1.0), np.nan)
    return mean.reshape(m, t, weights.shape[0])


@dataclass(frozen=True, eq=False)
class SkillResult:
    """Skill, 95% percentile interval and average rank per method × scope.

    Attributes:
        baseline: Reference method.
        methods: Method names, length ``M``.
        scopes: Scope names, length ``S``.
        skill: ``(M, S)`` point estimates on the full split.
        ci_low: ``(M, S)`` lower percentile bound.
        ci_high: ``(M, S)`` upper percentile bound.
        rank: ``(M, S)`` average rank (1 = best), on the full split.
        boot: ``(M, S, B)`` bootstrap replicates of the skill.
        draws: ``(B, P)`` the participant-draw matrix every method was resampled with.
        level: Interval coverage.
    """

    baseline: str
    methods: tuple[str, ...]
    scopes: tuple[str, ...]
    skill: np.ndarray
    ci_low: np.ndarray
    ci_high: np.ndarray
    rank: np.ndarray
    boot: np.ndarray
    draws: np.ndarray
    level: float

    def cell(self, method: str, scope: str) -> dict[str, float | None]:
        """``skill``, ``ci_low``, ``ci_high`` and ``rank`` of one method in one scope (NaN → None)."""
        i, j = self.methods.index(method), self.scopes.index(scope)
        return {
            k: _json_float(arr[i, j])
            for k, arr in (
                ("skill", self.skill),
                ("ci_low", self.ci_low),
                ("ci_high", self.ci_high),
                ("rank", self.rank),
            )
        }

    def to_dict(self) -> dict[str, object]:
        """JSON-ready: ``methods[method][scope] = {skill, ci_low, ci_high, rank}`` plus the settings."""
        return {
            "baseline": self.baseline,
            "level": self.level,
            "n_boot": int(self.draws.shape[0]),
            "n_participants": int(self.draws.shape[1]),
            "scopes": list(self.scopes),
            "methods": {m: {s: self.cell(m, s) for s in self.scopes} for m in self.methods},
        }


def _json_float(x: float) -> float | None:
    return None if math.isnan(x) else float(x)


def score_skill(
    errors: SkillErrors,
    baseline: str,
    scopes: Sequence[Scope],
    *,
    rng: np.random.Generator | None = None,
    draws: np.ndarray | None = None,
    n_boot: int = 1000,
    level: float = 0.95,
    clip: tuple[float, float] = (0.01, 100.0),
) -> SkillResult:
    """Skill score with participant-bootstrap intervals and average rank, per method and scope.

    Args:
        errors: Per-participant errors (:class:`SkillErrors`).
        baseline: Reference method (skill 0 by construction).
        scopes: Columns of the table (:func:`imputation_scopes`, :func:`forecast_scopes`).
        rng: Generator for :func:`draw_matrix`; used only when ``draws`` is ``None``.
        draws: A ``(B, P)`` draw matrix to reuse (e.g. across tracks of one split).
        n_boot: ``B`` when drawing.
        level: Interval coverage in ``(0, 1)``; percentiles ``(1 ± level) / 2``.
        clip: Bounds on the per-participant error ratio.

    Returns:
        A :class:`SkillResult`.

    Raises:
        ValueError: Without ``rng`` and ``draws``, on a bad ``level`` or a draw matrix whose
            indices do not fit the participants.
        WearbenchError: If ``baseline`` is not a method.
    """
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    n_part = len(errors.participants)
    if draws is None:
        if rng is None:
            raise ValueError("score_skill needs a seeded rng or a draw matrix")
        draws = draw_matrix(n_part, rng, n_boot)
    elif draws.ndim != 2 or draws.shape[1] != n_part or draws.min() < 0 or draws.max() >= n_part:
        raise ValueError(f"draw matrix of shape {draws.shape} does not index {n_part} participants")
    b = errors.method_index(baseline)
    ratios = log_ratios(errors.errors, errors.errors[b], clip)
    full = weighted_task_means(ratios, np.ones((1, n_part)))
    boot_l = weighted_task_means(ratios, draw_weights(draws, n_part))
    ranks = weighted_task_means(participant_ranks(errors.ranking), np.ones((1, n_part)))
    groups = [scope_groups(errors.tasks, s) for s in scopes]
    skill = np.stack([1.0 - np.exp(hierarchy_mean(full, g)[:, 0]) for g in groups], axis=1)
    boot = np.stack([1.0 - np.exp(hierarchy_mean(boot_l, g)) for g in groups], axis=1)
    rank = np.stack([hierarchy_mean(ranks, g)[:, 0] for g in groups], axis=1)
    tail = (1.0 - level) / 2.0
    finite = np.isfinite(boot).any(axis=-1)
    safe = np.where(finite[..., None], boot, 0.0)
    with np.errstate(invalid="ignore"):
        lo, hi = np.nanquantile(safe, [tail, 1.0 - tail], axis=-1)
    return SkillResult(
        baseline=baseline,
        methods=errors.methods,
        scopes=tuple(s.name for s in scopes),
        skill=skill,
        ci_low=np.where(finite, lo, np.nan),
        ci_high=np.where(finite, hi, np.nan),
        rank=rank,
        boot=boot,
        draws=draws,
        level=level,
    )
