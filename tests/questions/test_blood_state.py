"""blood_state: hand-built contexts whose blood state and activity level are known by construction."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from wearbench.bench import varying_features
from wearbench.questions import CohortPool, Drop, UserContext
from wearbench.questions.types.blood_state import (
    ANSWER_COUNTS,
    BloodState,
    answer_weight,
    describe,
    knife_edge,
    state_from_flags,
    thin,
)

REF_STEPS = {5: 2500.0, 10: 3000.0, 25: 4000.0, 50: 6000.0, 75: 8000.0, 90: 10000.0, 95: 12000.0}
BASE = {
    "fasting_glucose": 90.0,
    "hba1c": 5.2,
    "insulin": 5.0,
    "triglycerides": 120.0,
    "hdl": 55.0,
    "ldl": 110.0,
    "total_cholesterol": 190.0,
}


#: Keeps every window: these tests are about the answer, not the answer-class thinning.
UNTHINNED = BloodState(keep={})
KEEP = BloodState().keep


def make_ctx(
    panel: dict[str, float] | None,
    *,
    steps: float = 9000.0,
    sex: str | None = "F",
    n: int = 120,
    draw_day: int = 60,
    reference: bool = True,
) -> UserContext:
    dates = np.datetime64("2024-01-01") + np.arange(n).astype("timedelta64[D]")
    blood: tuple[dict[str, Any], ...] = ()
    if panel is not None:
        blood = ({"draw_date": str(dates[draw_day]), **BASE, **panel},)
    return UserContext(
        "u1",
        dates,
        {"steps": np.full(n, steps)},
        {"age": 45.0, "sex": sex, "bmi": 26.0, "ethnicity": "white"},
        blood,
        {"steps": dict(REF_STEPS)} if reference else {},
    )


def build(ctx: UserContext, end: int | None = None) -> Any:
    end = ctx.n_days - 1 if end is None else end
    return UNTHINNED.make(ctx, end, np.random.default_rng(0), CohortPool())


def holds(draft: Any) -> list[bool]:
    ev = draft.graph.evidence()
    return [BloodState.check(o.claim, ev) for o in (draft.correct, *draft.distractors)]


def test_prediabetic_with_insulin_resistance_and_high_activity() -> None:
    # HOMA-IR = 110 * 11.8 / 405 = 3.20 (>= 2.5); steps 9000 -> P82.5 of peers
    draft = build(make_ctx({"fasting_glucose": 110.0, "hba1c": 5.9, "insulin": 11.8}))
    assert dict(draft.correct.claim) == {
        "glycaemia": "prediabetes",
        "insulin_resistance": True,
        "lipids": "normal",
        "activity": "higher",
    }
    assert holds(draft) == [True] + [False] * 9
    assert len({o.text for o in (draft.correct, *draft.distractors)}) == 10
    assert draft.grounding_ref == "prediabetes_cardiometabolic_risk"
    assert draft.graph.evidence()["steps_pct"] == pytest.approx(82.5)


def test_atherogenic_dyslipidaemia_without_dysglycaemia_low_activity() -> None:
    ctx = make_ctx({"triglycerides": 210.0, "hdl": 35.0}, steps=3000.0, sex="M")
    claim = dict(build(ctx).correct.claim)
    assert claim == {
        "glycaemia": "normal",
        "insulin_resistance": False,
        "lipids": "atherogenic",
        "activity": "lower",
    }


def test_hdl_cut_off_depends_on_sex() -> None:
    female = dict(build(make_ctx({"hdl": 45.0}, sex="F")).correct.claim)
    male = dict(build(make_ctx({"hdl": 45.0}, sex="M")).correct.claim)
    assert female["lipids"] == "low_hdl"
    assert male["lipids"] == "normal"


def test_worse_of_glucose_and_hba1c_sets_glycaemia() -> None:
    claim = dict(build(make_ctx({"fasting_glucose": 135.0, "hba1c": 6.0})).correct.claim)
    assert claim["glycaemia"] == "diabetes"
    claim = dict(build(make_ctx({"fasting_glucose": 92.0, "hba1c": 6.0})).correct.claim)
    assert claim["glycaemia"] == "prediabetes"
    assert claim["lipids"] == "normal"


@pytest.mark.parametrize(
    ("ctx", "end", "reason"),
    [
        (make_ctx(None), None, "no blood draw"),
        (make_ctx({}, draw_day=100), 80, "no blood draw"),  # the only draw is after the end date
        (make_ctx({"hba1c": float("nan")}), None, "needed biomarker missing"),
        (make_ctx({"fasting_glucose": 100.5}), None, "dead-band of a clinical cut-off"),
        (make_ctx({"hba1c": 5.7}), None, "dead-band of a clinical cut-off"),
        (make_ctx({"fasting_glucose": 100.0, "insulin": 10.1}), None, "dead-band of a clinical cut-off"),
        (make_ctx({}, steps=6100.0), None, "dead-band of the reference median"),
        (make_ctx({}, sex=None), None, "sex unknown"),
        (make_ctx({}, reference=False), None, "no reference percentiles"),
    ],
)
def test_drops(ctx: UserContext, end: int | None, reason: str) -> None:
    with pytest.raises(Drop, match=reason):
        build(ctx, end)


def test_dead_bands_are_constructor_fields() -> None:
    # 6100 steps sit at P51.25 of the peers (P50 6000, P75 8000): inside 5 points, outside 1
    narrow = BloodState(keep={}, activity_dead_band=1.0)
    ctx = make_ctx({}, steps=6100.0)
    draft = narrow.make(ctx, ctx.n_days - 1, np.random.default_rng(0), CohortPool())
    assert draft.correct.claim["activity"] == "higher"
    # fasting glucose 100.5 is 0.5 mg/dL above the prediabetes cut: inside 2.0, outside 0.2
    tight = BloodState(keep={}, margins={**BloodState().margins, "fasting_glucose": 0.2})
    ctx = make_ctx({"fasting_glucose": 100.5})
    draft = tight.make(ctx, ctx.n_days - 1, np.random.default_rng(0), CohortPool())
    assert draft.correct.claim["glycaemia"] == "prediabetes"


def test_knife_edge_only_near_a_relevant_cut() -> None:
    panel = {**BASE, "homa_ir": 1.1}
    margins = BloodState().margins
    assert not knife_edge(panel, "F", margins)
    assert knife_edge({**panel, "triglycerides": 149.0}, "F", margins)
    assert knife_edge({**panel, "hdl": 50.5}, "F", margins)
    assert not knife_edge({**panel, "hdl": 40.5}, "F", margins)  # 40 is the male cut-off
    assert not knife_edge({**panel, "triglycerides": 199.0}, "F", margins)  # 150-500 all read "high TG"
    assert not knife_edge({**panel, "triglycerides": 149.0}, "F", {**margins, "triglycerides": 0.5})


def test_end_dates_follow_each_draw_latest_first() -> None:
    dates = np.datetime64("2024-01-01") + np.arange(400).astype("timedelta64[D]")
    draws = tuple({"draw_date": str(dates[d]), **BASE} for d in (30, 200))
    ctx = UserContext("u", dates, {"steps": np.full(400, 5000.0)}, {"sex": "F", "age": 40.0}, draws, {})
    # draw 200: 200, 256, 312, 368; draw 30: 30, 86, 142, 198 (all before the next draw)
    assert BloodState().end_dates(ctx) == [200, 30, 256, 86, 312, 142, 368, 198]


def _flags(**cats: str) -> dict[str, Any]:
    base = {"fasting_glucose": "normal", "hba1c": "normal", "triglycerides": "normal", "hdl": "normal"}
    base |= {"homa_ir": "normal", "ldl": "optimal", "total_cholesterol": "desirable"} | cats
    return {k: {"category": v} for k, v in base.items()}


def test_check_on_hand_made_evidence() -> None:
    ev = {
        "flags": _flags(hba1c="diabetes", triglycerides="very_high", homa_ir="insulin_resistant"),
        "steps_pct": 30.0,
    }
    good = {"glycaemia": "diabetes", "insulin_resistance": True, "lipids": "high_tg", "activity": "lower"}
    assert BloodState.check(good, ev)
    assert not BloodState.check({**good, "activity": "higher"}, ev)
    assert not BloodState.check({**good, "lipids": "atherogenic"}, ev)
    assert not BloodState.check({**good, "insulin_resistance": False}, ev)
    assert not BloodState.check(good, {**ev, "steps_pct": None})
    assert not BloodState.check(good, {**ev, "flags": _flags(hdl="undefined")})
    assert not BloodState.check(good, {**ev, "flags": _flags(hba1c="missing")})


def test_state_from_flags_combines_tg_and_hdl() -> None:
    state = state_from_flags(_flags(triglycerides="borderline_high", hdl="low"))
    assert state == {"glycaemia": "normal", "insulin_resistance": False, "lipids": "atherogenic"}


def test_end_dates_stop_before_the_next_draw() -> None:
    dates = np.datetime64("2024-01-01") + np.arange(300).astype("timedelta64[D]")
    draws = tuple({"draw_date": str(dates[d]), **BASE} for d in (10, 150))
    ctx = UserContext("u", dates, {"steps": np.full(300, 5000.0)}, {"sex": "F", "age": 40.0}, draws, {})
    # draw 10: day 10 is too early for a 28-day window; 66, 122 (178 >= 150 belongs to the next draw)
    assert BloodState().end_dates(ctx) == [150, 66, 206, 122, 262]


def test_option_text_is_one_template() -> None:
    state = {"glycaemia": "prediabetes", "insulin_resistance": True, "lipids": "high_tg", "activity": "lower"}
    assert describe(state) == (
        "Steps below the peer median; on this draw glycaemia in the prediabetes range, HOMA-IR in the "
        "insulin-resistant range, raised triglycerides, healthy HDL"
    )
    assert not any(w in describe(state).lower() for w in ("prediabetic", "diabetic"))  # no diagnosis
    draft = build(make_ctx({"fasting_glucose": 110.0, "hba1c": 5.9, "insulin": 11.8}))
    texts = [o.text for o in (draft.correct, *draft.distractors)]
    # only the length (the glycaemia range word) and position vary
    assert set(varying_features(draft.question, texts)) <= {
        "length_z",
        "length_rank",
        "is_longest",
        "is_shortest",
    }
    lengths = {len(t) for t in texts}
    assert max(lengths) - min(lengths) <= 6  # glycaemia word: 5 letters; triglyceride word: 1


def test_stem_states_every_cut_off_the_state_uses() -> None:
    """The stem names each cut-off (ADA, NCEP ATP III, HOMA-IR 2.5) so the state is read from the prompt."""
    draft = build(make_ctx({"fasting_glucose": 110.0, "hba1c": 5.9, "insulin": 11.8}))
    for phrase in (
        "fasting-glucose range (normal under 100 mg/dL, prediabetes from 100 mg/dL, diabetes from 126 mg/dL)",
        "HbA1c range (normal under 5.7 %, prediabetes from 5.7 %, diabetes from 6.5 %)",
        "HOMA-IR = glucose × insulin / 405 is insulin-sensitive under 2.5 and insulin-resistant from 2.5.",
        "Triglycerides are typical under 150 mg/dL and raised from 150 mg/dL",
        "HDL is healthy from 40 mg/dL in men and 50 mg/dL in women and reduced under that",
        "ranges, not a diagnosis",
    ):
        assert phrase in draft.question, phrase


def test_distractors_are_shown_in_proportion_to_answer_counts() -> None:
    ctx = make_ctx({"fasting_glucose": 110.0, "hba1c": 5.9, "insulin": 11.8})
    shown: dict[tuple[Any, ...], int] = {}
    for seed in range(300):
        draft = UNTHINNED.make(ctx, ctx.n_days - 1, np.random.default_rng(seed), CohortPool())
        assert holds(draft) == [True] + [False] * 9
        for o in draft.distractors:
            key = tuple(o.claim[k] for k in ("glycaemia", "insulin_resistance", "lipids", "activity"))
            shown[key] = shown.get(key, 0) + 1
    common = ("normal", False, "normal", "lower")
    rare = ("diabetes", False, "low_hdl", "higher")  # never an answer in the measured builds
    assert ANSWER_COUNTS[common] > 20
    assert rare not in ANSWER_COUNTS
    assert shown[common] > 0.5 * 300  # common answers are shown in most items
    assert shown.get(rare, 0) < 0.1 * 300
    parts = ("glycaemia", "insulin_resistance", "lipids", "activity")
    assert answer_weight(dict(zip(parts, rare, strict=True))) == 1.0


def test_commonest_states_are_thinned_by_the_seed() -> None:
    healthy = {"glycaemia": "normal", "insulin_resistance": False, "lipids": "normal", "activity": "higher"}
    rng = np.random.default_rng(0)
    reasons: list[str] = []
    for _ in range(4000):
        try:
            thin(healthy, KEEP, rng)
            reasons.append("kept")
        except Drop as d:
            reasons.append(d.reason)
    assert set(reasons) == {"kept", "answer class thinned for balance"}
    kept = reasons.count("kept")
    assert kept / 4000 == pytest.approx(KEEP[("normal", False, "normal", "higher")], abs=0.03)
    rare = {**healthy, "glycaemia": "diabetes"}
    for _ in range(100):
        thin(rare, KEEP, rng)  # never thinned
