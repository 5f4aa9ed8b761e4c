"""Excursion count: planted spike runs inside the window are counted."""

from __future__ import annotations

import json

import numpy as np
import pytest

from wearbench.questions import CohortPool, Draft, Drop, UserContext, run_graph
from wearbench.questions.types import excursion_count as mod
from wearbench.questions.types.excursion_count import ExcursionCount

N = 70
END = N - 1
WINDOW_START = N - 28  # record index of the window's first day
METRICS = sorted({m for m, _ in mod.SIGNALS})


def base() -> np.ndarray:
    """Alternating 59/61: trailing mean ≈ 60, SD ≈ 1.02, so every ordinary day has |z| < 1.05."""
    return 60.0 + np.where(np.arange(N) % 2 == 0, -1.0, 1.0)


def make_ctx(values: np.ndarray) -> UserContext:
    dates = np.datetime64("2024-03-01") + np.arange(values.size).astype("timedelta64[D]")
    return UserContext("u1", dates, {m: values.copy() for m in METRICS}, {"age": 50.0, "sex": "F"}, (), {})


@pytest.fixture(autouse=True)
def keep_every_count(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mod, "KEEP_SHARE", {})


@pytest.fixture
def above(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mod, "SIGNALS", (("resting_hr", "above"),))
    monkeypatch.setattr(mod, "KS", (1.5,))


def build(values: np.ndarray, seed: int = 0) -> tuple[UserContext, Draft]:
    ctx = make_ctx(values)
    return ctx, ExcursionCount().make(ctx, END, np.random.default_rng(seed), CohortPool())


def holds(draft: Draft) -> list[bool]:
    evidence = draft.graph.evidence()
    return [ExcursionCount.check(o.claim, evidence) for o in (draft.correct, *draft.distractors)]


@pytest.mark.usefixtures("above")
@pytest.mark.parametrize("spikes", [[], [WINDOW_START + 3], [45, 52, 60], [43, 44, 50, 51, 52, 66]])
def test_planted_runs_are_counted(spikes: list[int]) -> None:
    values = base()
    values[spikes] += 10.0
    ctx, draft = build(values)
    n_runs = sum(1 for i, s in enumerate(spikes) if i == 0 or s != spikes[i - 1] + 1)
    assert draft.correct.claim["count"] == n_runs
    assert draft.correct.text == f"{n_runs} excursion{'' if n_runs == 1 else 's'}"
    assert holds(draft) == [True] + [False] * 9
    assert sorted(o.claim["count"] for o in (draft.correct, *draft.distractors)) == list(range(10))
    assert run_graph(json.loads(json.dumps(draft.graph.to_json())), ctx) == draft.graph.evidence()


def test_below_excursions(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mod, "SIGNALS", (("hrv", "below"),))
    monkeypatch.setattr(mod, "KS", (2.0,))
    values = base()
    values[[47, 58]] -= 10.0
    values[55] += 10.0  # an excursion in the other direction does not count
    _, draft = build(values)
    assert draft.correct.claim["count"] == 2
    assert "below" in draft.question
    assert "≤ −2" in draft.question


@pytest.mark.usefixtures("above")
def test_runs_before_the_window_are_not_counted() -> None:
    values = base()
    values[[30, 35]] += 10.0  # in the baseline span only
    values[50] += 10.0
    _, draft = build(values)
    assert draft.correct.claim["count"] == 1
    assert len(draft.graph.evidence()["runs"]) == 3


@pytest.mark.usefixtures("above")
def test_day_on_the_threshold_is_dropped() -> None:
    values = base()
    past = values[50 - 28 : 50]
    values[50] = past.mean() + 1.5 * past.std(ddof=1)  # z = 1.5 exactly
    with pytest.raises(Drop, match="dead-band of the threshold"):
        build(values)


@pytest.mark.usefixtures("above")
def test_run_straddling_the_window_start_is_dropped() -> None:
    values = base()
    values[[WINDOW_START - 1, WINDOW_START]] += 10.0
    with pytest.raises(Drop, match="straddles the window start"):
        build(values)


@pytest.mark.usefixtures("above")
def test_sparse_window_is_dropped() -> None:
    values = base()
    values[WINDOW_START : WINDOW_START + 8] = np.nan
    with pytest.raises(Drop, match="too few days"):
        build(values)


@pytest.mark.usefixtures("above")
def test_common_counts_are_subsampled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mod, "KEEP_SHARE", {0: 0.0})
    with pytest.raises(Drop, match="answer balance"):
        build(base())


def test_check_on_hand_made_evidence() -> None:
    runs = [
        {"start": 10, "end": 11, "length": 2, "peak_z": 2.0},
        {"start": 30, "end": 30, "length": 1, "peak_z": 3.0},
    ]
    evidence = {"runs": runs, "window_start": 28}
    assert ExcursionCount.check({"count": 1}, evidence)
    assert not ExcursionCount.check({"count": 2}, evidence)
    assert ExcursionCount.check({"count": 0}, {"runs": [], "window_start": 28})
