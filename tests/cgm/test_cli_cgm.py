"""wearbench cgm import / simulate / metrics through the real entry point."""

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wearbench", "cgm", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_simulate_writes_a_cgm_dataset(tmp_path: Path) -> None:
    meals = tmp_path / "meals.csv"
    meals.write_text("minute,carbs_g\n420,45\n720,70\n1080,80\n")
    patients = "adult#001..adult#002,child#001"
    res = run("simulate", "--patients", patients, "--days", "1", "--sensor", "GuardianRT",
              "--meals", meals, "--seed", "3", "--out", tmp_path / "sim")  # fmt: skip
    assert res.returncode == 0, res.stderr
    readings = pd.read_parquet(tmp_path / "sim" / "readings.parquet")
    truth = pd.read_parquet(tmp_path / "sim" / "truth.parquet")
    assert len(readings) == 3 * 1440 // 5  # GuardianRT samples every 5 min
    assert sorted(readings["subject_id"].unique()) == ["adult#001", "adult#002", "child#001"]
    assert (readings["glucose"].to_numpy() == truth["cgm"].to_numpy()).all()
    assert (readings["glucose"] != truth["true_bg"]).mean() > 0.9  # sensor noise: the sensor is not the truth
    events = pd.read_parquet(tmp_path / "sim" / "events.parquet")
    carbs = events[events["kind"] == "carbs"]
    assert carbs.groupby("subject_id")["value"].sum().tolist() == [195.0, 195.0, 195.0]
    assert carbs["detail"].tolist()[:3] == ["breakfast", "lunch", "dinner"]  # 07:00, 12:00, 18:00
    boluses = events[events["kind"] == "bolus"]
    assert len(boluses) == 9  # one carb-counted bolus per meal and patient
    assert (events[events["kind"] == "basal"]["unit"] == "U").all()
    manifest = json.loads((tmp_path / "sim" / "manifest.json").read_text())
    assert set(manifest["files"]) == {"readings.parquet", "truth.parquet", "events.parquet"}


def test_bad_simulate_input_is_one_line(tmp_path: Path) -> None:
    for args, message in [
        (("--patients", "adult#0001"), "did you mean"),
        (("--patients", "adult#003..adult#001"), "a range is GROUP#NNN..GROUP#MMM"),
        (("--faults", "nonsense"), "not 'none', 'random' or an existing CSV file"),
    ]:
        res = run("simulate", *args, "--days", "1", "--out", tmp_path / "x")
        assert res.returncode != 0
        assert message in res.stderr, res.stderr
        assert len(res.stderr.strip().splitlines()) == 1


def test_import_then_metrics(shared_data: Path, tmp_path: Path) -> None:
    res = run(
        "import",
        "dexcom-clarity",
        shared_data / "cgm_dexcom_clarity" / "test_file.csv",
        "--out",
        tmp_path / "c",
    )
    assert res.returncode == 0, res.stderr
    assert "1 subject(s), 2148 reading(s)" in res.stdout
    metrics = run("metrics", tmp_path / "c", "--format", "json")
    assert metrics.returncode == 0, metrics.stderr
    rows = json.loads(metrics.stdout)
    assert len(rows) == 1


def test_simulate_with_exercise_writes_sessions(tmp_path: Path) -> None:
    res = run("simulate", "--patients", "adult#001", "--days", "7", "--exercise", "random", "--seed", "2",
              "--out", tmp_path / "sim")  # fmt: skip
    assert res.returncode == 0, res.stderr
    events = pd.read_parquet(tmp_path / "sim" / "events.parquet")
    sessions = events[events["kind"] == "exercise"]
    assert len(sessions) >= 1
    assert sessions["unit"].eq("min").all()
    assert sessions["detail"].str.match(r"^(running|cycling)@0\.\d\d$").all()
    assert ((sessions["value"] >= 20) & (sessions["value"] <= 60)).all()
