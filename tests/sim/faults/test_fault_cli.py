"""``wearbench cgm simulate --faults none|random|PATH.csv`` through the real entry point."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

pytest.importorskip("simglucose")


def simulate(*args: str | Path) -> subprocess.CompletedProcess[str]:
    cmd = [sys.executable, "-m", "wearbench", "cgm", "simulate", "--days", "1", *map(str, args)]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def test_random_faults_cli(tmp_path: Path) -> None:
    res = simulate("--patients", "adult#001", "--faults", "random", "--out", tmp_path / "r")
    assert res.returncode == 0, res.stderr
    assert "injected 18 fault interval(s)" in res.stdout
    faults = pd.read_parquet(tmp_path / "r" / "faults.parquet")
    assert faults["label"].nunique() == 18
    labels = pd.read_parquet(tmp_path / "r" / "labels.parquet")
    assert set(labels["label"]) - {""} == set(faults["label"])
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert manifest["params"]["faults"] == "random"
    assert "faults.parquet" in manifest["files"]


def test_csv_faults_cli(tmp_path: Path) -> None:
    plan = tmp_path / "plan.csv"
    plan.write_text("patient,start,duration,label,intensity\nadult#001,300,60,zero_reading,1\n")
    res = simulate("--patients", "adult#001", "--faults", plan, "--out", tmp_path / "c")
    assert res.returncode == 0, res.stderr
    readings = pd.read_parquet(tmp_path / "c" / "readings.parquet")
    minute = (readings["time"] - pd.Timestamp("2024-01-01")) // pd.Timedelta(minutes=1)
    assert (readings.loc[(minute >= 300) & (minute < 360), "glucose"] == 0.0).all()
    assert (readings.loc[minute < 300, "glucose"] > 0.0).all()


def test_bad_faults_csv_is_one_line(tmp_path: Path) -> None:
    plan = tmp_path / "plan.csv"
    plan.write_text("start,duration,label\n300,60,zero_readng\n")
    res = simulate("--patients", "adult#001", "--faults", plan, "--out", tmp_path / "c")
    assert res.returncode != 0
    assert "line 2: column label" in res.stderr
    assert len(res.stderr.strip().splitlines()) == 1
