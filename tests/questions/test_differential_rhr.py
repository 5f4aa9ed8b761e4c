"""Differential RHR: planted co-signal profiles under an elevated resting HR give a known explanation."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from wearbench.questions import CohortPool, Draft, Drop, UserContext, run_graph
from wearbench.questions._helpers import thin
from wearbench.questions._strain import State, option_text, state_of, strain_graph
from wearbench.questions.types.differential_rhr import COSIGNALS, EXPLANATIONS, KEPT, DifferentialRhr

N = 60
END = N - 1
START = np.datetime64("2024-01-01")
LEVELS = {
    "resting_hr": (60.0, 2.0),
    "hrv": (50.0, 5.0),
    "sleep_minutes": (420.0, 30.0),
    "steps": (8000.0, 1000.0),
    "exercise_minutes": (30.0, 10.0),
    "stress": (40.0, 5.0),
    "bedtime_regularity": (40.0, 5.0),
}
UP = {"resting_hr": 6.0}


def make_ctx(shifts: dict[str, float]) -> UserContext:
    """Alternating baselines (mean ± swing); the last 3 days moved by ``shifts`` swings."""
    sign = np.where(np.arange(N) % 2 == 0, 1.0, -1.0)
    metrics = {}
    for m, (mean, swing) in LEVELS.items():
        values = mean + swing * sign
        values[N - 3 :] = mean + swing * shifts.get(m, 0.0)
        metrics[m] = values
    dates = START + np.arange(N).astype("timedelta64[D]")
    return UserContext("u1", dates, metrics, {"age": 40.0, "sex": "M"}, (), {})


#: Keeps every window: for tests about the answer, not the answer-class thinning.
UNTHINNED = DifferentialRhr(keep={})
KEEP = DifferentialRhr().keep


def build(shifts: dict[str, float], qt: DifferentialRhr | None = None) -> tuple[UserContext, Draft]:
    ctx = make_ctx(shifts)
    return ctx, (qt or DifferentialRhr()).make(ctx, END, np.random.default_rng(0), CohortPool())


@pytest.mark.parametrize(
    ("shifts", "explanation"),
    [
        ({"hrv": -2.0, "sleep_minutes": 2.0, "steps": -2.0}, "illness_full"),
        ({"hrv": -2.0, "sleep_minutes": 2.0}, "illness_hrv_sleep"),
        ({"hrv": -2.0, "steps": -2.0}, "illness_hrv_steps"),
        ({"sleep_minutes": 2.0, "steps": -2.0}, "illness_rest"),
        ({"exercise_minutes": 3.0}, "training"),
        ({"sleep_minutes": -2.0}, "sleep_loss"),
        ({"stress": 3.0}, "stress"),
        ({"bedtime_regularity": 3.0}, "circadian"),
        ({"steps": -2.0}, "inactivity"),
        ({}, "unexplained"),
    ],
)
def test_planted_profile_is_the_answer(shifts: dict[str, float], explanation: str) -> None:
    ctx, draft = build(UP | shifts, qt=UNTHINNED)
    assert draft.correct.claim == {"explanation": explanation}
    evidence = draft.graph.evidence()
    options = (draft.correct, *draft.distractors)
    assert [DifferentialRhr.check(o.claim, evidence) for o in options] == [True] + [False] * 9
    assert len({o.text for o in options}) == 10
    assert run_graph(json.loads(json.dumps(draft.graph.to_json())), ctx) == evidence
    # Every item shows the same ten texts, so a text-only model can learn only the class share.
    assert sorted(o.text for o in options) == sorted(option_text(k, p, KEPT) for k, p in EXPLANATIONS.items())


def test_option_texts_are_their_rules_in_words() -> None:
    """Each text is generated from the pattern that judges it (hand-written here)."""
    assert (
        EXPLANATIONS["stress"].text()
        == "Sleep steady; steps steady or up; exercise steady or down; stress up"
    )
    assert EXPLANATIONS["illness_full"].text() == "HRV and steps down; sleep up; exercise steady or down"
    assert EXPLANATIONS["unexplained"].text() == "HRV, sleep, steps, exercise, stress and bedtime SD steady"
    assert set(KEPT) <= set(EXPLANATIONS)
    # after a label the acronym keeps its case
    assert (
        option_text("illness_full", EXPLANATIONS["illness_full"], KEPT)
        == "Illness-like: HRV and steps down; sleep up; exercise steady or down"
    )


def test_issue_example_steps_up_with_stress_is_stress() -> None:
    """Stress up with steps at +1.06 SD: the stress text allows steps up, so it fits as written."""
    ev = (
        {"rhr_high": 2.0, "rhr_low": 0.0}
        | {f"z_{m}": 0.0 for m in COSIGNALS}
        | {"z_stress": 1.6, "z_steps": 1.06}
    )
    assert [k for k in EXPLANATIONS if DifferentialRhr.check({"explanation": k}, ev)] == ["stress"]
    assert not DifferentialRhr.check({"explanation": "stress"}, ev | {"rhr_high": 1.0})  # premise fails


def test_common_explanations_are_thinned_by_the_seed() -> None:
    rng = np.random.default_rng(0)
    draws: list[str] = []
    for _ in range(4000):
        try:
            thin("unexplained", KEEP, rng)
            draws.append("kept")
        except Drop as d:
            draws.append(d.reason)
    assert set(draws) == {"kept", "answer class thinned for balance"}
    assert draws.count("kept") / 4000 == pytest.approx(KEEP["unexplained"], abs=0.03)
    ctx = make_ctx(UP)  # unexplained
    outcomes = set()
    for seed in range(30):
        try:
            DifferentialRhr().make(ctx, END, np.random.default_rng(seed), CohortPool())
            outcomes.add("kept")
        except Drop as d:
            outcomes.add(d.reason)
    assert outcomes == {"kept", "answer class thinned for balance"}


def test_profiles_are_exclusive() -> None:
    rng = np.random.default_rng(3)
    for _ in range(1000):
        z = dict(zip(COSIGNALS, rng.normal(0, 1.5, len(COSIGNALS)), strict=True))
        state = State(3.0, 0.0, z)
        assert sum(rule(state) for rule in EXPLANATIONS.values()) <= 1


def test_not_elevated_is_dropped() -> None:
    with pytest.raises(Drop, match="not elevated"):
        build({"stress": 3.0})


def test_no_profile_fitting_is_dropped() -> None:
    # HRV and steps down with shorter sleep: neither an illness profile nor pure sleep loss.
    with pytest.raises(Drop, match="no single reading"):
        build(UP | {"hrv": -3.0, "steps": -3.0, "sleep_minutes": -2.0})


def test_dead_band_is_dropped() -> None:
    with pytest.raises(Drop, match="dead-band"):
        build(UP | {"exercise_minutes": 0.95 * math.sqrt(28 / 27)})


def test_check_on_hand_made_evidence() -> None:
    ev: dict[str, object] = {"rhr_high": 1.6, "rhr_low": 0.0} | {f"z_{m}": 0.0 for m in COSIGNALS}
    ev["z_exercise_minutes"] = 1.5
    assert [k for k in EXPLANATIONS if DifferentialRhr.check({"explanation": k}, ev)] == ["training"]
    ev["rhr_high"] = 1.4  # not elevated: nothing to explain
    assert not any(DifferentialRhr.check({"explanation": k}, ev) for k in EXPLANATIONS)


def test_premise_near_its_threshold_is_dropped() -> None:
    """Resting HR 1.5-1.75 SD up: the stem's premise sits in the dead-band, so no item."""
    near = []
    for shift in np.arange(1.2, 2.4, 0.02):
        ctx = make_ctx({"resting_hr": float(shift)})
        state = state_of(strain_graph(ctx, END, COSIGNALS).evidence(), COSIGNALS)
        assert state is not None
        if 1.5 <= state.high < 1.75:
            near.append(shift)
            with pytest.raises(Drop, match="dead-band"):
                DifferentialRhr().make(ctx, END, np.random.default_rng(0), CohortPool())
    assert near  # the sweep crosses the band
