"""The vectorised skill score against a short pure-Python reference on random fixtures."""

from __future__ import annotations

import math

import numpy as np
import pytest

from wearbench.scoring import Scope, SkillErrors, Task, imputation_scopes, score_skill

Grid = list[list[list[float]]]


def _mean(xs: list[float]) -> float:
    return sum(xs) / len(xs) if xs else math.nan


def _tree(tasks: tuple[Task, ...], scope: Scope, per_task: list[float]) -> float:
    approaches = [
        a
        for a in dict.fromkeys(t.approach for t in tasks)
        if scope.approaches is None or a in scope.approaches
    ]
    app_means = []
    for a in approaches:
        buckets = list(dict.fromkeys(t.bucket for t in tasks if t.approach == a))
        bucket_means = []
        for k in buckets:
            if scope.buckets is not None and k not in scope.buckets:
                continue
            vals = [v for t, v in zip(tasks, per_task, strict=True) if (t.approach, t.bucket) == (a, k)]
            bucket_means.append(_mean([v for v in vals if not math.isnan(v)]))
        app_means.append(_mean([v for v in bucket_means if not math.isnan(v)]))
    return _mean([v for v in app_means if not math.isnan(v)])


def _skill(err: Grid, base: int, m: int, users: list[int], tasks: tuple[Task, ...], scope: Scope) -> float:
    per_task = []
    for r in range(len(tasks)):
        logs = []
        for p in users:
            e, b = err[m][r][p], err[base][r][p]
            if math.isfinite(e) and math.isfinite(b) and b > 0:
                logs.append(math.log(min(max(e / b, 0.01), 100.0)))
        per_task.append(_mean(logs))
    return 1.0 - math.exp(_tree(tasks, scope, per_task))


def _rank(err: Grid, m: int, tasks: tuple[Task, ...], scope: Scope) -> float:
    n_m, n_p = len(err), len(err[0][0])
    per_task = []
    for r in range(len(tasks)):
        ranks = []
        for p in range(n_p):
            col = [err[i][r][p] for i in range(n_m)]
            if all(math.isfinite(x) for x in col):
                below = sum(x < col[m] for x in col)
                ties = sum(x == col[m] for x in col)
                ranks.append(below + (ties + 1) / 2)
        per_task.append(_mean(ranks))
    return _tree(tasks, scope, per_task)


def _fixture(seed: int) -> SkillErrors:
    rng = np.random.default_rng(seed)
    layout = [("random_noise", "Activity"), ("random_noise", "Sleep"), ("signal_slice", "Physiology")]
    layout += [("signal_slice", "Workout"), ("sleep_gap", "Activity"), ("workout_gap", "Physiology")]
    tasks = tuple(Task(a, k, f"t{i}") for i, (a, k) in enumerate(layout))
    n_m, n_p = 4, 9
    err = rng.lognormal(0.0, 2.0, size=(n_m, len(tasks), n_p))  # ratios beyond [0.01, 100] occur
    err[rng.random(err.shape) < 0.15] = np.nan
    err[0][rng.random(err.shape[1:]) < 0.1] = 0.0  # reference error 0 drops the participant
    err[1, 3] = np.round(err[2, 3], 0)  # ties
    err[2, 3] = np.round(err[2, 3], 0)
    err[:, 5] = np.nan  # a task nobody is scored on
    return SkillErrors(("ref", "a", "b", "c"), tasks, tuple(f"u{i}" for i in range(n_p)), err)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_fast_path_matches_the_reference(seed: int) -> None:
    se = _fixture(seed)
    scopes = (*imputation_scopes(), Scope("Activity only, all approaches", None, ("Activity",)))
    res = score_skill(se, "ref", scopes, rng=np.random.default_rng(seed), n_boot=25)
    err: Grid = se.errors.tolist()
    everyone = list(range(len(se.participants)))
    for m in range(len(se.methods)):
        for s, scope in enumerate(scopes):
            point = _skill(err, 0, m, everyone, se.tasks, scope)
            np.testing.assert_allclose(res.skill[m, s], point, rtol=1e-12, atol=1e-12)
            np.testing.assert_allclose(res.rank[m, s], _rank(err, m, se.tasks, scope), rtol=1e-12)
            boot = [_skill(err, 0, m, [int(p) for p in row], se.tasks, scope) for row in res.draws]
            np.testing.assert_allclose(res.boot[m, s], boot, rtol=1e-12, atol=1e-12)
            finite = [b for b in boot if math.isfinite(b)]
            if finite:
                lo, hi = np.quantile(finite, [0.025, 0.975])
                assert res.ci_low[m, s] == pytest.approx(lo, abs=1e-12)
                assert res.ci_high[m, s] == pytest.approx(hi, abs=1e-12)
            else:
                assert math.isnan(res.ci_low[m, s])
