"""Validity of the population-grounded pipeline on the synthetic cohort (planted truth).

(a) Recall: among planted empirical couplings whose (driver, response) is on the menu, every
    28-day window (ends every 14 days) where the coupling passes the gates of ``coupling_lag``
    must report the planted lag and sign: recall = correct gated windows / gated windows ≥ 0.9.
    Coverage (planted couplings with at least one gated window) is reported alongside.
(b) Shuffled cohort: each metric of user i comes from another user (a seeded derangement per
    metric), destroying within-user structure while keeping every series realistic. The
    families' null tests must then reject (nearly) everything: near-zero items promoted.
"""

import contextlib
from collections.abc import Mapping, Sequence

import numpy as np
import pytest

import wearbench
from wearbench.bench._build import MAX_FDR
from wearbench.bench._generate import stable_rng
from wearbench.bench._pool import build_pool
from wearbench.grounding import EMPIRICAL_PAIRS, coupling_gates, derangement
from wearbench.questions import CohortPool, Draft, Drop, UserContext, contexts_from_cohort, question_type

TYPES = ("coupling_lag", "strongest_pair", "conditional_effect", "concordance")


@pytest.fixture(scope="module")
def cohort() -> wearbench.Cohort:
    return wearbench.synth(30, 200, seed=1, reference_users=200)


@pytest.fixture(scope="module")
def contexts(cohort: wearbench.Cohort) -> list[UserContext]:
    return list(contexts_from_cohort(cohort).values())


def _shuffled(contexts: Sequence[UserContext], seed: int) -> list[UserContext]:
    rng = np.random.default_rng(seed)
    metrics = sorted(contexts[0].metrics)
    perms = {m: derangement(len(contexts), rng) for m in metrics}
    return [
        UserContext(c.user_id, c.dates, {m: contexts[int(perms[m][i])].metrics[m] for m in metrics},
                    c.demographics, c.blood, c.reference)
        for i, c in enumerate(contexts)
    ]  # fmt: skip


def _promoted(contexts: Sequence[UserContext], pool: CohortPool) -> dict[str, int]:
    """Items per type that survive generation and the null test (as the builder does)."""
    out: dict[str, int] = {}
    for name in TYPES:
        qt = question_type(name)()
        null = qt.null_statistics(contexts, stable_rng(0, "null-test", name))
        keep = {f for f, v in null.items() if v["observed"] > 0 and v["null"] / v["observed"] <= MAX_FDR}
        drafts: list[Draft] = []
        for ctx in contexts:
            for end in qt.end_dates(ctx)[: 2 * qt.max_per_user]:
                with contextlib.suppress(Drop):
                    drafts.append(qt.make(ctx, end, stable_rng(0, name, ctx.user_id, str(end)), pool))
        out[name] = sum(d.grounding_ref in keep for d in drafts)
    return out


def test_planted_couplings_are_recovered(cohort: wearbench.Cohort, contexts: list[UserContext]) -> None:
    by_user = {c.user_id: c for c in contexts}
    menu = {(p.x, p.y) for p in EMPIRICAL_PAIRS}
    planted = [
        r
        for r in cohort.truth["couplings"]
        if r["kind"] == "empirical" and (r["driver"], r["response"]) in menu
    ]
    gated = correct = covered = 0
    for row in planted:
        ctx = by_user[row["user_id"]]
        hits = 0
        for end in range(ctx.n_days - 1, 26, -14):
            x, y = ctx.span(row["driver"], end, 28), ctx.span(row["response"], end, 28)
            out = coupling_gates(x, y, stable_rng(0, row["user_id"], str(end)), lag_margin=True)
            if out is not None and out.gates.passed:
                gated += 1
                hits += 1
                correct += (out.lag, out.sign) == (row["lag_days"], row["sign"])
        covered += hits > 0
    assert len(planted) >= 40
    assert gated >= 30
    recall = correct / gated
    print(f"recall {recall:.3f} over {gated} gated windows; coverage {covered}/{len(planted)}")
    assert recall >= 0.9
    assert covered / len(planted) >= 0.4


def test_shuffled_cohort_promotes_near_zero(contexts: list[UserContext]) -> None:
    pool = build_pool(contexts)
    real = _promoted(contexts, pool)
    shuffled = _promoted(_shuffled(contexts, 7), pool)
    print("promoted items real", real, "shuffled", shuffled)
    assert sum(real.values()) >= 40
    assert sum(shuffled.values()) <= max(3, 0.05 * sum(real.values()))


def test_null_fdr_on_shuffled_cohort(contexts: list[UserContext]) -> None:
    fams: Mapping[str, Mapping[str, float]] = {}
    shuffled = _shuffled(contexts, 11)
    for name in TYPES:
        fams = {**fams, **question_type(name)().null_statistics(shuffled, stable_rng(0, "null-test", name))}
    promoted = [f for f, v in fams.items() if v["observed"] > 0 and v["null"] / v["observed"] <= MAX_FDR]
    print("shuffled families passing the null test:", promoted)
    assert len(promoted) <= 2
