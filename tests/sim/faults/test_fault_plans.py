"""Fault plans: random draws, CSV round trip and one-line CSV errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from wearbench._errors import UnknownNameError, WearbenchError
from wearbench._registry import registry
from wearbench.sim.faults import FaultEvent, FaultPlan, fault_names, faults_from_csv, random_faults

PATIENTS = ["adult#001", "adult#002"]


def test_registry_tags_and_suggestions() -> None:
    assert len(fault_names()) == 18
    assert registry.get("fault", "unknown_stop").tags["target"] == "pump_display"
    assert registry.get("fault", "positive_bias").tags["target"] == "cgm"
    assert registry.get("fault", "false_meal").tags["target"] == "meal"
    assert registry.get("fault", "max_basal").tags == {
        "target": "delivery",
        "stream": "basal",
        "category": "attack",
    }
    with pytest.raises(UnknownNameError, match="did you mean 'positive_bias'"):
        registry.get("fault", "positive_bais")


def test_random_faults_deterministic_and_non_overlapping() -> None:
    a = random_faults(["zero_reading", "false_bolus"], 2, 2 * 1440, np.random.default_rng(1), per_day=3)
    b = random_faults(["zero_reading", "false_bolus"], 2, 2 * 1440, np.random.default_rng(1), per_day=3)
    assert a == b
    assert len(a.events) == 12
    a.check(2, 2 * 1440)
    assert {e.label for e in a.events} == {"zero_reading", "false_bolus"}
    with pytest.raises(WearbenchError, match="do not fit"):
        random_faults(None, 1, 1440, np.random.default_rng(0))
    with pytest.raises(UnknownNameError):
        random_faults(["nope_reading"], 1, 1440, np.random.default_rng(0))


def test_csv_round_trip(tmp_path: Path) -> None:
    plan = random_faults(None, 2, 3 * 1440, np.random.default_rng(2))
    path = tmp_path / "plan.csv"
    plan.to_frame(PATIENTS).to_csv(path, index=False)
    again = faults_from_csv(path, PATIENTS, 3 * 1440)
    key = sorted(plan.events, key=lambda e: (e.patient, e.start))
    assert list(again.events) == key


def test_csv_without_patient_hits_everyone(tmp_path: Path) -> None:
    path = tmp_path / "p.csv"
    path.write_text("start,duration,label\n60,30,missing_signal\n")
    plan = faults_from_csv(path, PATIENTS)
    assert plan.events == (FaultEvent(0, 60, 30, "missing_signal"), FaultEvent(1, 60, 30, "missing_signal"))


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("start,label\n1,zero_reading\n", "line 1: missing column(s) duration"),
        ("start,duration,label\n1,10,zero_reading\nx,10,zero_reading\n", "line 3: column start"),
        ("start,duration,label\n1,0,zero_reading\n", "line 2: column duration"),
        (
            "start,duration,label\n1,10,zero_readin\n",
            "line 2: column label: unknown fault 'zero_readin'; did you mean",
        ),
        ("start,duration,label,intensity\n1,10,zero_reading,2\n", "line 2: column intensity"),
        ("patient,start,duration,label\nadult#009,1,10,zero_reading\n", "line 2: column patient"),
        ("start,duration,label\n1,2000,zero_reading\n", "line 2: column duration: interval ends after"),
        ("start,duration,label\n1,100,zero_reading\n50,10,max_basal\n", "overlaps zero_reading at minute 1"),
    ],
)
def test_bad_csv_is_one_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(WearbenchError) as info:
        faults_from_csv(path, PATIENTS, 1440)
    assert message in str(info.value)
    assert len(str(info.value).splitlines()) == 1


def test_plan_check_rejects_bad_events() -> None:
    with pytest.raises(WearbenchError, match="outside"):
        FaultPlan((FaultEvent(0, 1430, 20, "zero_reading"),)).check(1, 1440)
    with pytest.raises(WearbenchError, match="patient index"):
        FaultPlan((FaultEvent(3, 0, 20, "zero_reading"),)).check(1, 1440)


def test_magnitude_round_trips_through_csv(tmp_path: Path) -> None:
    plan = FaultPlan(
        (FaultEvent(0, 60, 5, "positive_spike", magnitude=60.0), FaultEvent(1, 0, 30, "zero_reading"))
    )
    table = plan.to_frame(PATIENTS)
    assert list(table["magnitude"].fillna(-1.0)) == [60.0, -1.0]
    assert "magnitude" not in FaultPlan((FaultEvent(1, 0, 30, "zero_reading"),)).to_frame(PATIENTS)
    path = tmp_path / "plan.csv"
    table.to_csv(path, index=False)
    assert faults_from_csv(path, PATIENTS, 1440) == plan


def test_magnitude_only_on_sized_faults(tmp_path: Path) -> None:
    sized = {e.name for e in registry.entries("fault") if "size" in e.tags}
    assert sized == {"positive_spike", "negative_spike", "positive_bias", "negative_bias", "min_reading",
                     "max_reading", "false_meal", "false_bolus"}  # fmt: skip
    with pytest.raises(WearbenchError, match="not accepted"):
        FaultPlan((FaultEvent(0, 0, 20, "missing_signal", magnitude=1.0),)).check(1, 1440)
    with pytest.raises(WearbenchError, match="not finite"):
        FaultPlan((FaultEvent(0, 0, 20, "positive_bias", magnitude=float("inf")),)).check(1, 1440)
    for text, message in (
        (
            "start,duration,label,magnitude\n1,10,missing_signal,3\n",
            "line 2: column magnitude: missing_signal",
        ),
        ("start,duration,label,magnitude\n1,10,positive_bias,x\n", "line 2: column magnitude: 'x'"),
    ):
        path = tmp_path / "m.csv"
        path.write_text(text)
        with pytest.raises(WearbenchError, match=message):
            faults_from_csv(path, PATIENTS, 1440)
