"""activity_recommendation: level among peers and relation to the user's usual level, by construction."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from wearbench.bench import varying_features
from wearbench.questions import CohortPool, Drop, UserContext
from wearbench.questions.types.activity_recommendation import (
    HISTORY,
    LEVELS,
    RELATIONS,
    ActivityRecommendation,
    level_of,
    option,
    relation_of,
)

REF_STEPS = {5: 2500.0, 10: 3000.0, 25: 4000.0, 50: 6000.0, 75: 8000.0, 90: 10000.0, 95: 12000.0}
N = 28 + HISTORY + 20


def make_ctx(window: float, usual: float, *, reference: bool = True, gap: bool = False) -> UserContext:
    dates = np.datetime64("2024-01-01") + np.arange(N).astype("timedelta64[D]")
    steps = np.full(N, usual)
    steps[-28:] = window
    if gap:
        steps[-28:-5] = np.nan
    ref = {"steps": dict(REF_STEPS)} if reference else {}
    return UserContext("u1", dates, {"steps": steps}, {"age": 50.0, "sex": "F"}, (), ref)


def build(ctx: UserContext, qt: ActivityRecommendation | None = None) -> Any:
    return (qt or ActivityRecommendation()).make(ctx, ctx.n_days - 1, np.random.default_rng(0), CohortPool())


def test_low_and_below_usual() -> None:
    # 3000 steps = P10 of peers (bottom quarter); 3000 / 4000 - 1 = -25 % (below usual)
    d = build(make_ctx(3000.0, 4000.0))
    assert dict(d.correct.claim) == {"level": "low", "relation": "below_usual"}
    ev = d.graph.evidence()
    assert ev["steps_pct"] == pytest.approx(10.0)
    options = (d.correct, *d.distractors)
    assert [ActivityRecommendation.check(o.claim, ev) for o in options] == [True] + [False] * 9
    assert len({o.text for o in options}) == 10
    assert d.grounding_ref == "steps_mortality_dose_response"


def test_high_and_above_usual() -> None:
    # 11000 = P92.5; 11000 / 9000 - 1 = +22 %
    assert dict(build(make_ctx(11000.0, 9000.0)).correct.claim) == {
        "level": "high",
        "relation": "above_usual",
    }


def test_middle_levels_at_usual() -> None:
    assert dict(build(make_ctx(5000.0, 5000.0)).correct.claim) == {
        "level": "below_median",
        "relation": "usual",
    }
    assert dict(build(make_ctx(7000.0, 7200.0)).correct.claim) == {
        "level": "above_median",
        "relation": "usual",
    }


@pytest.mark.parametrize(
    ("ctx", "reason"),
    [
        (make_ctx(6050.0, 6050.0), "dead-band of a level cut"),  # P50.6
        (make_ctx(3000.0, 2730.0), "dead-band"),  # +9.9 % from usual
        (make_ctx(3000.0, 3000.0, reference=False), "no reference"),
        (make_ctx(3000.0, 3000.0, gap=True), "too few days"),
    ],
)
def test_drops(ctx: UserContext, reason: str) -> None:
    with pytest.raises(Drop, match=reason):
        build(ctx)


def test_dead_bands_are_constructor_fields() -> None:
    # P50.6 is 0.6 points above the median cut: inside 3, outside 0.5
    narrow = build(make_ctx(6050.0, 6050.0), ActivityRecommendation(pct_dead_band=0.5))
    assert dict(narrow.correct.claim) == {"level": "above_median", "relation": "usual"}
    # 3000 / 2730 − 1 = +9.9 %: 0.1 points under the +10 % cut, inside 3 %, outside 0.05 %
    close = build(make_ctx(3000.0, 2730.0), ActivityRecommendation(rel_dead_band=0.0005))
    assert close.correct.claim["relation"] == "usual"


def test_needs_the_history() -> None:
    assert ActivityRecommendation.min_history == 28 + HISTORY
    assert ActivityRecommendation().end_dates(make_ctx(3000.0, 4000.0))[0] == N - 1


def test_level_and_relation_helpers() -> None:
    assert [level_of(p) for p in (5.0, 25.0, 49.9, 50.0, 80.0)] == [
        "low",
        "below_median",
        "below_median",
        "above_median",
        "high",
    ]
    assert relation_of(880.0, 1000.0) == "below_usual"
    assert relation_of(1090.0, 1000.0) == "usual"
    assert relation_of(1150.0, 1000.0) == "above_usual"


def test_check_on_hand_made_evidence() -> None:
    ev = {"steps_pct": 80.0, "window_median": 9000.0, "history_median": 9100.0}
    assert ActivityRecommendation.check({"level": "high", "relation": "usual"}, ev)
    assert not ActivityRecommendation.check({"level": "above_median", "relation": "usual"}, ev)
    assert not ActivityRecommendation.check({"level": "high", "relation": "below_usual"}, ev)
    assert not ActivityRecommendation.check(
        {"level": "high", "relation": "usual"}, {**ev, "history_median": None}
    )
    assert not ActivityRecommendation.check(
        {"level": "high", "relation": "usual"}, {**ev, "history_median": 0.0}
    )


def test_option_text_is_one_template() -> None:
    assert option("low", "below_usual").text == (
        "Steps in the bottom quarter of peers, where extra steps bring largest benefit; recent steps "
        "trail their usual level, so first regain that level."
    )
    texts = [option(lv, r).text for lv in LEVELS for r in RELATIONS]
    assert len(set(texts)) == 12
    assert len({len(t) for t in texts}) == 1
    d = build(make_ctx(3000.0, 4000.0))
    assert varying_features(d.question, [o.text for o in (d.correct, *d.distractors)]) == []
