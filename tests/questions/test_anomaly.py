"""Anomaly: a planted spike day is the most deviating day of the window."""

from __future__ import annotations

import json

import numpy as np
import pytest

from wearbench.questions import CohortPool, Draft, Drop, UserContext, run_graph
from wearbench.questions._helpers import paired_options
from wearbench.questions.types.anomaly import METRICS, Anomaly

N = 70
END = N - 1
WINDOW_START = N - 28  # record index of the window's first day
START = np.datetime64("2024-01-01")


def base() -> np.ndarray:
    """A repeating 60 + (-2, -1, 0, 1, 2) pattern: median 60, MAD 1, so |robust z| ≤ 1.35."""
    return 60.0 + np.tile([-2.0, -1.0, 0.0, 1.0, 2.0], N // 5 + 1)[:N]


def make_ctx(values: np.ndarray) -> UserContext:
    dates = START + np.arange(values.size).astype("timedelta64[D]")
    return UserContext("u1", dates, {m: values.copy() for m in METRICS}, {"age": 40.0, "sex": "M"}, (), {})


def build(values: np.ndarray, seed: int = 0) -> tuple[UserContext, Draft]:
    ctx = make_ctx(values)
    return ctx, Anomaly().make(ctx, END, np.random.default_rng(seed), CohortPool())


def day(i: int) -> str:
    return str(START + i)


@pytest.mark.parametrize(
    ("spike_at", "delta"), [(WINDOW_START + 10, 20.0), (END, -15.0), (WINDOW_START, 9.0)]
)
def test_planted_spike_is_the_answer(spike_at: int, delta: float) -> None:
    values = base()
    values[spike_at] += delta
    ctx, draft = build(values)
    assert draft.correct.claim["date"] == day(spike_at)
    evidence = draft.graph.evidence()
    assert evidence["winner"] == day(spike_at)
    assert evidence["decisive"] is True
    assert abs(evidence["value"]) >= 5.0  # |delta| / 1.4826 ≥ 6
    options = (draft.correct, *draft.distractors)
    assert [Anomaly.check(o.claim, evidence) for o in options] == [True] + [False] * 9
    assert len({o.text for o in options}) == 10
    assert all(day(WINDOW_START) <= o.claim["date"] <= day(END) for o in options)
    assert run_graph(json.loads(json.dumps(draft.graph.to_json())), ctx) == evidence


def test_option_text_names_the_weekday() -> None:
    values = base()
    values[WINDOW_START + 3] += 20.0
    _, draft = build(values)
    d = np.datetime64(draft.correct.claim["date"])
    weekday = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
    assert draft.correct.text == f"{weekday[int((d.astype('int64') + 3) % 7)]} {d}"


def test_no_excursion_is_dropped() -> None:
    with pytest.raises(Drop, match="not an excursion"):
        build(base())


def test_two_equal_spikes_are_dropped_as_knife_edge() -> None:
    values = base()
    values[WINDOW_START + 5] += 20.0
    values[WINDOW_START + 20] += 20.0
    with pytest.raises(Drop, match="dead-band of the runner-up"):
        build(values)


def test_min_z_and_margin_are_constructor_fields() -> None:
    values = base()
    values[WINDOW_START + 7] += 0.1  # 62.1: |z| = 2.1 / 1.4826 = 1.416, 0.067 above the runners-up
    ctx = make_ctx(values)
    with pytest.raises(Drop, match="not an excursion"):  # default min_z 1.5
        build(values)
    with pytest.raises(Drop, match="dead-band of the runner-up"):  # default margin 0.5
        Anomaly(min_z=1.4).make(ctx, END, np.random.default_rng(0), CohortPool())
    draft = Anomaly(min_z=1.4, margin=0.05).make(ctx, END, np.random.default_rng(0), CohortPool())
    assert draft.correct.claim["date"] == day(WINDOW_START + 7)
    assert draft.graph.evidence()["value"] == pytest.approx(2.1 / 1.4826)


def test_sparse_window_is_dropped() -> None:
    values = base()
    values[WINDOW_START : WINDOW_START + 10] = np.nan
    with pytest.raises(Drop, match="too few days"):
        build(values)


def test_pick_days_pair_each_top_day_with_a_neighbour() -> None:
    ranked = [27, 0, 5, 9, *range(10, 26)]  # days 1-4, 6-8, 26 have no z (not offerable)
    days = paired_options(ranked, np.random.default_rng(1))
    assert days[0] == 27
    assert len(set(days)) == 10
    assert set(days) <= set(ranked)
    assert {27, 0, 5, 9} <= set(days)  # answer, runner-up, ranks 3 and 4
    assert days[:5] == [27, 0, 5, 9, 10]  # 10 is day 9's only offerable neighbour


def test_check_on_hand_made_evidence() -> None:
    evidence = {"winner": "2024-02-03", "value": 4.0, "runner_up": "2024-02-01", "gap": 2.0, "decisive": True}
    assert Anomaly.check({"date": "2024-02-03"}, evidence)
    assert not Anomaly.check({"date": "2024-02-01"}, evidence)
    assert not Anomaly.check({"date": "2024-02-03"}, {**evidence, "decisive": False})
