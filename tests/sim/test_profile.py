"""The healthloopqa profile without simulating: lookup, fault plan sizes, meals, exercise, hazards."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from wearbench._errors import UnknownNameError, WearbenchError
from wearbench.sim import draw_cohort, get_profile, hazard_intervals, hazard_labels, profile_names
from wearbench.sim.faults import FaultProfile, FaultSize, profile_faults
from wearbench.sim.scenario import (
    MEAL_TYPES,
    DailyScenario,
    ExerciseSlot,
    MealSlot,
    Perturbation,
    cycling_intensity,
    meal_type_at,
    running_intensity,
)

#: The 18 labels of the spec's label table (17 random-injectable + zero_reading).
SPEC_LABELS = {
    "max_basal", "min_basal", "positive_basal", "negative_basal", "unknown_stop", "unknown_under",
    "missing_signal", "positive_spike", "negative_spike", "negative_bias", "positive_bias", "min_reading",
    "max_reading", "repeated_reading", "false_meal", "false_bolus", "repeated_episode", "zero_reading",
}  # fmt: skip
HLQA = get_profile("healthloopqa")


def test_profiles_by_name_with_close_matches() -> None:
    assert profile_names() == ["default", "healthloopqa"]
    assert get_profile("default").layout == "default"
    assert get_profile("default").scenario is None
    assert (HLQA.layout, HLQA.sample_time, HLQA.controller) == ("healthloopqa", 5, "hcl-mpc")
    with pytest.raises(UnknownNameError, match="did you mean 'healthloopqa'"):
        get_profile("healthloopq")


def test_cohort_is_twenty_of_thirty_drawn_with_its_seed() -> None:
    names = [f"{g}#{k:03d}" for g in ("adolescent", "adult", "child") for k in range(1, 11)]
    assert len(HLQA.cohort) == 20
    assert HLQA.cohort_seed == 42
    assert draw_cohort(names, 20, 42) == HLQA.cohort
    assert draw_cohort(names, 20, 43) != HLQA.cohort
    with pytest.raises(WearbenchError):
        draw_cohort(names, 31, 42)


@pytest.fixture(scope="module")
def plan_20x30() -> pd.DataFrame:
    assert HLQA.faults is not None
    plan = profile_faults(HLQA.faults, 20, 30, np.random.default_rng([42, 6]))
    plan.check(20, 30 * 1440)  # no overlaps, every label registered
    rows = [(e.patient, e.start, e.duration, e.label, e.magnitude, e.intensity) for e in plan.events]
    return pd.DataFrame(rows, columns=["patient", "start", "duration", "label", "magnitude", "intensity"])


def test_every_spec_label_for_every_patient_in_a_20x30_plan(plan_20x30: pd.DataFrame) -> None:
    assert set(plan_20x30["label"]) == SPEC_LABELS
    for _, mine in plan_20x30.groupby("patient"):
        assert set(mine["label"]) == SPEC_LABELS
        spans = sorted(zip(mine["start"], mine["start"] + mine["duration"], strict=True))
        assert all(a_end + 30 <= b_start for (_, a_end), (b_start, _) in itertools.pairwise(spans))
    assert (plan_20x30["start"] % 5 == 0).all()
    assert (plan_20x30["duration"] % 5 == 0).all()


def test_plan_sizes_and_durations_are_the_seeds(plan_20x30: pd.DataFrame) -> None:
    by = {str(k): g for k, g in plan_20x30.groupby("label")}
    for label in ("positive_spike", "negative_spike"):  # single-sample spikes of 60 mg/dL
        assert (by[label]["duration"] == 5).all()
        assert (by[label]["magnitude"] == 60.0).all()
    for label in ("positive_bias", "negative_bias"):
        assert (by[label]["magnitude"] == 32.0).all()
    assert (by["min_reading"]["magnitude"] == 70.0).all()
    assert (by["max_reading"]["magnitude"] > 220.0).all()
    assert by["negative_bias"]["duration"].min() >= 6 * 60
    assert by["repeated_reading"]["duration"].min() >= 3 * 60
    assert by["repeated_episode"]["duration"].min() >= 2 * 60
    for label in ("false_meal", "false_bolus"):  # single-point faults: one sample
        assert (by[label]["duration"] == 5).all()
    clock = by["max_reading"]["start"] % 1440  # "after lunch", 12:00-14:00
    assert ((clock >= 720) & (clock < 840)).all()
    assert len(by["positive_spike"]) == 20 * 10
    assert len(by["negative_spike"]) == 20 * 10
    assert sorted(set(by["missing_signal"]["duration"])) == [15, 60]
    # 2-8 short and 1-3 hour-long losses per patient (drawn), plus the one in days 28-29
    lost = by["missing_signal"].groupby("patient")["duration"].agg(["sum", "size"])
    assert lost["size"].between(2 + 1 + 1, 8 + 3 + 1).all()
    assert lost["sum"].between(2 * 15 + 2 * 60, 8 * 15 + 4 * 60).all()
    assert lost["sum"].nunique() == 11  # not the same share of missing readings for everyone


def _where(rows: pd.DataFrame) -> pd.DataFrame:
    """Day (1-based) and clock minute of each start."""
    return pd.DataFrame({"patient": rows["patient"], "day": rows["start"] // 1440 + 1,
                         "clock": rows["start"] % 1440})  # fmt: skip


@pytest.mark.parametrize(
    ("label", "days", "clock", "template"),
    [
        ("positive_spike", (30, 30), (360, 720), "ad_16"),  # day 30, 06:00-12:00
        ("positive_spike", (27, 27), (900, 1080), "ad_24"),  # day 27, 15:00-18:00 (after lunch)
        ("negative_spike", (14, 14), (0, 1440), "ad_14"),
        ("negative_spike", (1, 7), (0, 1440), "ad_15"),
        ("negative_spike", (1, 30), (720, 840), "ad_33"),  # 12:00-14:00, two of them
        ("missing_signal", (28, 29), (0, 1440), "ad_12"),
        ("repeated_reading", (1, 30), (0, 360), "ad_40"),  # starts 00:00-03:00
        ("max_reading", (1, 30), (720, 840), "ad_36"),
    ],
)
def test_every_patient_has_each_windowed_fault(
    plan_20x30: pd.DataFrame, label: str, days: tuple[int, int], clock: tuple[int, int], template: str
) -> None:
    """The profile's day and clock windows give each windowed AD template an interval for everyone."""
    w = _where(plan_20x30[plan_20x30["label"] == label])
    inside = w[w["day"].between(*days) & (w["clock"] >= clock[0]) & (w["clock"] < clock[1])]
    assert sorted(set(inside["patient"])) == list(range(20)), template


def test_day_windows_past_the_run_are_ignored_and_checked() -> None:
    sizes = (
        FaultSize("positive_spike", 1, 5, 5, days=(30, 30)),
        FaultSize("zero_reading", 1, 5, 5, days=(2, 2)),
    )
    plan = profile_faults(FaultProfile(sizes), 3, 2, np.random.default_rng(0))
    by = {(e.patient, e.label): e.start for e in plan.events}
    assert all(1440 <= by[(p, "zero_reading")] < 2880 for p in range(3))  # day 2
    assert len(plan.events) == 6  # the day-30 spike of a 2-day run goes anywhere
    with pytest.raises(WearbenchError, match="1-based"):
        profile_faults(FaultProfile((FaultSize("zero_reading", 1, 5, 5, days=(3, 2)),)), 1, 5,
                       np.random.default_rng(0))  # fmt: skip


def test_a_count_range_is_drawn_per_patient() -> None:
    sizes = (FaultSize("zero_reading", 1, 5, 5, max_per_30_days=4),)
    plan = profile_faults(FaultProfile(sizes), 40, 30, np.random.default_rng(0))
    counts = [sum(e.patient == p for e in plan.events) for p in range(40)]
    assert set(counts) == {1, 2, 3, 4}  # every count of the range, none outside it
    with pytest.raises(WearbenchError, match="max_per_30_days < per_30_days"):
        profile_faults(FaultProfile((FaultSize("zero_reading", 2, 5, 5, max_per_30_days=1),)), 1, 5,
                       np.random.default_rng(0))  # fmt: skip


def test_short_runs_pack_the_plan_and_a_day_is_too_short() -> None:
    assert HLQA.faults is not None
    plan = profile_faults(HLQA.faults, 2, 2, np.random.default_rng(0))
    plan.check(2, 2 * 1440)
    assert {e.label for e in plan.events if e.patient == 1} == SPEC_LABELS
    assert profile_faults(HLQA.faults, 2, 2, np.random.default_rng(0)) == plan
    with pytest.raises(WearbenchError, match="do not fit in 1 day"):
        profile_faults(HLQA.faults, 1, 1, np.random.default_rng(0))
    with pytest.raises(WearbenchError, match="multiples of 5"):
        profile_faults(FaultProfile((FaultSize("zero_reading", 1, 7, 10),)), 1, 1, np.random.default_rng(0))


def _one_meal(probability: float) -> DailyScenario:
    """Breakfast at exactly 07:00 with exactly 50 g, every perturbation at intensity 0.5."""
    return DailyScenario(
        meals=(MealSlot("breakfast", (7.0, 7.0), (50.0, 50.0)),),
        perturbation=Perturbation(probability=probability, intensity=(0.5, 0.5), shift_min=120.0),
    )


def test_meal_perturbations_hand_checked() -> None:
    draw = _one_meal(1.0).draw(np.array([70.0]), 40, np.random.default_rng(3))
    meals = draw.meals
    assert set(meals["perturbation"]) == {"heavy", "light", "early", "delayed", "skipped"}
    clock = meals["start"] % 1440
    # heavy: 50 x 1.5; light: 50 x 0.5; early/delayed: 0.5 x 120 = 60 min; skipped: 0 g.
    want = {"heavy": (420, 75.0), "light": (420, 25.0), "early": (360, 50.0), "delayed": (480, 50.0),
            "skipped": (420, 0.0)}  # fmt: skip
    for method, (minute, grams) in want.items():
        mine = meals["perturbation"] == method
        assert (clock[mine] == minute).all(), method
        assert (meals.loc[mine, "carbs_g"] == grams).all(), method
    eaten = meals[meals["carbs_g"] > 0]
    assert np.array_equal(np.flatnonzero(draw.carbs[0]), np.sort(eaten["start"].to_numpy()))
    assert draw.carbs.sum() == eaten["carbs_g"].sum()
    assert (meals["perturbation_intensity"] == 0.5).all()


def test_unperturbed_meals_are_the_five_types_in_their_windows() -> None:
    assert HLQA.scenario is not None
    draw = HLQA.scenario.draw(np.array([70.0, 30.0]), 3, np.random.default_rng(0))
    meals = draw.meals
    assert len(meals) == 2 * 3 * 5
    assert tuple(meals["meal_type"][:5]) == MEAL_TYPES
    plain = meals[meals["perturbation"] == ""]
    for slot in HLQA.scenario.meals:
        rows = plain[plain["meal_type"] == slot.meal_type]
        clock = rows["start"] % 1440
        assert ((clock >= slot.hours[0] * 60) & (clock < slot.hours[1] * 60)).all()
        assert rows["carbs_g"].between(*slot.carbs_g).all()
    none = _one_meal(0.0).draw(np.array([70.0]), 5, np.random.default_rng(1)).meals
    assert (none["perturbation"] == "").all()
    assert (none["carbs_g"] == 50.0).all()


def test_meal_type_by_clock() -> None:
    minutes = np.array([0, 539, 540, 690, 870, 1050, 1439, 1440 + 700])
    assert list(meal_type_at(minutes)) == ["breakfast", "breakfast", "morning_snack", "lunch",
                                           "afternoon_snack", "dinner", "dinner", "lunch"]  # fmt: skip


def test_exercise_magnitude_to_intensity() -> None:
    scenario = DailyScenario(
        meals=(),
        exercise=(
            ExerciseSlot("running", 7.0, (6.0, 6.0), (30, 30), (8.0, 8.0), (0.0, 0.0)),
            ExerciseSlot("cycling", 7.0, (17.0, 17.0), (20, 20), (100.0, 100.0)),
        ),
        perturbation=Perturbation(probability=0.0),
    )
    draw = scenario.draw(np.array([70.0]), 2, np.random.default_rng(0))
    s = draw.sessions
    assert list(s["kind"]) == ["running", "cycling", "running", "cycling"]
    assert list(s["start"]) == [360, 1020, 1440 + 360, 1440 + 1020]
    run, ride = s.iloc[0], s.iloc[1]
    # ACSM: 8 km/h flat at VO2max 40 -> 0.731; 100 W at 70 kg -> 0.527 (docstring examples).
    assert run["intensity"] == pytest.approx(0.731, abs=5e-4) == running_intensity(8.0)
    assert ride["intensity"] == round(cycling_intensity(100.0, 70.0), 3) == pytest.approx(0.527, abs=5e-4)
    assert (run["magnitude"], run["magnitude_unit"], ride["magnitude"], ride["magnitude_unit"]) == (
        8.0, "km/h", 100.0, "W"
    )  # fmt: skip
    # Running holds its intensity after a 5-min ramp; cycling 0.85 x after 3 min (docs/cgm-exercise.md).
    assert draw.intensity[0, 360 + 10] == pytest.approx(run["intensity"])
    assert draw.intensity[0, 1020 + 10] == pytest.approx(0.85 * ride["intensity"])
    assert draw.intensity[0, 360 + 30] == 0.0


def test_hazard_labels_on_a_hand_built_series() -> None:
    g = np.array([65.0, 70.0, 180.0, 181.0, np.nan, 200.0, 69.9])
    assert list(hazard_labels(g)) == ["hypoglycemia", "", "", "hyperglycemia", "", "hyperglycemia",
                                      "hypoglycemia"]  # fmt: skip
    t0 = pd.Timestamp("2024-01-01")
    readings = pd.DataFrame(
        {
            "subject_id": ["a"] * 7 + ["b"] * 3,
            "time": [t0 + pd.Timedelta(minutes=5 * k) for k in [*range(7), 0, 1, 2]],
            "glucose": [*g, 50.0, 60.0, 100.0],
        }
    )
    got = hazard_intervals(readings, 5)
    assert list(got["subject_id"]) == ["a", "a", "a", "a", "b"]
    assert list(got["label"]) == ["hypoglycemia", "hyperglycemia", "hyperglycemia", "hypoglycemia",
                                  "hypoglycemia"]  # fmt: skip
    minutes = [(int((s - t0).total_seconds() // 60), int((e - t0).total_seconds() // 60))
               for s, e in zip(got["start"], got["end"], strict=True)]  # fmt: skip
    assert minutes == [(0, 5), (15, 20), (25, 30), (30, 35), (0, 10)]  # the NaN at 20 breaks the run
    assert list(got["samples"]) == [1, 1, 1, 1, 2]
    assert (got.iloc[4]["min_glucose"], got.iloc[4]["max_glucose"]) == (50.0, 60.0)
    assert hazard_intervals(readings.iloc[1:3], 5).empty
