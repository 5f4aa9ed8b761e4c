"""Excursion count (v2): planted spike runs inside the eight-week span are counted."""

from __future__ import annotations

import json

import numpy as np
import pytest

from wearbench.questions import CohortPool, Draft, Drop, UserContext, run_graph
from wearbench.questions.types import excursion_count as mod
from wearbench.questions.types.excursion_count import ExcursionCount

N = 98
END = N - 1
WINDOW_START = N - mod.SPAN_DAYS  # record index of the span's first day
DEFAULT = ExcursionCount()
METRICS = sorted({m for m, _ in DEFAULT.signals})
#: No thinning: these tests are about the count, not the answer-class balance.
KEEP_ALL = ExcursionCount(keep_share={})
#: Resting HR above its baseline at k = 1.5 only.
ABOVE = ExcursionCount(keep_share={}, signals=(("resting_hr", "above"),), ks={1.5: 1.0})


def base() -> np.ndarray:
    """Alternating 59/61: trailing mean ≈ 60, SD ≈ 1.02, so every ordinary day has |z| < 1.05."""
    return 60.0 + np.where(np.arange(N) % 2 == 0, -1.0, 1.0)


def make_ctx(values: np.ndarray) -> UserContext:
    dates = np.datetime64("2024-03-01") + np.arange(values.size).astype("timedelta64[D]")
    return UserContext("u1", dates, {m: values.copy() for m in METRICS}, {"age": 50.0, "sex": "F"}, (), {})


def build(values: np.ndarray, qt: ExcursionCount = ABOVE, seed: int = 0) -> tuple[UserContext, Draft]:
    ctx = make_ctx(values)
    return ctx, qt.make(ctx, END, np.random.default_rng(seed), CohortPool())


def holds(draft: Draft) -> list[bool]:
    evidence = draft.graph.evidence()
    return [ExcursionCount.check(o.claim, evidence) for o in (draft.correct, *draft.distractors)]


@pytest.mark.parametrize("spikes", [[], [WINDOW_START + 3], [45, 52, 60], [43, 44, 50, 51, 52, 66]])
def test_planted_runs_are_counted(spikes: list[int]) -> None:
    values = base()
    values[spikes] += 10.0
    ctx, draft = build(values)
    n_runs = sum(1 for i, s in enumerate(spikes) if i == 0 or s != spikes[i - 1] + 1)
    assert draft.correct.claim["lo"] == n_runs
    assert draft.correct.text == f"Excursions: {n_runs}"
    assert holds(draft) == [True] + [False] * 9
    assert sorted(o.claim["lo"] for o in (draft.correct, *draft.distractors)) == list(range(10))
    assert run_graph(json.loads(json.dumps(draft.graph.to_json())), ctx) == draft.graph.evidence()


def test_below_excursions() -> None:
    below = ExcursionCount(keep_share={}, signals=(("hrv", "below"),), ks={2.0: 1.0})
    values = base()
    values[[47, 58]] -= 10.0
    values[55] += 10.0  # an excursion in the other direction does not count
    _, draft = build(values, below)
    assert draft.correct.claim["lo"] == 2
    assert "below" in draft.question
    assert "≤ −2" in draft.question


def test_runs_before_the_window_are_not_counted() -> None:
    values = base()
    values[[30, 35]] += 10.0  # in the baseline span only
    values[50] += 10.0
    _, draft = build(values)
    assert draft.correct.claim["lo"] == 1
    assert len(draft.graph.evidence()["runs"]) == 3


def test_nine_or_more_runs_are_the_open_top_option() -> None:
    values = base()
    values[[44, 48, 52, 56, 60, 64, 68, 72, 76, 80, 84]] += 10.0  # eleven one-day runs
    ctx, draft = build(values)
    assert draft.correct.claim == {"metric": "resting_hr", "lo": 9, "hi": None}
    assert draft.correct.text == "Excursions: 9 or more"
    assert holds(draft) == [True] + [False] * 9
    assert run_graph(json.loads(json.dumps(draft.graph.to_json())), ctx) == draft.graph.evidence()


def test_every_option_has_one_number_and_one_template() -> None:
    texts = [o.text for o in mod.count_options("hrv")]
    assert texts[:-1] == [f"Excursions: {n}" for n in range(9)]
    assert texts[-1] == "Excursions: 9 or more"


def test_day_on_the_threshold_is_dropped() -> None:
    values = base()
    past = values[50 - 28 : 50]
    values[50] = past.mean() + 1.5 * past.std(ddof=1)  # z = 1.5 exactly
    with pytest.raises(Drop, match="dead-band of the threshold"):
        build(values)


def test_run_straddling_the_window_start_is_dropped() -> None:
    values = base()
    values[[WINDOW_START - 1, WINDOW_START]] += 10.0
    with pytest.raises(Drop, match="straddles the window start"):
        build(values)


def test_sparse_window_is_dropped() -> None:
    values = base()
    values[WINDOW_START : WINDOW_START + 15] = np.nan
    with pytest.raises(Drop, match="too few days"):
        build(values)


def test_common_counts_are_subsampled() -> None:
    never_zero = ExcursionCount(signals=ABOVE.signals, ks=ABOVE.ks, keep_share={1.5: {0: 0.0}})
    with pytest.raises(Drop, match="thinned for balance"):
        build(base(), never_zero)


def test_keep_share_is_per_threshold() -> None:
    # two runs are rare at k = 1 (kept) but the commonest counts at k = 2 (thinned)
    table = DEFAULT.keep_share
    assert table[1.0].get(2, 1.0) == 1.0
    assert table[2.0][2] == 0.11
    assert table[1.5][3] == 0.15
    assert set(table) == set(DEFAULT.ks)


def test_check_on_hand_made_evidence() -> None:
    runs = [
        {"start": 10, "end": 11, "length": 2, "peak_z": 2.0},
        {"start": 30, "end": 30, "length": 1, "peak_z": 3.0},
    ]
    evidence = {"runs": runs, "window_start": 28}
    assert ExcursionCount.check({"lo": 1, "hi": 2}, evidence)
    assert not ExcursionCount.check({"lo": 2, "hi": 3}, evidence)
    assert ExcursionCount.check({"lo": 0, "hi": 1}, {"runs": [], "window_start": 28})
    many = {"runs": [{**runs[1], "start": 30 + 2 * i} for i in range(11)], "window_start": 28}
    assert ExcursionCount.check({"lo": 9, "hi": None}, many)
    assert not ExcursionCount.check({"lo": 8, "hi": 9}, many)
    assert not ExcursionCount.check({"lo": 9, "hi": None}, evidence)
