"""Acute strain: planted focus-day shifts against an alternating baseline give a known reading."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

import wearbench
from wearbench.questions import CohortPool, Draft, Drop, UserContext, contexts_from_cohort, run_graph
from wearbench.questions._helpers import thin
from wearbench.questions._strain import (
    State,
    candidate_ends,
    option_text,
    reading_of,
    robust_reading,
    state_of,
    strain_graph,
)
from wearbench.questions.types.acute_strain import COSIGNALS, KEPT, READINGS, AcuteStrain

N = 60
END = N - 1
START = np.datetime64("2024-01-01")
#: Baseline mean and half-swing of each metric; values alternate mean ± swing, so the SD of a
#: 28-day baseline is swing · sqrt(28/27) ≈ 1.018 · swing.
LEVELS = {
    "resting_hr": (60.0, 2.0),
    "hrv": (50.0, 5.0),
    "sleep_minutes": (420.0, 30.0),
    "steps": (8000.0, 1000.0),
    "exercise_minutes": (30.0, 10.0),
    "stress": (40.0, 5.0),
    "bedtime_regularity": (40.0, 5.0),
}


def make_ctx(shifts: dict[str, float], days: int = 3) -> UserContext:
    """Alternating baselines; the last ``days`` days of each metric moved by ``shifts`` swings."""
    sign = np.where(np.arange(N) % 2 == 0, 1.0, -1.0)
    metrics = {}
    for m, (mean, swing) in LEVELS.items():
        values = mean + swing * sign
        values[N - days :] = mean + swing * shifts.get(m, 0.0)
        metrics[m] = values
    dates = START + np.arange(N).astype("timedelta64[D]")
    return UserContext("u1", dates, metrics, {"age": 40.0, "sex": "F"}, (), {})


#: Keeps every window: for tests about the answer, not the answer-class thinning.
UNTHINNED = AcuteStrain(keep={})
KEEP = AcuteStrain().keep


def build(shifts: dict[str, float], qt: AcuteStrain | None = None) -> tuple[UserContext, Draft]:
    ctx = make_ctx(shifts)
    return ctx, (qt or AcuteStrain()).make(ctx, END, np.random.default_rng(0), CohortPool())


@pytest.mark.parametrize(
    ("shifts", "reading"),
    [
        ({"resting_hr": 6.0, "hrv": -2.0, "sleep_minutes": 2.0, "steps": -2.0}, "illness"),
        ({"resting_hr": 6.0, "exercise_minutes": 3.0}, "overreaching"),
        ({"resting_hr": 6.0, "sleep_minutes": -2.0}, "sleep_loss"),
        ({"resting_hr": 6.0, "stress": 3.0}, "stress"),
        ({"resting_hr": 6.0}, "isolated_rhr"),
        ({"resting_hr": -6.0}, "fitness"),
        ({}, "no_deviation"),
        ({"sleep_minutes": -2.0}, "poor_sleep_only"),
        ({"steps": -2.0}, "reduced_activity_only"),
        ({"hrv": -2.0}, "hrv_only"),
    ],
)
def test_planted_pattern_is_the_answer(shifts: dict[str, float], reading: str) -> None:
    ctx, draft = build(shifts, qt=UNTHINNED)
    assert draft.correct.claim == {"reading": reading}
    evidence = draft.graph.evidence()
    options = (draft.correct, *draft.distractors)
    assert [AcuteStrain.check(o.claim, evidence) for o in options] == [True] + [False] * 9
    assert len({o.text for o in options}) == 10
    assert draft.grounding_ref in {"rhr_elevation_acute_illness", "exercise_lowers_rhr"}
    assert run_graph(json.loads(json.dumps(draft.graph.to_json())), ctx) == evidence
    # Every item shows the same ten texts, so a text-only model can learn only the class share.
    assert sorted(o.text for o in options) == sorted(option_text(k, p, KEPT) for k, p in READINGS.items())


def test_option_texts_are_their_rules_in_words() -> None:
    """Each option text is generated from the pattern that judges it (hand-written here)."""
    assert READINGS["stress"].text() == (
        "Resting HR up; illness balance (HRV down, sleep up, steps down) below 0.8 SD; sleep steady; "
        "steps steady or up; exercise steady or down; stress up"
    )
    assert READINGS["illness"].text() == (
        "Resting HR up; illness balance (HRV down, sleep up, steps down) at least 0.8 SD; "
        "HRV and exercise steady or down"
    )
    assert READINGS["fitness"].text() == "Resting HR under its baseline"
    assert (
        option_text("fitness", READINGS["fitness"], {"fitness": "Fit"})
        == "Fit: resting HR under its baseline"
    )
    assert option_text("fitness", READINGS["fitness"], {}) == "Resting HR under its baseline"
    assert set(KEPT) <= set(READINGS)


def test_steps_up_with_stress_fits_the_stress_text() -> None:
    """The issue's example: stress up with steps at +1.06 SD. The key's text allows steps up."""
    ev = evidence_for(1.8, stress=1.6, steps=1.06)
    state = state_of(ev, COSIGNALS)
    assert state is not None
    assert reading_of(state, READINGS) == "stress"
    assert "steps steady or up" in READINGS["stress"].text()


def _parse(text: str) -> list[tuple[str, str]]:
    """(subject, condition) clauses of an option text, read back from the words alone."""
    out = []
    for clause in text.split(": ")[-1].split("; "):
        for cond in (
            "steady or up",
            "steady or down",
            "at least 0.8 SD",
            "below 0.8 SD",
            "under its baseline",
        ):
            if clause.endswith(cond):
                break
        else:
            cond = clause.rsplit(" ", 1)[1]
        subject = clause[: -len(cond)].strip()
        names = subject.replace(" and ", ", ").split(", ") if "balance" not in subject else [subject]
        out += [(n.lower(), cond) for n in names]
    return out


def _text_holds(text: str, s: State) -> bool:
    z = {"hrv": s.z["hrv"], "sleep": s.z["sleep_minutes"], "steps": s.z["steps"]}
    z |= {"exercise": s.z["exercise_minutes"], "stress": s.z["stress"]}
    ok = True
    for subject, cond in _parse(text):
        if subject == "resting hr":
            rhr = "up" if s.high >= 1.5 else "under its baseline" if s.low <= -1.5 else "steady"
            ok &= rhr == cond
        elif "balance" in subject:
            index = (-z["hrv"] + z["sleep"] - z["steps"]) / 3
            ok &= (index >= 0.8) == (cond == "at least 0.8 SD")
        else:
            v = z[subject]
            ok &= {"up": v >= 1, "down": v <= -1, "steady": abs(v) < 1}.get(cond, False) or (
                (cond == "steady or up" and v > -1) or (cond == "steady or down" and v < 1)
            )
    return bool(ok)


def test_text_level_reading_agrees_with_the_rule() -> None:
    """Reading the option texts back as conditions gives the rule's verdict on every state."""
    rng = np.random.default_rng(3)
    for _ in range(3000):
        s = State(
            float(rng.normal(1.5, 2)),
            float(rng.normal(-1.5, 2)),
            dict(zip(COSIGNALS, rng.normal(0, 1.5, 5), strict=True)),
        )
        for key, pattern in READINGS.items():
            assert _text_holds(option_text(key, pattern, KEPT), s) == pattern(s), key


def test_common_readings_are_thinned_by_the_seed() -> None:
    rng = np.random.default_rng(0)
    draws: list[str] = []
    for _ in range(4000):
        try:
            thin("no_deviation", KEEP, rng)
            draws.append("kept")
        except Drop as d:
            draws.append(d.reason)
    assert set(draws) == {"kept", "answer class thinned for balance"}
    assert draws.count("kept") / 4000 == pytest.approx(KEEP["no_deviation"], abs=0.03)
    ctx = make_ctx({})  # no deviation
    outcomes = set()
    for seed in range(30):
        try:
            AcuteStrain().make(ctx, END, np.random.default_rng(seed), CohortPool())
            outcomes.add("kept")
        except Drop as d:
            outcomes.add(d.reason)
    assert outcomes == {"kept", "answer class thinned for balance"}
    assert "illness" not in KEEP  # every detected illness onset is kept


def test_focus_shift_is_in_baseline_sd_units() -> None:
    _, draft = build({"resting_hr": 6.0, "hrv": -2.0, "sleep_minutes": 2.0, "steps": -2.0})
    state = state_of(draft.graph.evidence(), COSIGNALS)
    assert state is not None
    sd = math.sqrt(28 / 27)  # alternating ±1 swing over 28 days, ddof=1
    assert state.z["hrv"] == pytest.approx(-2.0 / sd)
    assert state.z["sleep_minutes"] == pytest.approx(2.0 / sd)
    assert state.z["exercise_minutes"] == pytest.approx(0.0)
    assert state.high > 3.0  # the two later focus days far above their trailing baselines


def test_two_explanations_fitting_is_dropped() -> None:
    # Illness-like (HRV and steps down) and sleep loss (sleep down) at once.
    with pytest.raises(Drop, match="no single reading"):
        build({"resting_hr": 6.0, "hrv": -3.0, "steps": -3.0, "sleep_minutes": -2.0})


def test_value_in_dead_band_is_dropped() -> None:
    # Sleep 1.05 SD down: sleep loss or isolated rise depending on the side of the threshold.
    with pytest.raises(Drop, match="dead-band"):
        build({"resting_hr": 6.0, "sleep_minutes": -1.05 * math.sqrt(28 / 27)})


def test_missing_baseline_is_dropped() -> None:
    ctx = make_ctx({"resting_hr": 6.0})
    ctx.metrics["hrv"][: N - 3] = np.nan
    with pytest.raises(Drop, match="too few days"):
        AcuteStrain().make(ctx, END, np.random.default_rng(0), CohortPool())


def evidence_for(high: float | None, low: float | None = 0.0, **z: float | None) -> dict[str, object]:
    """Hand-made evidence: sustained resting-HR levels and co-signal shifts (SD units)."""
    return {"rhr_high": high, "rhr_low": low} | {f"z_{m}": z.get(m, 0.0) for m in COSIGNALS}


def test_check_on_hand_made_evidence() -> None:
    ev = evidence_for(1.6, stress=2.0)
    assert AcuteStrain.check({"reading": "stress"}, ev)
    assert not AcuteStrain.check({"reading": "isolated_rhr"}, ev)
    assert AcuteStrain.check({"reading": "no_deviation"}, evidence_for(1.4))
    assert AcuteStrain.check({"reading": "fitness"}, evidence_for(0.0, -1.6))
    # Undefined numbers decide nothing.
    for ev in (evidence_for(None), evidence_for(2.0, hrv=None)):
        assert not any(AcuteStrain.check({"reading": r}, ev) for r in READINGS)


def test_readings_are_exclusive_off_the_dead_band() -> None:
    rng = np.random.default_rng(7)
    for _ in range(500):
        state = State(
            float(rng.normal(1.5, 2)),
            float(rng.normal(-1.5, 2)),
            dict(zip(COSIGNALS, rng.normal(0, 1.5, 5), strict=True)),
        )
        hits = [r for r, rule in READINGS.items() if rule(state)]
        assert len(hits) <= 2
        if len(hits) == 2:
            assert set(hits) == {"illness", "sleep_loss"}  # the one genuine overlap, dropped
            assert reading_of(state, READINGS) is None


def test_robust_reading_matches_nominal_when_kept() -> None:
    state = State(3.0, 0.0, dict.fromkeys(COSIGNALS, 0.0) | {"exercise_minutes": 2.0})
    assert robust_reading(state, READINGS) == "overreaching"


def test_candidate_ends_start_focus_on_run_and_interleave_quiet() -> None:
    ctx = make_ctx({})
    ctx.metrics["resting_hr"][40:43] = 75.0  # a three-day run starting at day 40
    ends = candidate_ends(ctx, 31)
    assert ends[0] == 42  # focus = days 40, 41, 42
    assert all(abs(e - 42) >= 7 for e in ends[1:])
    assert candidate_ends(ctx, 31, quiet=False) == [42]


def test_end_dates_use_weekly_quiet_candidates() -> None:
    ctx = make_ctx({})
    ctx.metrics["resting_hr"][40:43] = 75.0
    ends = AcuteStrain().end_dates(ctx)
    assert ends == candidate_ends(ctx, 31, step=7, off_gap=7)
    assert ends[0] == 42
    assert len(ends) > len(candidate_ends(ctx, 31))  # weekly plain ends add windows


def test_graph_records_primitive_calls() -> None:
    g = strain_graph(make_ctx({"steps": -2.0}), END, ("steps",))
    calls = [n for n in g.nodes if n["op"] == "call"]
    assert [n["primitive"] for n in calls] == ["zscore", "sustained_level", "sustained_level", "focus_shift"]
    assert calls[-1]["args"] == {"focus_days": 3, "baseline_days": 28, "min_focus": 2, "min_baseline": 14}
    assert set(g.outputs) == {"rhr_high", "rhr_low", "z_steps"}


def test_planted_illness_episodes_are_found() -> None:
    """Recall ≥ 60 % of planted illness episodes whose window is eligible (15 of 22 measured).

    The illness balance threshold (0.8 SD) trades recall for precision: at 0.5 SD recall was
    ≥ 90 % but only 0.77 of illness readings matched a planted illness (docs/health-readings.md).

    Eligible: a candidate window puts the episode's first days in its focus, and the personal
    baselines are defined there.
    """
    cohort = wearbench.synth(40, 300, seed=1)
    ctxs = contexts_from_cohort(cohort)
    qt = AcuteStrain()
    eligible = found = 0
    for ep in cohort.truth["episodes"]:
        if ep["kind"] != "illness":
            continue
        ctx = ctxs[ep["user_id"]]
        onset = ctx.index(ep["start"])
        ends = [e for e in qt.end_dates(ctx) if onset - 1 <= e - 2 <= onset + 2]
        if not ends or state_of(strain_graph(ctx, ends[-1], COSIGNALS).evidence(), COSIGNALS) is None:
            continue
        eligible += 1
        try:
            draft = qt.make(ctx, ends[-1], np.random.default_rng(0), CohortPool())
        except Drop:
            continue
        found += draft.correct.claim["reading"] == "illness"
    assert eligible >= 10
    assert found / eligible >= 0.6
