"""The drop policy of ``read_cgm`` for a CGM folder: NaN and out-of-range readings dropped, counted."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wearbench._errors import WearbenchError
from wearbench.cgm import CGMData, metrics_table, read_cgm, screen_readings, write_cgm_tables
from wearbench.sim import simulate, write_simulation
from wearbench.sim.faults import random_fault_plan

NAN = float("nan")


def hand_folder(out: Path) -> Path:
    t = pd.date_range("2024-01-01", periods=9, freq="5min")
    rows = {
        # 2 NaN (missing); 0, 9.99 and 1000.5 outside 10–1000 mg/dL; 10 and 1000 are inside (inclusive).
        "p": [100.0, NAN, 0.0, 120.0, 9.99, 10.0, 1000.0, 1000.5, NAN],
        "q": [NAN, NAN, NAN],  # signal missing all along
        "r": [90.0, 91.0, 92.0],
    }
    frame = pd.concat(
        [pd.DataFrame({"subject_id": s, "time": t[: len(g)], "glucose": g}) for s, g in rows.items()]
    )
    write_cgm_tables(frame, None, out)
    return out


def test_hand_built_folder_drops_and_counts(tmp_path: Path) -> None:
    data = read_cgm(hand_folder(tmp_path))
    assert data.dropped is not None
    assert data.dropped.to_dict("list") == {
        "subject_id": ["p", "q", "r"],
        "dropped_missing": [2, 3, 0],
        "dropped_out_of_range": [3, 0, 0],
    }
    assert data.readings["glucose"].tolist() == [100.0, 120.0, 10.0, 1000.0, 90.0, 91.0, 92.0]
    table = metrics_table(data).set_index("subject_id")
    assert table.index.tolist() == ["p", "q", "r"]  # q keeps its row, with no readings left
    assert table["n_readings"].tolist() == [4, 0, 3]
    assert table.loc["p", "mean"] == (100.0 + 120.0 + 10.0 + 1000.0) / 4
    assert table["mean"].isna().tolist() == [False, True, False]
    assert table["dropped_missing"].tolist() == [2, 3, 0]
    assert table["dropped_out_of_range"].tolist() == [3, 0, 0]


def test_error_policy_and_unscreened_data_raise_one_line(tmp_path: Path) -> None:
    folder = hand_folder(tmp_path)
    with pytest.raises(
        WearbenchError, match=r"readings\.parquet: glucose nan mg/dL at 2024-01-01 00:05:00 \(subject p\)"
    ):
        read_cgm(folder, invalid="error")
    raw = pd.read_parquet(folder / "readings.parquet")
    with pytest.raises(WearbenchError, match=r"^subject p: CGM metrics: glucose nan mg/dL"):
        metrics_table(CGMData(raw))  # built in memory: nothing screened it
    kept, counts = screen_readings(raw, "raw")
    assert len(kept) == 7
    assert counts["dropped_out_of_range"].sum() == 3
    with pytest.raises(WearbenchError, match="valid policies are 'drop' and 'error'"):
        read_cgm(folder, invalid="skip")  # type: ignore[arg-type]


def _samples_in(faults: pd.DataFrame, label: str, sample_minutes: int) -> int:
    """Sensor samples (every ``sample_minutes`` from midnight) inside the intervals of ``label``."""
    n = 0
    for start, end in faults.loc[faults["label"] == label, ["start", "end"]].itertuples(index=False):
        minutes = pd.date_range(start, end, freq="1min", inclusive="left")
        n += int(((minutes.hour * 60 + minutes.minute) % sample_minutes == 0).sum())
    return n


@pytest.fixture(scope="module")
def faulty_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """``wearbench cgm simulate --patients adult#001 --days 2 --faults random --seed 3`` via the API."""
    plan = random_fault_plan(1, 2, seed=3)
    frame = simulate(["adult#001"], 2, seed=3, faults=plan)
    out = tmp_path_factory.mktemp("sim") / "faulty"
    write_simulation(frame, out, sample_time=3, params={"seed": 3}, faults=plan)
    return out


def test_simulated_faulty_folder(faulty_folder: Path) -> None:
    faults = pd.read_parquet(faulty_folder / "faults.parquet")
    # Dexcom samples every 3 min: missing_signal 16:24–17:03 on day 1 is 39 / 3 = 13 samples of NaN,
    # zero_reading 05:57–06:45 on day 2 is 48 / 3 = 16 samples of 0 mg/dL.
    assert _samples_in(faults, "missing_signal", 3) == 13
    assert _samples_in(faults, "zero_reading", 3) == 16
    table = metrics_table(read_cgm(faulty_folder))
    row = table.iloc[0]
    assert row["subject_id"] == "adult#001"
    assert (row["dropped_missing"], row["dropped_out_of_range"]) == (13, 16)
    assert row["n_readings"] == 2 * 480 - 13 - 16
    g = pd.read_parquet(faulty_folder / "readings.parquet")["glucose"].to_numpy()
    kept = g[np.isfinite(g) & (g >= 10) & (g <= 1000)]
    assert row["mean"] == pytest.approx(kept.mean(), rel=1e-12)


def test_cli_metrics_json_and_text_report_the_drops(faulty_folder: Path) -> None:
    def run(*args: str) -> subprocess.CompletedProcess[str]:
        cmd = [sys.executable, "-m", "wearbench", "cgm", "metrics", str(faulty_folder), *args]
        return subprocess.run(cmd, capture_output=True, text=True, timeout=300)

    res = run("--format", "json")
    assert res.returncode == 0, res.stderr
    rows = json.loads(res.stdout)
    assert [
        (r["subject_id"], r["dropped_missing"], r["dropped_out_of_range"], r["n_readings"]) for r in rows
    ] == [("adult#001", 13, 16, 931)]
    text = run()
    assert text.returncode == 0, text.stderr
    assert "dropped 13 missing (NaN) and 16 out-of-range" in text.stdout
    error = run("--invalid", "error")
    assert error.returncode != 0
    assert "is missing or outside 10–1000 (29 such reading(s))" in error.stderr
    assert len(error.stderr.strip().splitlines()) == 1
