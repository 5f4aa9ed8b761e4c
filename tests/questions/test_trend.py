"""Trend (v2): planted ramps and flat windows on hand-built contexts."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from wearbench.questions import CohortPool, Draft, Drop, UserContext, run_graph
from wearbench.questions.types import trend
from wearbench.questions.types.trend import METRICS, Trend, ci_in_dead_band, size_edges

N = 60
#: Uniform cohort slopes in [-1, 1] per day: |change| = |slope| × 27 is uniform on [0, 27].
POOL = CohortPool(window_slopes={m: np.linspace(-1.0, 1.0, 2001) for m in METRICS})
EDGES = [0.0, 20.0, 24.0, 25.0, 26.0, math.inf]  # quantiles .75 .88 .94 .98 of U[0, 27], 2 s.f.


def make_ctx(values: np.ndarray) -> UserContext:
    """Every asked-about metric holds the same planted series (so any random pick works)."""
    dates = np.datetime64("2024-01-01") + np.arange(values.size).astype("timedelta64[D]")
    return UserContext("u1", dates, {m: values.copy() for m in METRICS}, {"age": 40.0, "sex": "F"}, (), {})


def ramp(slope: float, wiggle: float = 0.2) -> np.ndarray:
    """60 + slope·t plus a small zero-mean alternating wiggle."""
    t = np.arange(N, dtype=float)
    return 60.0 + slope * t + wiggle * np.where(t % 2 == 0, 1.0, -1.0)


def build(values: np.ndarray, seed: int = 0) -> tuple[UserContext, Draft]:
    ctx = make_ctx(values)
    return ctx, Trend().make(ctx, N - 1, np.random.default_rng(seed), POOL)


def holds(draft: Draft) -> list[bool]:
    evidence = draft.graph.evidence()
    return [Trend.check(o.claim, evidence) for o in (draft.correct, *draft.distractors)]


def test_size_edges_are_cohort_quantiles() -> None:
    assert size_edges(POOL.window_slopes["hrv"] * 27) == EDGES


@pytest.mark.parametrize(("slope", "direction"), [(0.5, "increasing"), (-0.5, "decreasing")])
def test_clean_ramp_is_a_trend_of_the_planted_size(slope: float, direction: str) -> None:
    ctx, draft = build(ramp(slope))
    claim = draft.correct.claim
    assert claim["direction"] == direction
    assert (claim["lo"], claim["hi"]) == (0.0, 20.0)  # change 13.5 lies in the first bin
    assert draft.graph.evidence()["slope"] == pytest.approx(slope, abs=0.05)
    assert holds(draft) == [True] + [False] * 9
    assert len({o.text for o in (draft.correct, *draft.distractors)}) == 10
    assert draft.correct.text.startswith(f"{direction.capitalize()}, by less than 20")
    assert run_graph(json.loads(json.dumps(draft.graph.to_json())), ctx) == draft.graph.evidence()


def test_large_change_lands_in_the_open_top_bin() -> None:
    _, draft = build(ramp(1.2))  # change 32.4 > 26
    assert draft.correct.claim == {
        "metric": draft.metrics[0],
        "direction": "increasing",
        "lo": 26.0,
        "hi": None,
    }
    assert "more than" in draft.correct.text


def test_no_trend_option_is_always_offered_with_nine_directional_claims() -> None:
    _, draft = build(ramp(0.5))
    directions = [o.claim["direction"] for o in draft.distractors]
    assert directions.count("none") == 1
    assert len(directions) == 9  # one of the ten directional distractors was left out


def test_flat_window_is_no_clear_trend(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(trend, "NO_TREND_SHARE", 1.0)
    values = 60.0 + 3.0 * np.sin(np.arange(N) * 2.0)  # bounded noise, no drift
    _, draft = build(values)
    evidence = draft.graph.evidence()
    assert evidence["lo"] < 0 < evidence["hi"]
    assert draft.correct.claim["direction"] == "none"
    assert holds(draft) == [True] + [False] * 9


def test_flat_window_is_subsampled_for_balance(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(trend, "NO_TREND_SHARE", 0.0)
    with pytest.raises(Drop, match="answer balance"):
        build(60.0 + 3.0 * np.sin(np.arange(N) * 2.0))


def test_change_on_a_bin_edge_is_dropped() -> None:
    with pytest.raises(Drop, match="dead-band of a magnitude edge"):
        build(ramp(24.0 / 27.0, wiggle=0.0))  # change exactly 24, an inner edge


def test_constant_window_is_dropped_as_knife_edge() -> None:
    with pytest.raises(Drop, match="dead-band of zero"):
        build(np.full(N, 60.0))


def test_sparse_window_is_dropped() -> None:
    values = ramp(0.5)
    values[-20:] = np.nan
    with pytest.raises(Drop, match="too few days"):
        build(values)


def test_ci_dead_band() -> None:
    assert ci_in_dead_band(0.05, 1.05)  # lower bound within 10% of the width from zero
    assert not ci_in_dead_band(0.2, 1.2)
    assert ci_in_dead_band(-1.0, 0.05)
    assert not ci_in_dead_band(-0.5, 0.5)  # clearly includes zero
    assert ci_in_dead_band(0.0, 0.0)


def test_check_on_hand_made_evidence() -> None:
    up = {"slope": 0.5, "lo": 0.3, "hi": 0.7, "span_days": 28}  # change 13.5
    flat = {"slope": 0.1, "lo": -0.2, "hi": 0.4, "span_days": 28}
    inc = {"direction": "increasing", "lo": 10.0, "hi": 20.0}
    none = {"direction": "none"}
    assert Trend.check(inc, up)
    assert not Trend.check({**inc, "direction": "decreasing"}, up)
    assert not Trend.check({**inc, "lo": 20.0, "hi": None}, up)
    assert Trend.check({**inc, "lo": 0.0, "hi": 13.6}, up)
    assert not Trend.check(none, up)
    assert Trend.check(none, flat)
    assert not Trend.check({**inc, "lo": 0.0, "hi": 10.0}, flat)  # |change| 2.7 but no trend
    assert not Trend.check(none, {"slope": None, "lo": None, "hi": None, "span_days": 28})
