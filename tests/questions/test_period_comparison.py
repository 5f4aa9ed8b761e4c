"""Period comparison: a planted high month and low month over a year of history."""

from __future__ import annotations

import json

import numpy as np
import pytest

from wearbench.questions import CohortPool, Draft, Drop, UserContext, run_graph
from wearbench.questions._helpers import paired_options
from wearbench.questions.types.period_comparison import METRICS, PeriodComparison, month_text

START = np.datetime64("2024-01-01")
N = 366  # the whole of 2024 (a leap year)
DATES = START + np.arange(N).astype("timedelta64[D]")
MONTH = (DATES.astype("datetime64[M]") - START.astype("datetime64[M]")).astype(int)


def planted(month_means: dict[int, float] | None = None) -> np.ndarray:
    """Month m averages 60 + 0.5·m (± an alternating 1), overridden by ``month_means``."""
    means = 60.0 + 0.5 * MONTH
    for m, v in (month_means or {}).items():
        means[m == MONTH] = v
    return means + np.where(np.arange(N) % 2 == 0, -1.0, 1.0)


def make_ctx(values: np.ndarray) -> UserContext:
    return UserContext("u1", DATES, {m: values.copy() for m in METRICS}, {"age": 45.0, "sex": "F"}, (), {})


def build(values: np.ndarray, seed: int = 0) -> tuple[UserContext, Draft]:
    ctx = make_ctx(values)
    return ctx, PeriodComparison().make(ctx, N - 1, np.random.default_rng(seed), CohortPool())


def test_planted_extreme_month_is_the_answer() -> None:
    values = planted({6: 75.0, 2: 45.0})  # July highest, March lowest
    seen = set()
    for seed in range(8):
        ctx, draft = build(values, seed)
        word = "highest" if "highest" in draft.question else "lowest"
        seen.add(word)
        expected = "2024-07" if word == "highest" else "2024-03"
        assert draft.correct.claim["period"] == expected
        assert draft.correct.text == month_text(expected)
        evidence = draft.graph.evidence()
        options = (draft.correct, *draft.distractors)
        assert [PeriodComparison.check(o.claim, evidence) for o in options] == [True] + [False] * 9
        assert len({o.text for o in options}) == 10
        assert run_graph(json.loads(json.dumps(draft.graph.to_json())), ctx) == evidence
        assert draft.gates is not None
        assert draft.gates["gap_sd"] >= 0.15
    assert seen == {"highest", "lowest"}


def test_adjacent_months_are_distractors() -> None:
    _, draft = build(planted({6: 75.0, 2: 45.0}), seed=0)
    periods = {o.claim["period"] for o in draft.distractors}
    answer = draft.correct.claim["period"]
    neighbours = {"2024-07": {"2024-06", "2024-08"}, "2024-03": {"2024-02", "2024-04"}}[answer]
    assert neighbours & periods  # one adjacent month (random side) comes with the answer


def test_near_tie_is_dropped() -> None:
    flat = 60.0 + np.where(np.arange(N) % 2 == 0, -1.0, 1.0)
    with pytest.raises(Drop, match="dead-band of the runner-up"):
        build(flat)


def test_margin_is_a_constructor_field() -> None:
    # December (65.5) leads November (65.0) and January (60.0) leads February (60.5) by about
    # 0.27 daily SDs (2.0): kept under the default margin 0.15, dropped under 0.3.
    ctx = make_ctx(planted())
    for seed in range(4):
        gates = build(planted(), seed)[1].gates
        assert gates is not None
        assert gates["gap_sd"] == pytest.approx(0.27, abs=0.02)
        with pytest.raises(Drop, match="dead-band of the runner-up"):
            PeriodComparison(margin=0.3).make(ctx, N - 1, np.random.default_rng(seed), CohortPool())


def test_too_few_full_months_is_dropped() -> None:
    values = planted({6: 75.0, 2: 45.0})
    values[MONTH >= 7] = np.nan
    with pytest.raises(Drop, match="too few months"):
        build(values)


def test_month_text() -> None:
    assert month_text("2024-03") == "March 2024"
    assert month_text("2025-12") == "December 2025"


def test_pick_periods_pair_each_top_period_with_a_neighbour() -> None:
    ranked = [5, 0, 11, 3, 1, 2, 4, 6, 7, 8, 9, 10]
    picks = paired_options(ranked, np.random.default_rng(0))
    assert picks[0] == 5
    assert len(set(picks)) == 10
    for anchor in (5, 0, 11, 3):
        assert anchor in picks
        assert anchor - 1 in picks or anchor + 1 in picks


def test_check_on_hand_made_evidence() -> None:
    evidence = {"labels": ["2024-01", "2024-02", "2024-03"], "means": [60.0, 70.0, None], "winner": 1}
    assert PeriodComparison.check({"period": "2024-02"}, evidence)
    assert not PeriodComparison.check({"period": "2024-01"}, evidence)
    assert not PeriodComparison.check({"period": "2024-02"}, {**evidence, "winner": None})
