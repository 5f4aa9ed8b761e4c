"""Recovery time: planted episodes with a known return to the pre-episode baseline."""

from __future__ import annotations

import json

import numpy as np
import pytest

from wearbench.questions import CohortPool, Draft, Drop, UserContext, run_graph
from wearbench.questions.types import recovery_time as mod
from wearbench.questions.types.recovery_time import RecoveryTime

N = 130
END = N - 1
ONSET = 100  # record index of the planted episode's first day
METRICS = sorted({m for m, _ in mod.SIGNALS})


def base() -> np.ndarray:
    """Alternating 59/61: pre-episode mean 60, SD ≈ 1.02; ordinary days sit ≈ 0.98 SD away."""
    return 60.0 + np.where(np.arange(N) % 2 == 0, -1.0, 1.0)


def episode(values: np.ndarray, onset: int, days: int) -> np.ndarray:
    """A 70 spike at ``onset``, 62.5 (≈ 2.5 SD off) until ``onset + days``, then exactly 60."""
    values[onset] = 70.0
    values[onset + 1 : onset + days] = 62.5
    values[onset + days] = 60.0
    return values


def make_ctx(values: np.ndarray) -> UserContext:
    dates = np.datetime64("2024-01-01") + np.arange(values.size).astype("timedelta64[D]")
    return UserContext("u1", dates, {m: values.copy() for m in METRICS}, {"age": 30.0, "sex": "M"}, (), {})


@pytest.fixture(autouse=True)
def resting_hr_above(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mod, "SIGNALS", (("resting_hr", "above"),))
    monkeypatch.setattr(mod, "KEEP_SHARE", {})


def build(values: np.ndarray, seed: int = 0) -> tuple[UserContext, Draft]:
    ctx = make_ctx(values)
    return ctx, RecoveryTime().make(ctx, END, np.random.default_rng(seed), CohortPool())


@pytest.mark.parametrize(
    ("days", "text"), [(1, "1 day"), (3, "3 days"), (9, "9 days"), (12, "10 days or more")]
)
def test_planted_recovery_is_the_answer(days: int, text: str) -> None:
    ctx, draft = build(episode(base(), ONSET, days))
    evidence = draft.graph.evidence()
    assert evidence["days"] == days
    assert evidence["onset"] == ONSET - (N - mod.LOOKBACK_DAYS)  # index in the shown series
    assert draft.correct.text == text
    options = (draft.correct, *draft.distractors)
    assert [RecoveryTime.check(o.claim, evidence) for o in options] == [True] + [False] * 9
    assert len({o.text for o in options}) == 10
    assert run_graph(json.loads(json.dumps(draft.graph.to_json())), ctx) == evidence


def test_the_most_recent_episode_is_used() -> None:
    values = episode(episode(base(), 60, 6), ONSET, 2)
    _, draft = build(values)
    assert draft.graph.evidence()["days"] == 2


def test_no_excursion_is_dropped() -> None:
    with pytest.raises(Drop, match="no excursion"):
        build(base())


def test_episode_still_running_at_the_end_is_dropped() -> None:
    values = base()
    values[END - 4] = 70.0
    values[END - 3 :] = 65.0
    with pytest.raises(Drop, match="not recovered"):
        build(values)


def test_day_on_the_recovery_band_edge_is_dropped() -> None:
    values = episode(base(), ONSET, 4)
    pre = values[ONSET - 28 : ONSET]
    values[ONSET + 2] = pre.mean() + 0.5 * pre.std(ddof=1)  # exactly 0.5 SD away: knife-edge
    with pytest.raises(Drop, match="dead-band of the recovery band"):
        build(values)


def test_later_day_on_the_excursion_threshold_is_dropped() -> None:
    values = episode(base(), ONSET, 3)
    past = values[115 - 28 : 115]
    values[115] = past.mean() + 1.5 * past.std(ddof=1)  # z = 1.5 exactly after the episode
    with pytest.raises(Drop, match="dead-band of the excursion threshold"):
        build(values)


def test_one_day_recoveries_are_subsampled(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mod, "KEEP_SHARE", {1: 0.0})
    with pytest.raises(Drop, match="answer balance"):
        build(episode(base(), ONSET, 1))
    build(episode(base(), ONSET, 2))  # other answers are always kept


def test_check_on_hand_made_evidence() -> None:
    assert RecoveryTime.check({"lo": 3, "hi": 4}, {"days": 3.0, "onset": 90})
    assert not RecoveryTime.check({"lo": 4, "hi": 5}, {"days": 3.0, "onset": 90})
    assert RecoveryTime.check({"lo": 10, "hi": None}, {"days": 17.0, "onset": 90})
    assert not RecoveryTime.check({"lo": 10, "hi": None}, {"days": None, "onset": 90})
