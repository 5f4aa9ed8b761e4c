"""Hand-computed cases for the solvers and checkers of the four health types (cohort_position etc.)."""

import numpy as np
import pytest
from tests.validity.options import CHECKERS
from tests.validity.solvers import _strain, blood_state, cohort_position

T_CO = 1.0
RULES = _strain.Rules(k_rhr=1.5, t_co=T_CO, focus=3, baseline=28)
ILLNESS = (
    "Illness-like onset: resting HR up; illness balance (HRV down, sleep up, steps down) at least 0.8 SD; "
    "HRV and exercise steady or down"
)
STRAIN_STEM = (
    "Consider the last 3 days of the 28-day window ending 2024-10-14. Judge this user's resting heart "
    "rate (resting HR) day by day against their own trailing 28-day mean and SD: it is up when at least "
    "two consecutive days are ≥ 1.5 SD above, ... Judge the HRV, sleep minutes, steps, exercise minutes "
    "and stress of those days (the co-signals) by their mean shift from the 28 days before them, in SD "
    "units: up at +1 SD or more, down at −1 SD or less, steady in between."
)
BLOOD_STEM = (
    "Using ... which description fits best? One draw gives ranges, not a diagnosis. Glycaemia is the "
    "worse of the fasting-glucose range (normal under 100 mg/dL, prediabetes from 100 mg/dL, diabetes "
    "from 126 mg/dL) and the HbA1c range (normal under 5.7 %, prediabetes from 5.7 %, diabetes from "
    "6.5 %) (ADA). HOMA-IR = glucose × insulin / 405 is insulin-sensitive under 2.5 and insulin-resistant "
    "from 2.5. Triglycerides are typical under 150 mg/dL and raised from 150 mg/dL; HDL is healthy from "
    "40 mg/dL in men and 50 mg/dL in women and reduced under that (NCEP ATP III)."
)
STEPS_RULE = (
    "For daily steps, higher is more favourable, so a median below P20 is unfavourable, above P80 "
    "advantageous, and from P20 to P80 intermediate."
)


def _state(rhr: str | None, **z: float) -> _strain.State:
    base = dict.fromkeys(_strain.CO_NAMES.values(), 0.0)
    return _strain.State(rhr, base | z)


def test_illness_balance_is_the_mean_of_three_signed_shifts() -> None:
    # (1.2 + 0.9 + 0.6) / 3 = 0.9 >= 0.8; without the steps shift (1.2 + 0.9) / 3 = 0.7 < 0.8
    s = _state("up", hrv=-1.2, sleep_minutes=0.9, steps=-0.6)
    assert _strain.holds(ILLNESS, s, T_CO)
    assert not _strain.holds(ILLNESS, _state("up", hrv=-1.2, sleep_minutes=0.9), T_CO)
    assert not _strain.holds(ILLNESS, _state("steady", hrv=-1.2, sleep_minutes=0.9, steps=-0.6), T_CO)
    assert not _strain.holds(
        ILLNESS, _state("up", hrv=-1.2, sleep_minutes=0.9, steps=-0.6, exercise_minutes=1.0), T_CO
    )


def test_pattern_lists_and_one_sided_conditions() -> None:
    text = "HRV, sleep and stress steady; steps down; exercise and bedtime SD steady or down"
    s = _state(None, steps=-1.0, exercise_minutes=-3.0, bedtime_regularity=0.99)
    assert _strain.holds(text, s, T_CO)  # -1.0 is down (<= -1); 0.99 is below +1
    assert not _strain.holds(text, _state(None, steps=-0.99), T_CO)
    assert not _strain.holds(text, _state(None, steps=-1.0, bedtime_regularity=1.0), T_CO)
    assert not _strain.holds("Steps sideways", s, T_CO)  # unreadable text is never true
    assert _strain.holds(
        "Illness-like: HRV and steps down; sleep up", _state(None, hrv=-1, steps=-1, sleep_minutes=1), T_CO
    )


def test_focus_shift_in_baseline_sd_units() -> None:
    # baseline 10, 12 alternating: mean 11, SD (ddof 1) = sqrt(28 / 27) = 1.01835; focus mean 13
    x = np.array([10.0, 12.0] * 14 + [13.0, np.nan, 13.0])
    assert _strain._shift(x, RULES) == pytest.approx(2.0 / 1.01835, abs=1e-5)
    flat = np.array([0.0] * 28 + [0.0, 0.0, 0.0])
    assert _strain._shift(flat, RULES) == 0.0  # constant baseline, equal focus: no shift


def test_resting_hr_needs_two_consecutive_days() -> None:
    base = [60.0, 62.0] * 14  # mean 61, SD 1.018
    # days 29 and 30 at 64: z ~ 2.9 and ~ 2.5 (day 29 enters day 30's baseline), both >= 1.5
    assert _strain._rhr_state(np.array([*base, 61.0, 64.0, 64.0]), RULES) == "up"
    # 61, 64, 61: each pair holds a z near 0, so neither up nor under
    assert _strain._rhr_state(np.array([*base, 61.0, 64.0, 61.0]), RULES) == "steady"
    assert _strain._rhr_state(np.array([*base, 61.0, 58.0, 58.0]), RULES) == "under"


def test_strain_checkers_read_the_evidence() -> None:
    ev = {"rhr_high": 2.0, "rhr_low": 1.9, "z_hrv": -1.2, "z_sleep_minutes": 0.9, "z_steps": -0.6}
    ev |= {"z_exercise_minutes": 0.0, "z_stress": 0.0}
    assert CHECKERS["acute_strain"](ILLNESS, ev, STRAIN_STEM)
    assert not CHECKERS["acute_strain"](ILLNESS, ev | {"rhr_high": 1.4}, STRAIN_STEM)
    prem = "In the last 3 days of the 28-day window ending 2024-07-09, ... at least 1.5 SD above ... "
    prem += "Compare the HRV ... with the 28 days before them by their mean shift in SD units: "
    prem += "up at +1 SD or more"
    text = "HRV down; sleep up; steps steady or up; exercise steady or down"
    assert CHECKERS["differential_rhr"](text, ev | {"z_steps": 0.0, "z_sleep_minutes": 1.1}, prem)
    assert not CHECKERS["differential_rhr"](text, ev | {"z_steps": 0.0}, prem)  # sleep 0.9 is not up
    assert not CHECKERS["differential_rhr"](
        text, ev | {"z_steps": 0.0, "z_sleep_minutes": 1.1, "rhr_high": 1.0}, prem
    )


def test_cohort_position_reads_band_and_rule() -> None:
    low = "Quantile rank 0.10 to 0.20 among peers: an unfavourable position for long-term risk"
    assert cohort_position.holds(low, 1, STEPS_RULE)
    assert not cohort_position.holds(low, 2, STEPS_RULE)
    assert not cohort_position.holds(low.replace("unfavourable", "intermediate"), 1, STEPS_RULE)
    top = "Quantile rank 0.80 to 0.90 among peers: an advantageous position for long-term risk"
    assert cohort_position.holds(top, 8, STEPS_RULE)
    assert CHECKERS["cohort_position"](top, {"band": "P80-P90", "median": 1.0}, STEPS_RULE)
    assert CHECKERS["cohort_position"](
        low.replace("0.10 to 0.20", "0.00 to 0.10"), {"band": "<P10"}, STEPS_RULE
    )
    block = (
        "Reference this question compares steps against (population reference, n = 371 users):\n"
        "- steps (steps): P10=3,402, P20=4334.5, P90=12008\n"
    )
    assert cohort_position.item_reference(block, "steps") == {10: 3402.0, 20: 4334.5, 90: 12008.0}


def test_blood_state_facts_from_the_stated_cut_offs() -> None:
    c = blood_state.cuts(BLOOD_STEM)
    assert c == blood_state.Cuts((100.0, 126.0), (5.7, 6.5), 2.5, 150.0, {"M": 40.0, "F": 50.0})
    # HOMA-IR = 110 * 11.8 / 405 = 3.20 >= 2.5; glucose 110 and HbA1c 5.9 both prediabetes
    panel = {"fasting_glucose": 110.0, "hba1c": 5.9, "insulin": 11.8, "triglycerides": 120.0, "hdl": 45.0}
    female = blood_state.facts(panel, "F", True, c)
    assert female == blood_state.Facts(True, "prediabetes", True, False, True)
    assert not blood_state.facts(panel, "M", True, c).hdl_reduced  # 45 >= 40 in men
    assert blood_state.facts(panel | {"hba1c": 6.5}, "F", True, c).glycaemia == "diabetes"  # the worse
    text = (
        "Steps above the peer median; on this draw glycaemia in the prediabetes range, HOMA-IR in the "
        "insulin-resistant range, typical triglycerides, reduced HDL"
    )
    assert blood_state.holds(text, female)
    assert not blood_state.holds(text.replace("above", "below"), female)
    flags = {k: {"value": v} for k, v in panel.items() if k != "insulin"} | {"homa_ir": {"value": 3.2}}
    assert CHECKERS["blood_state"](text, {"flags": flags, "sex": "F", "steps_pct": 60.0}, BLOOD_STEM)
    assert not CHECKERS["blood_state"](text, {"flags": flags, "sex": "F", "steps_pct": 40.0}, BLOOD_STEM)
