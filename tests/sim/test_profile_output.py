"""The healthloopqa profile's run and output folder (2 patients x 2 days); fault sizes in the loop."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("simglucose")

from wearbench.sim import (
    BasalBolusController,
    ControllerAction,
    ProfileRun,
    Sensor,
    get_profile,
    hazard_intervals,
    hazard_labels,
    simulate,
    simulate_profile,
    write_simulation,
)
from wearbench.sim.faults import FaultEvent, FaultPlan
from wearbench.sim.patient._params import FloatArray
from wearbench.sim.scenario import MEAL_TYPES

PATIENTS = ["adult#001", "child#002"]
HLQA = get_profile("healthloopqa")
FILES = ["readings", "truth", "events", "insulin", "labels", "faults", "hazards"]


@pytest.fixture(scope="module")
def run() -> ProfileRun:
    return simulate_profile(HLQA, 2, patients=PATIENTS, controller="basal-bolus", faults="random", seed=42)


@pytest.fixture(scope="module")
def folder(run: ProfileRun, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("hlqa") / "sim"
    params = {"profile": "healthloopqa", "cohort": list(HLQA.cohort), "cohort_seed": HLQA.cohort_seed}
    write_simulation(run.frame, out, sample_time=5, params=params, faults=run.faults, exercise=run.sessions,
                     meals=run.meals, layout="healthloopqa")  # fmt: skip
    return out


def read(folder: Path, name: str) -> pd.DataFrame:
    return pd.read_parquet(folder / f"{name}.parquet")


def test_grid_files_and_manifest(folder: Path) -> None:
    readings = read(folder, "readings")
    assert readings.groupby("subject_id").size().to_dict() == dict.fromkeys(PATIENTS, 2 * 288)
    step = readings.groupby("subject_id")["time"].diff().dropna()
    assert (step == pd.Timedelta(minutes=5)).all()
    for name in ("truth", "insulin", "labels"):
        table = read(folder, name)
        assert table[["subject_id", "time"]].equals(readings[["subject_id", "time"]]), name
    assert "true_bg" in read(folder, "truth")
    manifest = json.loads((folder / "manifest.json").read_text())
    assert sorted(manifest["files"]) == sorted(f"{n}.parquet" for n in FILES)
    for name, sha in manifest["files"].items():
        assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == sha
    assert manifest["sample_time_min"] == 5
    assert manifest["params"]["cohort_seed"] == 42


def test_labels_hazards_and_fault_intervals(folder: Path, run: ProfileRun) -> None:
    readings, labels = read(folder, "readings"), read(folder, "labels")
    assert list(labels.columns) == ["subject_id", "time", "fault_label", "hazard_label"]
    assert list(labels["hazard_label"]) == list(hazard_labels(readings["glucose"].to_numpy()))
    assert read(folder, "hazards").equals(hazard_intervals(readings, 5))
    faults = read(folder, "faults")
    assert len(faults) == len(run.faults.events)
    assert faults["magnitude"].notna().sum() > 0
    spikes = faults[faults["label"] == "positive_spike"]
    assert ((spikes["end"] - spikes["start"]) == pd.Timedelta(minutes=5)).all()
    for row in spikes.itertuples():  # a single-sample spike labels exactly one sample
        hit = labels[(labels["subject_id"] == row.subject_id) & (labels["fault_label"] == "positive_spike")]
        assert row.start in set(hit["time"])
    assert labels.groupby("subject_id")["fault_label"].apply(lambda s: set(s) - {""}).map(len).min() == 18


def test_events_meals_exercise_boluses(folder: Path, run: ProfileRun) -> None:
    events = read(folder, "events")
    carbs = events[events["kind"] == "carbs"]
    assert set(carbs["meal_type"]) <= {*MEAL_TYPES, "hypo_treatment"}
    assert (carbs["detail"] == carbs["meal_type"]).all()
    treated = carbs[carbs["meal_type"] == "hypo_treatment"]  # rescue carbs, one row per treatment
    assert len(treated) == int((run.frame["rescue"] > 0).sum())
    assert (treated["value"] == 15.0).all()
    assert (treated["perturbation"] == "").all()
    carbs = carbs[carbs["meal_type"] != "hypo_treatment"]
    eaten = run.meals[run.meals["carbs_g"] > 0]
    assert len(carbs) >= len(eaten)  # plus false meals announced to the controller
    bolus = events[events["kind"] == "bolus"]
    assert len(bolus) > 0
    assert (bolus["dosage"] == bolus["value"]).all()
    assert set(bolus["insulin_type"]) == {"rapid"}
    exercise = events[events["kind"] == "exercise"]
    assert run.sessions is not None
    assert len(exercise) == len(run.sessions)
    assert set(exercise["magnitude_unit"]) <= {"km/h", "W"}
    assert exercise["magnitude"].gt(0).all()
    assert "basal" not in set(events["kind"])


def test_insulin_is_the_mean_rate_per_sample_in_mu_per_min(folder: Path, run: ProfileRun) -> None:
    insulin = read(folder, "insulin")
    per_minute = run.frame["insulin"].to_numpy()  # U/min, patient-major
    want = per_minute.reshape(-1, 5).mean(axis=1) * 1000.0
    assert np.allclose(insulin["insulin_mu_per_min"], want, rtol=0, atol=1e-9)
    total_u = insulin.groupby("subject_id")["insulin_mu_per_min"].sum() * 5 / 1000
    assert total_u.to_numpy() == pytest.approx(per_minute.reshape(2, -1).sum(axis=1))
    assert np.allclose(
        insulin["basal_mu_per_min"] + insulin["bolus_mu_per_min"], insulin["insulin_mu_per_min"]
    )


class _LongActing(BasalBolusController):
    """Basal-bolus plus 10 U of long-acting insulin at 06:00 (as an MDI controller records it)."""

    def policy(self, cgm: FloatArray, carbs: FloatArray, minute: int) -> ControllerAction:
        a = super().policy(cgm, carbs, minute)
        return ControllerAction(a.basal, a.bolus, 10.0 if minute == 360 else None)


def test_long_acting_injections_are_bolus_events_of_type_long(tmp_path: Path) -> None:
    got = simulate_profile(HLQA, 1, patients=["adult#001"], controller=_LongActing(), exercise=False, seed=1)
    write_simulation(got.frame, tmp_path / "s", sample_time=5, params={}, faults=got.faults, meals=got.meals,
                     layout="healthloopqa")  # fmt: skip
    events = read(tmp_path / "s", "events")
    long = events[events["insulin_type"] == "long"]
    assert list(long["dosage"]) == [10.0]
    assert list(long["time"]) == [pd.Timestamp("2024-01-01 06:00")]
    assert "long_acting" not in simulate(["adult#001"], 1, seed=1).columns


def test_fault_magnitudes_on_the_5_min_grid() -> None:
    """Each sized fault moves the displayed reading by its magnitude on exactly its samples."""
    sensor = replace(Sensor.named("Dexcom"), sample_time=5)
    meals = np.zeros((1, 1440))
    plan = FaultPlan((
        FaultEvent(0, 300, 5, "positive_spike", magnitude=60.0),
        FaultEvent(0, 400, 60, "negative_bias", magnitude=32.0),
        FaultEvent(0, 600, 30, "min_reading", magnitude=70.0),
        FaultEvent(0, 800, 30, "max_reading", magnitude=250.0),
    ))  # fmt: skip
    df = simulate(["adult#001"], 1, sensor=sensor, meals=meals, seed=2, faults=plan)
    s = df[df["minute"] % 5 == 0].set_index("minute")
    shift = s["cgm"] - s["cgm_clean"]
    assert shift[300] == pytest.approx(60.0)
    assert shift[295] == 0.0
    assert shift[305] == 0.0
    assert np.allclose(shift.loc[400:455], -32.0)
    assert shift[395] == 0.0
    assert shift[460] == 0.0
    assert (s.loc[600:625, "cgm"] == 70.0).all()
    assert (s.loc[800:825, "cgm"] == 250.0).all()
    assert (s["label"] != "").sum() == 1 + 12 + 6 + 6


def test_cli_profile_run_and_errors(tmp_path: Path) -> None:
    cmd = [sys.executable, "-m", "wearbench", "cgm", "simulate", "--profile", "healthloopqa", "--days", "2",
           "--patients", "adult#001", "--faults", "random", "--seed", "42", "--controller", "basal-bolus",
           "--out", str(tmp_path / "c")]  # fmt: skip
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr
    assert "576 readings every 5 min (288 a day)" in res.stdout
    assert sorted(p.name for p in (tmp_path / "c").iterdir()) == sorted(
        [f"{n}.parquet" for n in FILES] + ["manifest.json"]
    )
    params = json.loads((tmp_path / "c" / "manifest.json").read_text())["params"]
    assert params["cohort"] == list(HLQA.cohort)
    assert params["profile"] == "healthloopqa"
    bad = subprocess.run([*cmd[:6], "healthloopq", *cmd[7:]], capture_output=True, text=True, timeout=300)
    assert bad.returncode != 0
    assert "did you mean 'healthloopqa'" in bad.stderr
    assert len(bad.stderr.strip().splitlines()) == 1
