"""Recovery time (v2): planted episodes with a known return to the pre-episode baseline."""

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
METRICS = sorted({m for m, _ in RecoveryTime().signals})
#: Resting HR above its baseline only, recent recoveries kept.
QT = RecoveryTime(signals=(("resting_hr", "above"),), gap_full=0)


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


def build(values: np.ndarray, seed: int = 0, qt: RecoveryTime = QT) -> tuple[UserContext, Draft]:
    ctx = make_ctx(values)
    return ctx, qt.make(ctx, END, np.random.default_rng(seed), CohortPool())


@pytest.mark.parametrize("days", [1, 3, 9, 12])
def test_planted_recovery_is_the_answer(days: int) -> None:
    ctx, draft = build(episode(base(), ONSET, days))
    evidence = draft.graph.evidence()
    assert evidence["days"] == days
    assert evidence["onset"] == ONSET - (N - mod.LOOKBACK_DAYS)  # index in the shown series
    assert draft.correct.text == str(ctx.dates[ONSET + days])
    assert draft.correct.claim == {"metric": "resting_hr", "date": str(ctx.dates[ONSET + days])}
    options = (draft.correct, *draft.distractors)
    assert [RecoveryTime.check(o.claim, evidence) for o in options] == [True] + [False] * 9
    shown = sorted(np.datetime64(o.text) for o in options)
    assert np.all(np.diff(shown) == np.timedelta64(1, "D"))  # ten consecutive days
    assert shown[-1] <= ctx.dates[END]
    assert run_graph(json.loads(json.dumps(draft.graph.to_json())), ctx) == evidence


def test_answer_position_is_spread_over_the_shown_days() -> None:
    ctx = make_ctx(episode(base(), ONSET, 4))
    positions = set()
    for seed in range(60):
        draft = QT.make(ctx, END, np.random.default_rng(seed), CohortPool())
        shown = sorted(o.text for o in (draft.correct, *draft.distractors))
        positions.add(shown.index(draft.correct.text))
    assert positions == set(range(mod.N_OPTIONS))


def test_shown_days_never_run_past_the_end_date() -> None:
    ctx = make_ctx(episode(base(), END - 6, 2))  # recovered four days before the end date
    reasons = set()
    for seed in range(30):
        try:
            draft = QT.make(ctx, END, np.random.default_rng(seed), CohortPool())
        except Drop as drop:
            reasons.add(drop.reason)
            continue
        assert max(o.text for o in (draft.correct, *draft.distractors)) <= str(ctx.dates[END])
    assert "date options would run past the end date" in reasons


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


def test_thresholds_and_dead_band_are_constructor_fields() -> None:
    def variant(**kw: float) -> RecoveryTime:
        return RecoveryTime(signals=QT.signals, gap_full=0, **kw)

    values = episode(base(), ONSET, 9)
    with pytest.raises(Drop, match="no excursion"):  # the 70 spike is ≈ 9.8 SD off, below 15
        build(values, qt=variant(k=15.0))
    # 62.5 days are ≈ 2.45 SD off the baseline: back within 3 SD the day after the onset
    _, draft = build(values, qt=variant(k_recover=3.0))
    assert draft.graph.evidence()["days"] == 1
    assert "first back within 3 SD of its pre-episode baseline" in draft.question
    near = episode(base(), ONSET, 4)
    pre = near[ONSET - 28 : ONSET]
    near[ONSET + 2] = pre.mean() + 0.53 * pre.std(ddof=1)  # 0.03 SD outside the recovery band
    with pytest.raises(Drop, match="dead-band of the recovery band"):
        build(near)
    assert build(near, qt=variant(dead_band=0.02))[1].graph.evidence()["days"] == 4


def test_later_day_on_the_excursion_threshold_is_dropped() -> None:
    values = episode(base(), ONSET, 3)
    past = values[115 - 28 : 115]
    values[115] = past.mean() + 1.5 * past.std(ddof=1)  # z = 1.5 exactly after the episode
    with pytest.raises(Drop, match="dead-band of the excursion threshold"):
        build(values)


def test_recent_recoveries_are_subsampled() -> None:
    far = RecoveryTime(signals=QT.signals, gap_full=10_000)
    with pytest.raises(Drop, match="thinned for balance"):
        build(episode(base(), ONSET, 1), qt=far)
    assert far.gap_keep_share(10_000) == 1.0
    default = RecoveryTime()  # gap_full 40, gap_scale 30
    assert default.gap_keep_share(40) == 1.0
    assert default.gap_keep_share(10) == pytest.approx(np.exp(-1.0))


def test_check_on_hand_made_evidence() -> None:
    dates = [f"2024-01-{d:02d}" for d in range(1, 11)]
    assert RecoveryTime.check({"date": "2024-01-06"}, {"days": 3.0, "onset": 2, "dates": dates})
    assert not RecoveryTime.check({"date": "2024-01-05"}, {"days": 3.0, "onset": 2, "dates": dates})
    assert not RecoveryTime.check({"date": "2024-01-10"}, {"days": 9.0, "onset": 2, "dates": dates})
    assert not RecoveryTime.check({"date": "2024-01-06"}, {"days": None, "onset": 2, "dates": dates})
