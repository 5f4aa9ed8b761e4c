"""Re-simulating a simulated folder: bit-for-bit reproduction, refusals, counterfactual traces."""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

pytest.importorskip("simglucose")

from tests.cgmqa._pdrun import DAYS, PATIENTS, simulate_folder

from wearbench._errors import WearbenchError
from wearbench.cgmqa import PatientRecord, read_records, rerun_folder
from wearbench.sim import InsulinNow, MealNow, RunNow

DAY = 1440


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return simulate_folder(tmp_path_factory.mktemp("rerun") / "run")


@pytest.fixture(scope="module")
def records(folder: Path) -> list[PatientRecord]:
    return read_records(folder, rerun=True)


def test_the_rerun_reproduces_the_folder(records: list[PatientRecord]) -> None:
    assert [r.subject for r in records] == list(PATIENTS)
    for k, r in enumerate(records):
        assert r.rerun is not None
        assert (r.rerun.subject, r.rerun.patient, r.rerun.minutes) == (r.subject, k, DAYS * DAY)
        # a null event changes nothing: the trace is the folder's readings, to the bit
        at = DAY + 600
        trace = r.rerun.counterfactual(at, MealNow(0.0), 300)
        assert trace.first == at // 5
        assert trace.until == at + 300
        assert len(trace.cgm) == 61  # points at, at + 5, ..., at + 300
        assert np.array_equal(trace.cgm, r.bg[at // 5 : at // 5 + 61])
        assert trace.bg_at(at + 300) == r.bg[(at + 300) // 5]


def test_read_records_without_rerun_keeps_none(folder: Path) -> None:
    assert all(r.rerun is None for r in read_records(folder))


def test_an_event_changes_the_trace_after_now_only(records: list[PatientRecord]) -> None:
    r = records[0]
    assert r.rerun is not None
    at = 2 * DAY + 420  # day 3, 07:00
    run = r.rerun.counterfactual(at, RunNow(30, 8.0), 90)
    assert run.bg_at(at) == r.bg[at // 5]  # the reading at "now" is taken before the run acts
    later = r.bg[at // 5 + 1 : at // 5 + 19]
    assert not np.array_equal(run.between(at + 1, at + 90), later)
    # cached: the same request returns the same object; a shorter horizon reuses it
    assert r.rerun.counterfactual(at, RunNow(30, 8.0), 90) is run
    assert r.rerun.counterfactual(at, RunNow(30, 8.0), 45) is run


def test_between_and_bg_at_bounds(records: list[PatientRecord]) -> None:
    r = records[1]
    assert r.rerun is not None
    at = DAY + 603  # off the grid: the first point is 605
    trace = r.rerun.counterfactual(at, InsulinNow(1.0), 60)
    assert trace.first == 409  # minute 2045, the first grid minute after 2043
    assert len(trace.between(at, at + 60)) == 12  # 605 … 660
    assert len(trace.between(0, at + 1000)) == len(trace.cgm)
    with pytest.raises(WearbenchError, match="not a grid minute"):
        trace.bg_at(at)
    with pytest.raises(WearbenchError, match="does not fit the run"):
        r.rerun.counterfactual(DAYS * DAY - 30, InsulinNow(1.0), 60)


def test_a_window_has_no_rerun(records: list[PatientRecord]) -> None:
    assert records[0].window(2, 1).rerun is None


def test_changed_readings_cannot_be_re_simulated(folder: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad"
    shutil.copytree(folder, bad)
    readings = pd.read_parquet(bad / "readings.parquet")
    row = int(np.flatnonzero(readings["subject_id"] == "child#001")[10])
    readings.loc[row, "glucose"] += 1e-9
    readings.to_parquet(bad / "readings.parquet", index=False)
    with pytest.raises(WearbenchError) as err:
        read_records(bad, rerun=True)
    text = str(err.value)
    assert str(bad) in text
    assert "this folder cannot be re-simulated" in text
    assert "child#001" in text
    assert "minute 50" in text


def test_a_folder_not_simulated_with_a_profile_is_refused(folder: Path, tmp_path: Path) -> None:
    bad = tmp_path / "noprofile"
    shutil.copytree(folder, bad)
    manifest = json.loads((bad / "manifest.json").read_text())
    del manifest["params"]["profile"]
    (bad / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(WearbenchError, match="cannot be re-simulated: it was not simulated with a profile"):
        read_records(bad, rerun=True)
    manifest["params"]["profile"] = "healthloopqa"
    manifest["params"]["faults"] = str(tmp_path / "gone.csv")
    (bad / "manifest.json").write_text(json.dumps(manifest))
    with pytest.raises(WearbenchError, match=r"gone\.csv, which is not a file here"):
        read_records(bad, rerun=True)


def test_a_subject_outside_the_manifest_is_refused(folder: Path, records: list[PatientRecord]) -> None:
    with pytest.raises(WearbenchError, match="subject adult#001 is not among"):
        rerun_folder(folder, {"adult#001": records[0].bg})


def test_real_data_keeps_no_rerun(folder: Path, tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    shutil.copy(folder / "readings.parquet", real / "readings.parquet")
    records = read_records(real, rerun=True)
    assert [r.rerun for r in records] == [None, None]
    assert replace(records[0]).rerun is None
