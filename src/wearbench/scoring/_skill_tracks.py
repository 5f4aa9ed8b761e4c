"""Skill scores of an imputation RESULTS folder (``wearbench track score``).

The per-participant :class:`~wearbench.tracks.ImputationError` rows become a
:class:`SkillErrors` with tasks approach × channel, bucketed by channel category:

- continuous channels (0–6): one task per channel, error = the MAE;
- binary channels (7–18), structural approaches only: collapsed per category (Sleep, Workout) into
  one task named after the category, error ``max(mean (1 - AUC), eps)`` over the channels with a
  defined AUC, rank error the unfloored mean (:func:`collapse_binary`); semantic approaches carry
  no binary rows (the seed scores none) and any that appear are left out.

:func:`score_imputation_results` scores them with :func:`imputation_scopes`, one seeded
participant-draw matrix (B = 1000 by default) shared by every method.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from wearbench.minutes import CATEGORIES, CHANNEL_NAMES
from wearbench.scoring._skill import SkillErrors, collapse_binary
from wearbench.scoring._skill_boot import (
    SEMANTIC_APPROACHES,
    STRUCTURAL_APPROACHES,
    SkillResult,
    imputation_scopes,
    score_skill,
)
from wearbench.scoring._track_json import channel_breakdown, finish_track_json
from wearbench.tracks import MASKING_APPROACHES, ImputationError, read_imputation_results

#: Channel index → category name.
CHANNEL_CATEGORY: dict[int, str] = {c: k for k, chans in CATEGORIES.items() for c in chans}


def check_approach_names() -> None:
    """Check that the scoring's structural / semantic approach names are the masking registry's.

    Raises:
        ValueError: If a name or a kind differs.
    """
    kinds = {a.name: a.kind for a in MASKING_APPROACHES.values()}
    want = {
        **dict.fromkeys(STRUCTURAL_APPROACHES, "structural"),
        **dict.fromkeys(SEMANTIC_APPROACHES, "semantic"),
    }
    if kinds != want:
        raise ValueError(f"masking approaches {kinds} differ from the skill scopes' {want}")


def imputation_rows(errors: Iterable[ImputationError], eps: float = 0.005) -> list[dict[str, object]]:
    """Long-table rows for :meth:`SkillErrors.from_rows` from per-participant imputation errors.

    Args:
        errors: One record per method × approach × participant × channel.
        eps: Floor of the collapsed binary error.

    Returns:
        Rows with ``method``, ``approach``, ``bucket``, ``task``, ``participant``, ``error`` and
        ``rank_error``: continuous channels one row each; binary channels of structural approaches
        one collapsed row per category; binary rows of semantic approaches dropped.
    """
    rows: list[dict[str, object]] = []
    binary: dict[tuple[str, str, str, str], list[float]] = {}
    for e in errors:
        bucket = CHANNEL_CATEGORY[e.channel]
        if e.kind == "mae":
            rows.append(_row(e.method, e.approach, bucket, CHANNEL_NAMES[e.channel], e.participant, e.value))
        elif MASKING_APPROACHES[e.approach].binary_scored:
            binary.setdefault((e.method, e.approach, bucket, e.participant), []).append(e.value)
    for (method, approach, bucket, participant), aucs in binary.items():
        err, rank_err = collapse_binary(np.asarray(aucs, dtype=float), eps)
        rows.append(_row(method, approach, bucket, bucket, participant, float(err), float(rank_err)))
    return rows


def _row(
    method: str,
    approach: str,
    bucket: str,
    task: str,
    participant: str,
    error: float,
    rank_error: float | None = None,
) -> dict[str, object]:
    return {
        "method": method,
        "approach": approach,
        "bucket": bucket,
        "task": task,
        "participant": participant,
        "error": error,
        "rank_error": error if rank_error is None else rank_error,
    }


def imputation_skill(
    errors: Iterable[ImputationError],
    baseline: str = "locf",
    *,
    seed: int = 0,
    n_boot: int = 1000,
    eps: float = 0.005,
) -> SkillResult:
    """Skill, 95% participant-bootstrap interval and rank per method and imputation scope.

    Args:
        errors: Per-participant imputation errors of every method.
        baseline: Reference method (the seed: LOCF).
        seed: Seed of the one ``(B, P)`` participant-draw matrix every method shares.
        n_boot: ``B``.
        eps: Floor of binary errors.

    Returns:
        The :class:`SkillResult` over :func:`imputation_scopes`.

    Raises:
        WearbenchError: If ``baseline`` is not among the methods.
    """
    skill_errors = SkillErrors.from_rows(imputation_rows(errors, eps))
    return score_skill(
        skill_errors,
        baseline,
        imputation_scopes(),
        rng=np.random.default_rng(seed),
        n_boot=n_boot,
    )


def score_imputation_records(
    manifest: Mapping[str, Any],
    errors: Sequence[ImputationError],
    baseline: str = "locf",
    *,
    seed: int = 0,
    n_boot: int = 1000,
) -> dict[str, Any]:
    """The ``track score`` JSON of an imputation run's manifest and error rows (folder or store).

    Returns:
        The track score JSON (:data:`~wearbench.scoring.TRACK_SCORE_JSON_SCHEMA`, kind
        ``openmhc-imputation``, breakdown ``by_channel``).

    Raises:
        WearbenchError: For an unknown baseline.
    """
    out = imputation_skill(errors, baseline, seed=seed, n_boot=n_boot).to_dict()
    return finish_track_json(out, manifest, {"by_channel": channel_breakdown(errors)}, seed)


def score_imputation_results(
    path: str | os.PathLike[str], baseline: str = "locf", *, seed: int = 0, n_boot: int = 1000
) -> dict[str, Any]:
    """Score a RESULTS folder (``wearbench track impute``): the ``track score`` JSON.

    Args:
        path: RESULTS folder.
        baseline: Reference method.
        seed: Seed of the participant-draw matrix.
        n_boot: Bootstrap replicates.

    Returns:
        ``{"kind", "track", "run_id", "baseline", "level", "n_boot", "n", "n_participants",
        "ci_method", "scopes", "methods": {method: {scope: {"skill", "ci_low", "ci_high",
        "rank"}}}, "breakdowns", "results_sha256", "seed"}`` (NaN → None).

    Raises:
        WearbenchError: For an unreadable folder or an unknown baseline.
    """
    manifest, errors = read_imputation_results(path)
    return score_imputation_records(manifest, errors, baseline, seed=seed, n_boot=n_boot)


def skill_table(scored: dict[str, Any]) -> str:
    """A plain-text skill table per scope (skill, 95% CI, rank), best skill first.

    Args:
        scored: The dict of :func:`score_imputation_results`.

    Returns:
        Text, one block per scope.
    """
    methods: dict[str, dict[str, dict[str, float | None]]] = scored["methods"]
    width = max(len(m) for m in methods) if methods else 6
    lines = [
        f"skill vs {scored['baseline']} ({scored['n_participants']} participants, B = {scored['n_boot']})"
    ]
    for scope in scored["scopes"]:
        lines += ["", scope, f"  {'method':<{width}}  {'skill':>8}  {'95% CI':>19}  {'rank':>5}"]
        order = sorted(methods, key=lambda m: -_num(methods[m][scope]["skill"]))
        for m in order:
            c = methods[m][scope]
            ci = f"[{_fmt(c['ci_low'])}, {_fmt(c['ci_high'])}]"
            lines.append(f"  {m:<{width}}  {_fmt(c['skill']):>8}  {ci:>19}  {_fmt(c['rank'], 2):>5}")
    return "\n".join(lines) + "\n"


def _num(x: float | None) -> float:
    return float("-inf") if x is None else x


def _fmt(x: float | None, digits: int = 3) -> str:
    return "n/a" if x is None else f"{x:.{digits}f}"
