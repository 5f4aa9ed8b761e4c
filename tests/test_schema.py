import math

import pytest

from wearbench import UnknownNameError
from wearbench.cohort import (
    AGE_BANDS,
    BIOMARKERS,
    METRICS,
    age_band,
    from_wearableqa,
    metric,
    to_wearableqa,
)

WEARABLEQA_FIELDS = {
    "steps", "rhr", "hrv", "vo2_max", "sleep_duration", "sleep_efficiency", "deep_percentage",
    "rem_percentage", "bed_time_std", "active_burn", "calories_bmr", "avg_stress_level",
    "exercise_count", "exercise_hours", "exercise_mets", "exercise_avg_hr",
}  # fmt: skip


def test_sixteen_metrics_map_one_to_one_onto_wearableqa_fields() -> None:
    assert len(METRICS) == 16
    assert {m.wearableqa for m in METRICS} == WEARABLEQA_FIELDS


def test_seventeen_biomarkers() -> None:
    assert len(BIOMARKERS) == 17
    assert len({b.name for b in BIOMARKERS}) == 17


def test_unit_conversion_to_wearableqa_hours() -> None:
    assert to_wearableqa("sleep_minutes", 450.0) == ("sleep_duration", 7.5)
    assert to_wearableqa("exercise_minutes", 90.0) == ("exercise_hours", 1.5)
    name, value = from_wearableqa("sleep_duration", 7.5)
    assert name == "sleep_minutes"
    assert math.isclose(value, 450.0)
    assert from_wearableqa("rhr", 61.0) == ("resting_hr", 61.0)


def test_unknown_names_suggest() -> None:
    with pytest.raises(UnknownNameError, match="resting_hr"):
        metric("resting_h")
    with pytest.raises(UnknownNameError, match="sleep_duration"):
        from_wearableqa("sleep_durration", 1.0)


def test_ranges_are_ordered() -> None:
    for m in METRICS:
        assert m.lo < m.hi, m.name
    for b in BIOMARKERS:
        assert b.lo < b.hi, b.name


@pytest.mark.parametrize(
    ("age", "band"), [(18, "18-29"), (29.99, "18-29"), (30, "30-39"), (59, "50-59"), (60, "60+"), (95, "60+")]
)
def test_age_band_edges(age: float, band: str) -> None:
    assert age_band(age) == band


def test_age_band_rejects_minors_and_nan() -> None:
    with pytest.raises(ValueError, match="outside"):
        age_band(17)
    with pytest.raises(ValueError, match="outside"):
        age_band(float("nan"))
    assert AGE_BANDS[0][1] == 18
