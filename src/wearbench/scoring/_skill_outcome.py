"""Outcome-prediction skill score (seed 004, Track 1; reference Linear).

Task error ``E_{m,tau} = 1 - metric`` on the whole test cohort (AUPRC, Spearman or Pearson by the
task's kind; multiclass accuracy is reported per task but kept out of S). Domain skill
``S_d = 1 - exp(mean over tasks tau in d of log clip(E_m / E_b, 0.01, 100))``; Overall = the
arithmetic mean of the domains' ``S_d``. A task whose metric is undefined for either method (one
class, a constant vector) is left out; ``0 / 0`` counts as ratio 1. Rank: per task by metric
(descending, ties averaged), averaged within domains, then across domains (Overall). Bootstrap:
one seeded ``(B, U)`` draw of test users with replacement, the same for every method and task
(a task keeps the drawn users it includes, with their multiplicity); 95% percentile intervals.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
from scipy.stats import rankdata

from wearbench._errors import WearbenchError
from wearbench.scoring._skill_boot import SkillResult
from wearbench.scoring._track_json import finish_track_json, task_breakdown
from wearbench.tracks import (
    DOMAINS,
    OUTCOME_REFERENCE,
    SYNTHETIC_TASKS,
    OutcomePrediction,
    OutcomeTask,
    read_outcome_results,
    task_metric,
)

#: Ratio clip of the skill score.
CLIP = (0.01, 100.0)


def _log_ratio(e_m: float, e_b: float) -> float:
    if not (math.isfinite(e_m) and math.isfinite(e_b)):
        return math.nan
    if e_b <= 0:
        return 0.0 if e_m <= 0 else math.log(CLIP[1])
    return math.log(min(max(e_m / e_b, CLIP[0]), CLIP[1])) if e_m > 0 else math.log(CLIP[0])


def domain_skill(
    errors: Mapping[str, Mapping[str, float]], baseline: str, domains: Mapping[str, str]
) -> dict[str, dict[str, float]]:
    """Skill per method and scope (Overall + each domain) from task errors.

    Args:
        errors: ``errors[method][task] = 1 - metric`` (scored tasks only: no multiclass).
        baseline: Reference method.
        domains: Task → domain.

    Returns:
        ``skill[method][scope]``; NaN for a domain without a defined task, Overall the mean of the
        defined domains' skills.
    """
    order = list(dict.fromkeys(domains[t] for t in domains))
    out: dict[str, dict[str, float]] = {}
    for m, errs in errors.items():
        per: dict[str, float] = {}
        for d in order:
            logs = [_log_ratio(errs.get(t, math.nan), errors[baseline].get(t, math.nan))
                    for t in domains if domains[t] == d]  # fmt: skip
            logs = [x for x in logs if math.isfinite(x)]
            per[d] = 1.0 - math.exp(sum(logs) / len(logs)) if logs else math.nan
        done = [v for v in per.values() if math.isfinite(v)]
        out[m] = {"Overall": sum(done) / len(done) if done else math.nan, **per}
    return out


def domain_rank(
    metrics: Mapping[str, Mapping[str, float]], domains: Mapping[str, str]
) -> dict[str, dict[str, float]]:
    """Average rank per method and scope: per task by metric (descending, ties averaged).

    Args:
        metrics: ``metrics[method][task]`` (scored tasks; NaN tasks are skipped).
        domains: Task → domain.

    Returns:
        ``rank[method][scope]``, 1 = best; Overall = mean of the domains' average ranks.
    """
    methods = list(metrics)
    order = list(dict.fromkeys(domains[t] for t in domains))
    per: dict[str, dict[str, float]] = {m: {} for m in methods}
    for d in order:
        ranks = []
        for t in (t for t in domains if domains[t] == d):
            vals = np.array([metrics[m].get(t, math.nan) for m in methods])
            if np.isfinite(vals).all():
                ranks.append(rankdata(-vals))
        for i, m in enumerate(methods):
            per[m][d] = float(np.mean([r[i] for r in ranks])) if ranks else math.nan
    out = {}
    for m in methods:
        done = [v for v in per[m].values() if math.isfinite(v)]
        out[m] = {"Overall": sum(done) / len(done) if done else math.nan, **per[m]}
    return out


def _table(
    preds: Iterable[OutcomePrediction],
) -> tuple[dict[str, dict[str, tuple[list[str], np.ndarray, np.ndarray]]], list[str]]:
    """``{method: {task: (participants, labels, predictions)}}`` and the sorted test users."""
    rows: dict[str, dict[str, list[OutcomePrediction]]] = {}
    for p in preds:
        rows.setdefault(p.method, {}).setdefault(p.task, []).append(p)
    out: dict[str, dict[str, tuple[list[str], np.ndarray, np.ndarray]]] = {}
    users: set[str] = set()
    for m, tasks in rows.items():
        out[m] = {}
        for t, ps in tasks.items():
            ps = sorted(ps, key=lambda p: p.participant)
            users.update(p.participant for p in ps)
            out[m][t] = ([p.participant for p in ps], np.array([p.label for p in ps]),
                         np.array([p.prediction for p in ps]))  # fmt: skip
    return out, sorted(users)


def outcome_skill(
    preds: Iterable[OutcomePrediction],
    baseline: str = OUTCOME_REFERENCE,
    *,
    tasks: Mapping[str, OutcomeTask] = SYNTHETIC_TASKS,
    seed: int = 0,
    n_boot: int = 1000,
    level: float = 0.95,
) -> tuple[SkillResult, dict[str, dict[str, float]]]:
    """Skill, user-bootstrap interval and rank per method and scope; metrics per method and task.

    Args:
        preds: Per-participant predictions of every method (test users only).
        baseline: Reference method (the seed: Linear).
        tasks: Task definitions (kind, domain) by name.
        seed: Seed of the ``(B, U)`` user-draw matrix.
        n_boot: ``B``.
        level: Interval coverage.

    Returns:
        ``(result, metrics)``: the :class:`SkillResult` over Overall + the domains present, and
        ``metrics[method][task]`` on the full test cohort (multiclass accuracy included).

    Raises:
        WearbenchError: With no predictions, ``baseline`` absent, or a task without a definition.
    """
    table, users = _table(preds)
    if not table:
        raise WearbenchError("no outcome predictions to score (no test user was included in any task)")
    if baseline not in table:
        raise WearbenchError(f"baseline {baseline!r} is not among the methods {', '.join(table)}")
    unknown = sorted({t for m in table for t in table[m] if t not in tasks})
    if unknown:
        raise WearbenchError(f"no task definition for {', '.join(unknown)}")
    methods = list(table)
    names = sorted({t for m in table for t in table[m]}, key=list(tasks).index)
    scored = {t: tasks[t].domain for t in names if tasks[t].kind != "multiclass"}
    metrics = {m: {t: task_metric(tasks[t].kind, *table[m][t][1:]) for t in table[m]} for m in methods}
    present = set(scored.values())
    scopes = ["Overall", *(d for d in DOMAINS if d in present), *sorted(present - set(DOMAINS))]
    skill = _skill_array(metrics, baseline, scored, methods, scopes)
    rank_d = domain_rank({m: {t: metrics[m][t] for t in scored} for m in methods}, scored)
    rank = np.array([[rank_d[m][s] for s in scopes] for m in methods])
    draws = np.random.default_rng(seed).integers(0, len(users), size=(n_boot, len(users)))
    boot = np.stack(
        [_replicate(table, tasks, scored, users, d, baseline, methods, scopes) for d in draws], -1
    )
    alpha = (1.0 - level) / 2.0 * 100.0
    with np.errstate(all="ignore"):
        lo = np.nanpercentile(boot, alpha, axis=-1) if boot.size else np.full_like(skill, np.nan)
        hi = np.nanpercentile(boot, 100.0 - alpha, axis=-1) if boot.size else np.full_like(skill, np.nan)
    result = SkillResult(baseline, tuple(methods), tuple(scopes), skill, lo, hi, rank, boot, draws, level)
    return result, metrics


def _skill_array(
    metrics: Mapping[str, Mapping[str, float]], baseline: str, scored: Mapping[str, str],
    methods: list[str], scopes: list[str],
) -> np.ndarray:  # fmt: skip
    errs = {m: {t: 1.0 - metrics[m].get(t, math.nan) for t in scored} for m in methods}
    s = domain_skill(errs, baseline, scored)
    return np.array([[s[m].get(k, math.nan) for k in scopes] for m in methods])


def _replicate(
    table: dict[str, dict[str, tuple[list[str], np.ndarray, np.ndarray]]], tasks: Mapping[str, OutcomeTask],
    scored: Mapping[str, str], users: list[str], draw: np.ndarray, baseline: str, methods: list[str],
    scopes: list[str],
) -> np.ndarray:  # fmt: skip
    """Skill ``(M, S)`` on one draw of test users (the same draw for every method)."""
    counts = np.bincount(draw, minlength=len(users))
    weight = dict(zip(users, counts, strict=True))
    metrics: dict[str, dict[str, float]] = {}
    for m in methods:
        metrics[m] = {}
        for t in scored:
            if t not in table[m]:
                continue
            who, y, p = table[m][t]
            idx = np.repeat(np.arange(len(who)), [weight[u] for u in who])
            metrics[m][t] = task_metric(tasks[t].kind, y[idx], p[idx])
    return _skill_array(metrics, baseline, scored, methods, scopes)


def score_outcome_records(
    manifest: Mapping[str, Any],
    preds: Sequence[OutcomePrediction],
    baseline: str = OUTCOME_REFERENCE,
    *,
    seed: int = 0,
    n_boot: int = 1000,
) -> dict[str, Any]:
    """The ``track score`` JSON of an outcome run's manifest and predictions (folder or store).

    Returns:
        The track score JSON (kind ``openmhc-outcome``, breakdown ``by_task``) plus ``metrics``
        (``{method: {task: value}}``).

    Raises:
        WearbenchError: For an unknown baseline or no predictions.
    """
    defs = {name: OutcomeTask.from_dict(spec) for name, spec in manifest.get("tasks", {}).items()}
    defs = defs or dict(SYNTHETIC_TASKS)
    result, metrics = outcome_skill(preds, baseline, tasks=defs, seed=seed, n_boot=n_boot)
    out = result.to_dict()
    out["metrics"] = {
        m: {t: (v if math.isfinite(v) else None) for t, v in ts.items()} for m, ts in metrics.items()
    }
    return finish_track_json(out, manifest, {"by_task": task_breakdown(preds, metrics, defs)}, seed)


def score_outcome_results(
    path: str | os.PathLike[str], baseline: str = OUTCOME_REFERENCE, *, seed: int = 0, n_boot: int = 1000
) -> dict[str, Any]:
    """Score an outcome RESULTS folder (``wearbench track predict``): the ``track score`` JSON.

    Returns:
        ``{"kind": "openmhc-outcome", "track": "outcome", "run_id", "baseline", "level",
        "n_boot", "n", "n_participants", "ci_method", "scopes", "methods": {method: {scope:
        {"skill", "ci_low", "ci_high", "rank"}}}, "breakdowns": {"by_task": …}, "metrics":
        {method: {task: value}}, "results_sha256", "seed"}`` (NaN → None).

    Raises:
        WearbenchError: For an unreadable folder or an unknown baseline.
    """
    manifest, preds = read_outcome_results(path)
    return score_outcome_records(manifest, preds, baseline, seed=seed, n_boot=n_boot)
