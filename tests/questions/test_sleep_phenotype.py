"""Sleep phenotype: window means placed at known reference percentiles give a known phenotype."""

from __future__ import annotations

import json

import numpy as np
import pytest

from wearbench.bench import varying_features
from wearbench.questions import CohortPool, Draft, Drop, UserContext, run_graph
from wearbench.questions._helpers import thin
from wearbench.questions.types.sleep_phenotype import (
    CONTINUITY,
    DURATION,
    TIMING,
    SleepPhenotype,
    classify,
)

N = 40
END = N - 1
START = np.datetime64("2024-01-01")
PCTS = (5, 10, 25, 50, 75, 90, 95)
REFERENCE = {
    "sleep_minutes": dict(zip(PCTS, (330.0, 350.0, 390.0, 420.0, 450.0, 480.0, 500.0), strict=True)),
    "sleep_efficiency": dict(zip(PCTS, (78.0, 80.0, 84.0, 88.0, 91.0, 93.0, 94.0), strict=True)),
}
POOL = CohortPool(
    window_means={"bedtime_regularity": np.array([20.0, 30.0, 40.0, 50.0, 60.0] * 4)}
)  # median 40


def make_ctx(sleep: float, efficiency: float, regularity: float, reference: bool = True) -> UserContext:
    """Constant-mean series (±1 alternation) so each window mean is exact."""
    wiggle = np.where(np.arange(N) % 2 == 0, 1.0, -1.0)
    metrics = {
        "sleep_minutes": sleep + wiggle,
        "sleep_efficiency": efficiency + 0.0 * wiggle,
        "bedtime_regularity": regularity + wiggle,
    }
    dates = START + np.arange(N).astype("timedelta64[D]")
    return UserContext("u1", dates, metrics, {"age": 40.0, "sex": "F"}, (), REFERENCE if reference else {})


#: Keeps every window: for tests about the answer, not the answer-class thinning.
UNTHINNED = SleepPhenotype(keep={})
KEEP = SleepPhenotype().keep


def build(
    *args: float, seed: int = 0, reference: bool = True, qt: SleepPhenotype | None = None
) -> tuple[UserContext, Draft]:
    ctx = make_ctx(*args, reference=reference)
    return ctx, (qt or SleepPhenotype()).make(ctx, END, np.random.default_rng(seed), POOL)


@pytest.mark.parametrize(
    ("sleep", "efficiency", "regularity", "phenotype"),
    [
        (360.0, 80.0, 70.0, ("short", "fragmented", "irregular")),  # P10-P25, P10, above median
        (420.0, 90.0, 20.0, ("adequate", "consolidated", "regular")),  # P50, ~P67
        (490.0, 92.0, 60.0, ("long", "consolidated", "irregular")),  # ~P92
    ],
)
def test_planted_phenotype_is_the_answer(
    sleep: float, efficiency: float, regularity: float, phenotype: tuple[str, str, str]
) -> None:
    ctx, draft = build(sleep, efficiency, regularity, qt=UNTHINNED)
    claim = draft.correct.claim
    assert (claim["duration"], claim["continuity"], claim["timing"]) == phenotype
    assert claim["regularity_median"] == 40.0
    evidence = draft.graph.evidence()
    options = (draft.correct, *draft.distractors)
    assert [SleepPhenotype.check(o.claim, evidence) for o in options] == [True] + [False] * 9
    assert len({o.text for o in options}) == 10
    assert run_graph(json.loads(json.dumps(draft.graph.to_json())), ctx) == evidence
    expected_card = (
        "sleep_irregularity_adverse_outcomes"
        if phenotype[2] == "irregular"
        else "short_sleep_adverse_outcomes"
    )
    assert draft.grounding_ref == expected_card
    assert varying_features(draft.question, [o.text for o in (draft.correct, *draft.distractors)]) == []


def test_option_words_of_one_axis_have_one_length() -> None:
    """Every phenotype text has the same length whatever the answer."""
    for words in (DURATION, CONTINUITY, TIMING):
        assert len({len(w) for w in words.values()}) == 1


def test_common_phenotypes_are_thinned_by_the_seed() -> None:
    rng = np.random.default_rng(0)
    draws: list[str] = []
    for _ in range(4000):
        try:
            thin(("adequate", "consolidated", "regular"), KEEP, rng)
            draws.append("kept")
        except Drop as d:
            draws.append(d.reason)
    assert set(draws) == {"kept", "answer class thinned for balance"}
    assert draws.count("kept") / 4000 == pytest.approx(
        KEEP[("adequate", "consolidated", "regular")], abs=0.03
    )
    ctx = make_ctx(420.0, 90.0, 20.0)  # adequate, consolidated, regular
    outcomes = set()
    for seed in range(30):
        try:
            SleepPhenotype().make(ctx, END, np.random.default_rng(seed), POOL)
            outcomes.add("kept")
        except Drop as d:
            outcomes.add(d.reason)
    assert outcomes == {"kept", "answer class thinned for balance"}


def test_percentile_evidence_is_interpolated_from_the_reference() -> None:
    _, draft = build(405.0, 86.0, 70.0, qt=UNTHINNED)
    evidence = draft.graph.evidence()
    assert evidence["sleep_minutes_pct"] == pytest.approx(37.5)  # halfway between P25 390 and P50 420
    assert evidence["sleep_efficiency_pct"] == pytest.approx(37.5)  # halfway between P25 84 and P50 88
    assert evidence["regularity_mean"] == pytest.approx(70.0)


def test_distractors_depend_on_the_seed_but_the_answer_does_not() -> None:
    _, a = build(360.0, 80.0, 70.0, seed=1)
    _, b = build(360.0, 80.0, 70.0, seed=2)
    assert a.correct == b.correct
    assert {o.text for o in a.distractors} != {o.text for o in b.distractors}


@pytest.mark.parametrize(
    ("sleep", "efficiency", "regularity"),
    [(392.0, 80.0, 70.0), (450.0, 80.0, 70.0), (360.0, 84.2, 70.0), (360.0, 80.0, 41.0)],
)
def test_near_an_edge_is_dropped(sleep: float, efficiency: float, regularity: float) -> None:
    with pytest.raises(Drop, match="dead-band"):
        build(sleep, efficiency, regularity)


@pytest.mark.parametrize(
    ("sleep", "efficiency", "regularity"),
    [(392.0, 80.0, 70.0), (450.0, 80.0, 70.0), (360.0, 84.2, 70.0), (360.0, 80.0, 41.0)],
)
def test_dead_bands_are_constructor_fields(sleep: float, efficiency: float, regularity: float) -> None:
    no_bands = SleepPhenotype(keep={}, pct_band=0.0, reg_band=0.0)
    _, draft = build(sleep, efficiency, regularity, qt=no_bands)
    evidence = draft.graph.evidence()
    assert SleepPhenotype.check(draft.correct.claim, evidence)


def test_no_reference_or_too_few_nights_is_dropped() -> None:
    with pytest.raises(Drop, match="reference"):
        build(360.0, 80.0, 70.0, reference=False)
    ctx = make_ctx(360.0, 80.0, 70.0)
    ctx.metrics["sleep_minutes"][-15:] = np.nan
    with pytest.raises(Drop, match="too few nights"):
        SleepPhenotype().make(ctx, END, np.random.default_rng(0), POOL)


def test_check_uses_the_claimed_median() -> None:
    ev = {"sleep_minutes_pct": 10.0, "sleep_efficiency_pct": 50.0, "regularity_mean": 45.0}
    assert classify(ev, 40.0) == ("short", "consolidated", "irregular")
    claim = {
        "duration": "short",
        "continuity": "consolidated",
        "timing": "irregular",
        "regularity_median": 40.0,
    }
    assert SleepPhenotype.check(claim, ev)
    assert not SleepPhenotype.check(claim | {"regularity_median": 50.0}, ev)
    assert not SleepPhenotype.check(claim, ev | {"sleep_minutes_pct": None})
