"""garmin-uom loader on the real T1D-UOM Garmin files: hand-checked values, report, time zones."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wearbench.cohort import Cohort
from wearbench.sources import ImportLog, ImportReport, import_source
from wearbench.sources.garmin._uom_monitor import local_times

UOM = "t1d_uom"


@pytest.fixture(scope="module")
def uom(shared_data: Path) -> tuple[Cohort, ImportReport]:
    return import_source("garmin-uom", shared_data / UOM)


def _day(cohort: Cohort, user: str, day: str) -> pd.Series:
    d = cohort.daily
    return d[(d["user_id"] == user) & (d["date"] == pd.Timestamp(day))].iloc[0]


def test_whole_wearable_part_loads(uom: tuple[Cohort, ImportReport]) -> None:
    cohort, report = uom
    # 13 epoch files, 14 sleep-summary files, 12 monitoring files; 2312 and 2315 only have sleep summaries
    assert cohort.n_users == 15
    assert sorted(cohort.daily["user_id"].unique())[:3] == ["2301", "2302", "2303"]
    assert report.first_date == "2023-10-01"
    assert report.last_date == "2024-06-29"
    assert report.rows_read["UoMActivity2301.csv"] == 10203  # 10204 lines - header
    assert report.rows_read["UoMsleep2301.csv"] == 24193
    assert report.rows_read["UoM2301sleeptime.csv"] == 87
    have = {m for m, c in report.coverage.items() if c > 0}
    assert have == {
        "resting_hr", "steps", "active_kcal", "exercise_minutes", "sleep_minutes", "sleep_efficiency",
        "deep_sleep_pct", "rem_sleep_pct", "bedtime_regularity", "stress",
    }  # fmt: skip
    assert all(0.6 < report.coverage[m] < 0.85 for m in have)
    assert any("Nutrition" in n for n in report.notes)  # nutrition (with its year-2204 row) not read: said so


# Hand-read from Activity Data/UoMActivity2301.csv, rows with activity_ts 01/11/2023 (124 rows, all
# offset 0): Σ step_count = 7876, Σ active_Kcal = 489, Σ active_time_s of rows with 3 ≤ met ≤ 20 = 5575 s.
def test_hand_checked_activity_2301(uom: tuple[Cohort, ImportReport]) -> None:
    row = _day(uom[0], "2301", "2023-11-01")
    assert row["steps"] == 7876
    assert row["active_kcal"] == 489
    assert row["exercise_minutes"] == pytest.approx(92.9167, abs=1e-4)


# Sleep Data/UoMsleep2301.csv (UTC): resting_heart_rate 63 at 06/10/2023 23:00 = local 07/10 00:00
# (BST) → closes 6 Oct; 64 at 08/10 23:00 → 8 Oct; 65 on 09/10 (06:30, 10:30, 18:30, 23:00) → 9 Oct.
# Stress, local 6 Oct = UTC 06/10 00:00–22:55: 160 valid samples, mean 32.5 (awk-checked).
def test_hand_checked_monitoring_2301(uom: tuple[Cohort, ImportReport]) -> None:
    cohort = uom[0]
    assert _day(cohort, "2301", "2023-10-06")["resting_hr"] == 63
    assert _day(cohort, "2301", "2023-10-08")["resting_hr"] == 64
    assert _day(cohort, "2301", "2023-10-09")["resting_hr"] == 65
    assert _day(cohort, "2301", "2023-10-06")["stress"] == pytest.approx(32.5)


# Sleep Data/UoM2301sleeptime.csv line 2: calendar_date 02/10/2023, duration_in_sec 33840,
# deep 4620, light 21480, REM 7740, awake 2340 s.
def test_hand_checked_night_2301(uom: tuple[Cohort, ImportReport]) -> None:
    row = _day(uom[0], "2301", "2023-10-02")
    assert row["sleep_minutes"] == 564
    assert row["sleep_efficiency"] == pytest.approx(33840 / (33840 + 2340) * 100)
    assert row["deep_sleep_pct"] == pytest.approx(4620 / 33840 * 100)
    assert row["rem_sleep_pct"] == pytest.approx(7740 / 33840 * 100)


def test_report_counts_codes_and_repairs(uom: tuple[Cohort, ImportReport]) -> None:
    report = uom[1]
    rej = report.rejections
    assert rej["stress: Garmin code -1 (not enough data / off wrist), not a value"] == 45568
    assert rej["stress: Garmin code -2 (too much motion), not a value"] == 40721
    example = report.examples["stress: Garmin code -2 (too much motion), not a value"][0]
    assert example == "UoMsleep2301.csv line 87: user 2301, 2023-10-06, stress_level_value = -2"
    # 2305's travel re-sends each epoch with a second UTC offset; other files hold a few exact copies
    assert (
        report.repairs["activity: epoch repeated (same start_time_s and activity_type): kept the first"]
        == 12789
    )
    assert report.repairs["sleep: several sleeps for one wake date: kept the best-validated"] == 6
    assert report.repairs["activity: epoch met > 20: implausible, not counted as exercise"] == 3381


def test_epoch_times_are_local(shared_data: Path) -> None:
    """activity_ts = start_time_s + start_time_offset_s for every row (so it is local time)."""
    a = pd.read_csv(shared_data / UOM / "Activity Data" / "UoMActivity2303.csv")
    local = pd.to_datetime(a["start_time_s"] + a["start_time_offset_s"], unit="s")
    assert (local == pd.to_datetime(a["activity_ts"], format="%d/%m/%Y %H:%M")).all()
    assert set(a["start_time_offset_s"]) == {28800}  # this participant was at UTC+8


def test_monitoring_utc_goes_local_with_nearest_offset() -> None:
    timeline = pd.DataFrame(
        {"utc": pd.to_datetime(["2023-10-17 00:00", "2023-10-30 00:00"]), "offset_s": [28800, 0]}
    )
    utc = pd.Series(pd.to_datetime(["2023-10-17 16:00", "2023-10-29 23:00", "2023-10-30 06:00"]))
    local = local_times(utc, timeline, "f", ImportLog())
    assert local.dt.strftime("%m-%d %H:%M").tolist() == ["10-18 00:00", "10-29 23:00", "10-30 06:00"]
    log = ImportLog()
    assert local_times(utc, None, "f.csv", log).equals(utc)
    assert log.notes == ["garmin-uom: f.csv: no epoch or sleep file with UTC offsets; times taken as UTC"]


def test_resting_hr_of_a_utc_plus_8_participant(uom: tuple[Cohort, ImportReport]) -> None:
    # UoMsleep2303.csv: 61 at 17/10 07:20 & 11:20 UTC, 60 at 17/10 16:00 UTC (= 18/10 00:00 local)
    # → 17 Oct = 60
    assert _day(uom[0], "2303", "2023-10-17")["resting_hr"] == 60
    d = uom[0].daily
    assert np.isfinite(d.loc[d["user_id"] == "2303", "resting_hr"]).sum() >= 50
