"""The ``whoop`` loader on the real WHOOP export and on small hand-made exports."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wearbench import WearbenchError
from wearbench.sources import ImportLog, import_source
from wearbench.sources.whoop import load_whoop, parse_zone

HEADER = (
    "Cycle start time,Cycle end time,Cycle timezone,Resting heart rate (bpm),Heart rate variability (ms),"
    "Sleep onset,Wake onset,Asleep duration (min),Deep (SWS) duration (min),REM duration (min),"
    "Sleep efficiency %"
)

NY_NIGHT = (
    "2024-01-10 23:00:00,2024-01-12 00:30:00,UTC-05:00,50,60,"
    "2024-01-10 23:00:00,2024-01-11 07:00:00,420,84,105,90"
)


def _row(cohort_daily: pd.DataFrame, day: str) -> pd.Series:
    rows = cohort_daily[cohort_daily["date"] == pd.Timestamp(day)]
    assert len(rows) == 1
    return rows.iloc[0]


@pytest.fixture(scope="module")
def real(shared_data: Path) -> tuple[pd.DataFrame, dict[str, object]]:
    cohort, report = import_source("whoop", shared_data / "whoop")
    return cohort.daily, report.to_dict()


def test_real_export_loads(real: tuple[pd.DataFrame, dict[str, object]]) -> None:
    daily, report = real
    assert report["users"] == 1
    assert report["days"] == 49  # 51 cycles; 2024-10-02 (partial first day) and 2024-10-07 have no sleep
    assert (report["first_date"], report["last_date"]) == ("2024-10-03", "2024-11-21")
    assert report["rows_read"] == {"physiological_cycles.csv": 51}
    kind = "whoop: cycle without sleep or recovery data, rejected"
    assert report["rejections"] == {kind: 2}
    assert report["examples"][kind] == [  # type: ignore[index]
        "physiological_cycles.csv line 52, user whoop, 2024-10-02",  # cycles in time order
        "physiological_cycles.csv line 47, user whoop, 2024-10-07",
    ]
    assert daily["user_id"].unique().tolist() == ["whoop"]
    assert daily["active_kcal"].isna().all()  # "Energy burned (cal)" is total energy, not mapped


def test_real_values_read_by_hand(real: tuple[pd.DataFrame, dict[str, object]]) -> None:
    daily, _ = real
    # CSV line 3: cycle 2024-11-20 00:40:13 → 2024-11-21 03:10:47 (UTC-05:00), woke 2024-11-20 09:08:45,
    # RHR 55, HRV 65, asleep 452, deep 94, REM 138, efficiency 89.
    d = _row(daily, "2024-11-20")
    assert (d.resting_hr, d.hrv, d.sleep_minutes, d.sleep_efficiency) == (55, 65, 452, 89)
    assert d.deep_sleep_pct == pytest.approx(100 * 94 / 452)  # 20.80 %
    assert d.rem_sleep_pct == pytest.approx(100 * 138 / 452)  # 30.53 %
    # Onsets 2024-11-14 … 2024-11-20 (04:00:27, 03:00:56, 03:29:09, 03:25:54, 04:02:24, 01:23:10,
    # 00:40:13) in minutes after the preceding noon:
    onsets = [
        960 + 27 / 60,
        900 + 56 / 60,
        929 + 9 / 60,
        925 + 54 / 60,
        962 + 24 / 60,
        803 + 10 / 60,
        760 + 13 / 60,
    ]
    assert d.bedtime_regularity == pytest.approx(np.std(onsets, ddof=1))  # 79.07 min
    # CSV line 20: the first cycle after the DST change, 2024-11-03 03:58:11 (UTC-05:00), woke 11:40:35;
    # RHR 74, HRV 33, asleep 406, deep 101, REM 167, efficiency 88.
    d = _row(daily, "2024-11-03")
    assert (d.resting_hr, d.hrv, d.sleep_minutes, d.sleep_efficiency) == (74, 33, 406, 88)
    assert d.deep_sleep_pct == pytest.approx(100 * 101 / 406)  # 24.88 %
    assert d.rem_sleep_pct == pytest.approx(100 * 167 / 406)  # 41.13 %


def test_real_cycle_starting_before_midnight_belongs_to_its_wake_date(
    real: tuple[pd.DataFrame, dict[str, object]],
) -> None:
    daily, _ = real
    # Line 12: sleep onset 2024-11-10 23:10:52, woke 2024-11-11 02:35:09, asleep 172 → 2024-11-11.
    assert _row(daily, "2024-11-11").sleep_minutes == 172
    # Line 13: onset 2024-11-10 01:30:45, woke 10:27:39, asleep 458 → 2024-11-10.
    assert _row(daily, "2024-11-10").sleep_minutes == 458


def test_real_dst_change_honours_each_rows_offset(real: tuple[pd.DataFrame, dict[str, object]]) -> None:
    # Line 21 ends 2024-11-03 04:58:11 at UTC-04:00; line 20 starts 03:58:11 at UTC-05:00: the same
    # instant, so every one of the 50 closed cycles meets the next one only if offsets are honoured.
    _, report = real
    assert any(n.startswith("whoop: 50 of 50 cycle ends meet") for n in report["notes"])  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("text", "hours"),
    [("UTC-05:00", -5), ("UTCZ", 0), ("GMT-5", -5), ("+01:00", 1), ("UTC+0530", 5.5), ("UTC", 0)],
)
def test_parse_zone_offsets(text: str, hours: float) -> None:
    zone = parse_zone(text)
    assert zone is not None
    assert zone.utcoffset(None) == pd.Timedelta(hours=hours)


def test_parse_zone_rejects_nonsense() -> None:
    assert parse_zone("Mars/Olympus") is None
    assert parse_zone("UTC+25:00") is None
    assert parse_zone("") is None
    assert parse_zone("Europe/London") is not None


def _export(tmp_path: Path, rows: list[str], workouts: str | None = None) -> Path:
    folder = tmp_path / "ana"
    folder.mkdir()
    (folder / "physiological_cycles.csv").write_text("\n".join([HEADER, *rows]) + "\n", encoding="utf-8")
    if workouts is not None:
        (folder / "workouts.csv").write_text(workouts, encoding="utf-8")
    return folder


def test_traveller_days_follow_local_wall_clock(tmp_path: Path) -> None:
    # Flies New York → Berlin: the second cycle's times are Berlin wall-clock (UTC+01:00).
    folder = _export(
        tmp_path,
        [
            NY_NIGHT,
            "2024-01-12 00:30:00,,UTC+01:00,52,58,2024-01-12 00:30:00,2024-01-12 08:00:00,400,80,100,91",
            "2024-01-13 01:00:00,,Mars/Olympus,52,58,2024-01-13 01:00:00,2024-01-13 08:00:00,400,80,100,91",
        ],
    )
    log = ImportLog()
    daily = load_whoop(folder, log).daily
    assert daily["date"].dt.strftime("%Y-%m-%d").tolist() == ["2024-01-11", "2024-01-12"]
    assert daily["user_id"].unique().tolist() == ["ana"]
    assert daily["deep_sleep_pct"].tolist() == pytest.approx([20.0, 20.0])
    kind = "whoop: cycle with unreadable start time or timezone, rejected"
    assert log.rejections[kind] == 1
    assert "line 4" in log.examples[kind][0]
    assert "Mars/Olympus" in log.examples[kind][0]
    # 2024-01-12 00:30 Berlin = 2024-01-11 23:30 UTC; the first cycle ends 2024-01-12 05:30 UTC: no match.
    assert any(n.startswith("whoop: 0 of 1 cycle ends meet") for n in log.notes)


def test_workouts_give_daily_exercise(tmp_path: Path) -> None:
    workouts = (
        "Cycle start time,Cycle end time,Cycle timezone,Workout start time,Workout end time,Duration (min),"
        "Activity name,Activity Strain,Energy burned (cal),Max HR (bpm),Average HR (bpm)\n"
        "2024-01-10 23:00:00,,UTC-05:00,2024-01-11 17:00:00,2024-01-11 18:00:00,60,Running,9.5,520,175,140\n"
        "2024-01-10 23:00:00,,UTC-05:00,2024-01-11 19:00:00,2024-01-11 19:30:00,30,Yoga,2.0,90,110,110\n"
    )
    folder = _export(
        tmp_path,
        [
            NY_NIGHT,
            "2024-01-12 00:30:00,,UTC-05:00,52,58,2024-01-12 00:30:00,2024-01-12 08:00:00,400,80,100,91",
        ],
        workouts,
    )
    daily = load_whoop(folder / "physiological_cycles.csv", ImportLog()).daily.set_index("date")
    day = daily.loc[pd.Timestamp("2024-01-11")]
    assert (day.exercise_count, day.exercise_minutes) == (2, 90)
    assert day.exercise_avg_hr == pytest.approx((60 * 140 + 30 * 110) / 90)  # 130 bpm
    rest = daily.loc[pd.Timestamp("2024-01-12")]
    assert (rest.exercise_count, rest.exercise_minutes) == (0, 0)
    assert np.isnan(rest.exercise_avg_hr)


def test_non_numeric_cell_is_a_counted_repair(tmp_path: Path) -> None:
    folder = _export(
        tmp_path,
        ["2024-01-10 23:00:00,,UTC-05:00,fifty,60,2024-01-10 23:00:00,2024-01-11 07:00:00,420,84,105,90"],
    )
    log = ImportLog()
    daily = load_whoop(folder, log).daily
    assert np.isnan(daily["resting_hr"].iloc[0])
    assert daily["hrv"].iloc[0] == 60
    kind = "whoop: Resting heart rate (bpm): not a number, set missing"
    assert log.repairs[kind] == 1
    assert log.examples[kind] == [
        "physiological_cycles.csv line 2, user ana, column 'Resting heart rate (bpm)' = 'fifty'"
    ]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("", "file is empty"),
        ("Start,End,Zone\n2024-01-01,2024-01-02,UTC\n", "missing column 'Cycle start time'"),
        (HEADER.replace("Cycle timezone", "Cycle time zone") + "\n", "closest: 'Cycle time zone'"),
        (HEADER + '\n"2024-01-10 23:00:00,,UTC-05:00,50\n', "cannot read as CSV"),
    ],
)
def test_malformed_exports_fail_in_one_line(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "physiological_cycles.csv"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(WearbenchError, match=message) as info:
        import_source("whoop", path)
    assert str(path) in str(info.value)
    assert "\n" not in str(info.value)


def test_sleeps_file_is_not_a_cycles_file(tmp_path: Path) -> None:
    (tmp_path / "sleeps.csv").write_text(HEADER + "\n", encoding="utf-8")
    with pytest.raises(WearbenchError, match=r"pass physiological_cycles\.csv or the export folder"):
        import_source("whoop", tmp_path / "sleeps.csv")


def test_folder_without_cycles_file(tmp_path: Path) -> None:
    with pytest.raises(WearbenchError, match=r"no physiological_cycles\.csv in this folder"):
        import_source("whoop", tmp_path)
