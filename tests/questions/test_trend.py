"""Trend (v3): planted ramps and flat windows on hand-built contexts; answer-placed size ladder."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from wearbench.questions import CohortPool, Draft, Drop, UserContext, run_graph
from wearbench.questions.types.trend import METRICS, N_BINS, Trend, ci_in_dead_band, ladder_edges

N = 60
#: Uniform cohort slopes in [-1, 1] per day: |change| = |slope| × 27 is uniform on [0, 27].
POOL = CohortPool(window_slopes={m: np.linspace(-1.0, 1.0, 2001) for m in METRICS})


def make_ctx(values: np.ndarray) -> UserContext:
    """Every asked-about metric holds the same planted series (so any random pick works)."""
    dates = np.datetime64("2024-01-01") + np.arange(values.size).astype("timedelta64[D]")
    return UserContext("u1", dates, {m: values.copy() for m in METRICS}, {"age": 40.0, "sex": "F"}, (), {})


def ramp(slope: float, wiggle: float = 0.2) -> np.ndarray:
    """60 + slope·t plus a small zero-mean alternating wiggle."""
    t = np.arange(N, dtype=float)
    return 60.0 + slope * t + wiggle * np.where(t % 2 == 0, 1.0, -1.0)


def build(values: np.ndarray, seed: int = 0, qt: Trend | None = None) -> tuple[UserContext, Draft]:
    ctx = make_ctx(values)
    return ctx, (qt or Trend()).make(ctx, N - 1, np.random.default_rng(seed), POOL)


def holds(draft: Draft) -> list[bool]:
    evidence = draft.graph.evidence()
    return [Trend.check(o.claim, evidence) for o in (draft.correct, *draft.distractors)]


def test_ladder_edges_place_the_change_in_the_asked_bin() -> None:
    # w = 0.2 × 10 = 2; the change sits half a width into bin 2: first inner edge 10 − 1.5 × 2 = 7
    assert ladder_edges(10.0, 2, 0.5, 0.2) == [0.0, 7.0, 9.0, 11.0, 13.0, math.inf]
    assert ladder_edges(10.0, 0, 0.5, 0.2) == [0.0, 11.0, 13.0, 15.0, 17.0, math.inf]  # below
    assert ladder_edges(10.0, 4, 0.5, 0.2) == [0.0, 3.0, 5.0, 7.0, 9.0, math.inf]  # open top
    # two significant figures for w, edges exact at its precision
    # w = 0.2468 → 0.25; first inner edge 1.234 − 0.3 × 0.25 = 1.159 → 1.16
    assert ladder_edges(1.234, 1, 0.3, 0.2) == [0.0, 1.16, 1.41, 1.66, 1.91, math.inf]
    with pytest.raises(Drop, match="change undefined"):
        ladder_edges(0.0, 1, 0.5, 0.2)


@pytest.mark.parametrize(("slope", "direction"), [(0.5, "increasing"), (-0.5, "decreasing")])
def test_clean_ramp_is_a_trend_of_the_planted_size(slope: float, direction: str) -> None:
    ctx, draft = build(ramp(slope))
    claim = draft.correct.claim
    assert claim["direction"] == direction
    change = abs(draft.graph.evidence()["slope"]) * 27
    hi = math.inf if claim["hi"] is None else claim["hi"]
    assert claim["lo"] <= change < hi
    assert draft.graph.evidence()["slope"] == pytest.approx(slope, abs=0.05)
    assert holds(draft) == [True] + [False] * 9
    assert len({o.text for o in (draft.correct, *draft.distractors)}) == 10
    assert draft.correct.text.startswith(f"{direction.capitalize()}, by ")
    assert run_graph(json.loads(json.dumps(draft.graph.to_json())), ctx) == draft.graph.evidence()


def test_answer_bin_is_spread_over_the_ladder() -> None:
    """Over seeds, the planted change lands in every one of the five size bins."""
    ranks = set()
    for seed in range(40):
        _, draft = build(ramp(0.5), seed)
        los = sorted(
            {o.claim["lo"] for o in (draft.correct, *draft.distractors) if o.claim["direction"] != "none"}
        )
        ranks.add(los.index(draft.correct.claim["lo"]))
        assert holds(draft) == [True] + [False] * 9
    assert ranks == set(range(N_BINS))


def test_open_bins_read_less_than_and_at_least() -> None:
    _, draft = build(ramp(0.5))
    texts = [o.text for o in (draft.correct, *draft.distractors)]
    assert sum("less than" in t for t in texts) + sum("at least" in t for t in texts) >= 3
    assert all(t.count("over the window") == 1 for t in texts if not t.startswith("No clear"))


def test_no_trend_option_is_always_offered_with_nine_directional_claims() -> None:
    _, draft = build(ramp(0.5))
    directions = [o.claim["direction"] for o in draft.distractors]
    assert directions.count("none") == 1
    assert len(directions) == 9  # one of the ten directional distractors was left out


def test_flat_window_is_no_clear_trend() -> None:
    values = 60.0 + 3.0 * np.sin(np.arange(N) * 2.0)  # bounded noise, no drift
    _, draft = build(values, qt=Trend(no_trend_share=1.0))
    evidence = draft.graph.evidence()
    assert evidence["lo"] < 0 < evidence["hi"]
    assert draft.correct.claim["direction"] == "none"
    assert holds(draft) == [True] + [False] * 9


def test_flat_window_is_subsampled_for_balance() -> None:
    with pytest.raises(Drop, match="thinned for balance"):
        build(60.0 + 3.0 * np.sin(np.arange(N) * 2.0), qt=Trend(no_trend_share=0.0))


def test_change_never_lies_in_an_edge_dead_band() -> None:
    for seed in range(20):
        _, draft = build(ramp(0.5), seed)
        change = abs(draft.graph.evidence()["slope"]) * 27
        edges = sorted({o.claim["lo"] for o in (draft.correct, *draft.distractors) if "lo" in o.claim})[1:]
        width = edges[1] - edges[0]
        assert all(abs(change - e) > Trend().dead_band * width for e in edges)
    with pytest.raises(Drop, match="dead-band of a magnitude edge"):
        build(ramp(0.5), qt=Trend(max_tries=0))


def test_constant_window_is_dropped_as_knife_edge() -> None:
    with pytest.raises(Drop, match="dead-band of zero"):
        build(np.full(N, 60.0))


def test_sparse_window_is_dropped() -> None:
    values = ramp(0.5)
    values[-20:] = np.nan
    with pytest.raises(Drop, match="too few days"):
        build(values)


def test_ci_dead_band() -> None:
    assert ci_in_dead_band(0.05, 1.05, 0.1)  # lower bound within 10% of the width from zero
    assert not ci_in_dead_band(0.2, 1.2, 0.1)
    assert ci_in_dead_band(-1.0, 0.05, 0.1)
    assert not ci_in_dead_band(-0.5, 0.5, 0.1)  # clearly includes zero
    assert ci_in_dead_band(0.0, 0.0, 0.1)


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
