"""``resample_cgm`` and ``cgm import --grid``: readings on the 5-minute clock grid, gaps kept."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wearbench._errors import WearbenchError
from wearbench.cgm import CGMData, check_readings, resample_cgm
from wearbench.cgm.sources import import_cgm

DAY = "2024-01-01 "
# (time, glucose) of subject "a", each line annotated with what the 5-minute grid does with it.
HAND = [
    ("00:00:00", 100.0),  # on the grid: 00:00 = 100 exactly
    ("00:04:00", 110.0),  # 1 min before 00:05; ties with the next: the earlier wins, 00:05 = 110
    ("00:06:00", 120.0),  # 1 min after 00:05: merged (not used)
    ("00:10:00", 130.0),  # 00:10 = 130
    ("00:11:00", 146.0),  # 1 min from 00:10, farther than 00:10:00: merged
    ("00:25:00", 160.0),  # 00:25; 00:15 and 00:20 interpolated over 00:11 → 00:25 (14 min ≤ 20)
    ("00:27:30", 170.0),  # exactly half-way: belongs to the later point, 00:30 = 170
    ("01:00:00", 200.0),  # 00:35 … 00:55 lie between readings 32.5 min apart: a gap of 5 points
    ("01:02:00", 202.0),  # 2 min from 01:00, which has an exact reading: merged
    ("01:14:00", 220.0),  # 01:15 = 220; 01:05 and 01:10 interpolated over 01:02 → 01:14 (12 min)
]
EXPECTED = {
    "00:00": 100.0,
    "00:05": 110.0,
    "00:10": 130.0,
    "00:15": 146.0 + 14.0 * 4 / 14,  # 150
    "00:20": 146.0 + 14.0 * 9 / 14,  # 155
    "00:25": 160.0,
    "00:30": 170.0,
    "01:00": 200.0,
    "01:05": 202.0 + 18.0 * 3 / 12,  # 206.5
    "01:10": 202.0 + 18.0 * 8 / 12,  # 214
    "01:15": 220.0,
}


def hand_data() -> CGMData:
    rows = [("a", pd.Timestamp(DAY + t), g) for t, g in HAND] + [("b", pd.Timestamp(DAY + "08:01:00"), 95.5)]
    frame = pd.DataFrame(rows[::-1], columns=["subject_id", "time", "glucose"])  # any order in
    return CGMData(check_readings(frame, "hand"), None, {"name": "hand"})


def test_hand_built_series_on_the_grid() -> None:
    out, report = resample_cgm(hand_data(), 5)
    a = out.readings[out.readings["subject_id"] == "a"]
    assert a["time"].dt.strftime("%H:%M").tolist() == list(EXPECTED)
    assert a["glucose"].tolist() == pytest.approx(list(EXPECTED.values()), rel=1e-14)
    on_reading = ["00:00", "00:05", "00:10", "00:25", "00:30", "01:00", "01:15"]
    exact = a[a["time"].dt.strftime("%H:%M").isin(on_reading)]
    assert exact["glucose"].tolist() == [100.0, 110.0, 130.0, 160.0, 170.0, 200.0, 220.0]  # kept exactly
    assert report["per_subject"]["a"] == {
        "readings": 10,
        "grid_points": 11,
        "from_reading": 7,
        "interpolated": 4,
        "merged": 3,
        "gaps": 1,
        "gap_points": 5,
    }
    b = out.readings[out.readings["subject_id"] == "b"]
    assert b["time"].tolist() == [pd.Timestamp(DAY + "08:00")]
    assert b["glucose"].tolist() == [95.5]
    assert report["readings"] == 11
    assert report["grid_points"] == 12
    assert report["minutes"] == 5
    assert out.source == {"name": "hand", "grid": {"minutes": 5, "max_gap_minutes": 20}}
    pd.testing.assert_frame_equal(out.readings, check_readings(out.readings, "grid"))  # canonical, no NaN


def test_max_gap_zero_interpolates_nothing_and_a_coarser_grid() -> None:
    _out, report = resample_cgm(hand_data(), 5, max_gap=0)
    a = report["per_subject"]["a"]
    assert (a["interpolated"], a["gaps"], a["gap_points"], a["grid_points"]) == (0, 3, 9, 7)
    coarse, rep15 = resample_cgm(hand_data(), 15)
    # 15-minute cells of ±7.5 min: 00:15 ← 00:11:00 (4 min; 00:10:00 is 5 min away), 00:30 ← 00:27:30
    # (2.5 min; 00:25:00 is 5 min away); 00:45 lies between readings 32.5 min apart: a gap of one point.
    got = dict(zip(coarse.readings["time"].dt.strftime("%H:%M"), coarse.readings["glucose"], strict=True))
    assert got == {"00:00": 100.0, "00:15": 146.0, "00:30": 170.0, "01:00": 200.0, "01:15": 220.0,
                   "08:00": 95.5}  # fmt: skip
    assert rep15["per_subject"]["a"]["gaps"] == 1
    assert rep15["per_subject"]["a"]["gap_points"] == 1


@pytest.mark.parametrize(("minutes", "max_gap"), [(7, 20), (0, 20), (2.5, 20), (5, -1)])
def test_bad_grid_is_one_line(minutes: float, max_gap: int) -> None:
    with pytest.raises(WearbenchError) as info:
        resample_cgm(hand_data(), minutes, max_gap=max_gap)  # type: ignore[arg-type]
    assert "\n" not in str(info.value)


def test_real_dexcom_export_288_a_full_day_gaps_kept(shared_data: Path) -> None:
    export = shared_data / "cgm_dexcom_clarity" / "test_file.csv"
    raw, _ = import_cgm("dexcom-clarity", export)
    data, report = import_cgm("dexcom-clarity", export, grid=5)
    r = data.readings
    assert (r["time"].dt.second == 0).all()
    assert (r["time"].dt.minute % 5 == 0).all()
    per_day = r.groupby(r["time"].dt.date).size()
    full = per_day[per_day.index.astype(str).isin(["2016-10-27", "2016-10-28", "2016-10-29"])]
    assert full.tolist() == [288, 288, 288]  # the three days without a gap
    assert per_day.max() == 288
    # The export's readings run about 4 min 10 s past the grid (11:24:10 …): each moves to the next
    # point, value unchanged.
    assert r["glucose"].tolist() == raw.readings["glucose"].tolist()
    shift = (r["time"] - raw.readings["time"]).dt.total_seconds()
    assert shift.between(0, 150).all()
    g = report["grid"]
    assert (g["readings"], g["grid_points"], g["merged"], g["interpolated"]) == (2148, 2148, 0, 0)
    # The two dropouts (400 and 270 min between readings) stay gaps: 79 + 53 absent points.
    assert (g["gaps"], g["gap_points"]) == (2, 132)
    steps = r["time"].diff().dt.total_seconds().div(60)
    assert sorted(steps[steps > 5].tolist()) == [270.0, 400.0]
    assert report["readings"] == 2148


def test_cli_import_grid(shared_data: Path, tmp_path: Path) -> None:
    export = shared_data / "cgm_dexcom_clarity" / "test_file.csv"
    res = subprocess.run(
        [sys.executable, "-m", "wearbench", "cgm", "import", "dexcom-clarity", str(export),
         "--out", str(tmp_path / "c"), "--grid", "5"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert "grid 5 min: 2148 reading(s) -> 2148 point(s)" in res.stdout
    assert "2 gap(s) of 132 point(s) kept as gaps" in res.stdout
    report = json.loads((tmp_path / "c" / "import_report.json").read_text())
    assert report["grid"]["max_gap_minutes"] == 20
    manifest = json.loads((tmp_path / "c" / "manifest.json").read_text())
    assert manifest["source"]["grid"] == {"minutes": 5, "max_gap_minutes": 20}
    readings = pd.read_parquet(tmp_path / "c" / "readings.parquet")
    assert not readings["glucose"].isna().any()
    assert np.all(readings["time"].dt.minute.to_numpy() % 5 == 0)
    bad = subprocess.run(
        [sys.executable, "-m", "wearbench", "cgm", "import", "dexcom-clarity", str(export),
         "--out", str(tmp_path / "d"), "--grid", "7"],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert bad.returncode != 0
    assert "whole divisor of 1440" in bad.stderr
    assert not (tmp_path / "d").exists()


def reference_grid(
    times: list[pd.Timestamp], values: list[float], minutes: int, max_gap: int
) -> dict[pd.Timestamp, float]:
    """The rule written point by point in plain Python (times sorted)."""
    period, half, limit = (
        pd.Timedelta(minutes=minutes),
        pd.Timedelta(minutes=minutes) / 2,
        pd.Timedelta(minutes=max_gap),
    )
    first = (times[0] + half).floor(period)
    last = (times[-1] + half).floor(period)
    out: dict[pd.Timestamp, float] = {}
    p = first
    while p <= last:
        near = [(abs(t - p), i) for i, t in enumerate(times) if p - half <= t < p + half]
        if near:
            out[p] = values[min(near)[1]]
        else:
            before = max(i for i, t in enumerate(times) if t < p)
            after = before + 1
            if times[after] - times[before] <= limit:
                w = (p - times[before]) / (times[after] - times[before])
                out[p] = values[before] + (values[after] - values[before]) * w
        p += period
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_matches_a_plain_python_reference(seed: int) -> None:
    rng = np.random.default_rng(seed)
    steps = rng.choice([1, 3, 5, 5, 5, 7, 15, 16, 40], size=200) * 60 + rng.integers(-40, 41, size=200)
    times = pd.Timestamp("2024-03-01 23:00:17") + pd.to_timedelta(np.cumsum(steps), unit="s")
    values = rng.uniform(40, 400, size=200).round(1)
    frame = pd.DataFrame({"subject_id": "s", "time": times, "glucose": values})
    for minutes, max_gap in ((5, 20), (5, 0), (15, 45)):
        out, _ = resample_cgm(CGMData(frame), minutes, max_gap=max_gap)
        expected = reference_grid(list(times), list(values), minutes, max_gap)
        assert out.readings["time"].tolist() == list(expected)
        assert out.readings["glucose"].to_numpy() == pytest.approx(list(expected.values()), rel=1e-12)
