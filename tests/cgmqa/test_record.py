"""Grid helpers, PatientRecord and read_records on hand-built arrays and folders."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from tests.cgmqa._records import meals_record, record

from wearbench import WearbenchError
from wearbench.cgmqa import (
    Exercise,
    Meal,
    clock_mask,
    day_of_week,
    day_points,
    days_points,
    long_runs,
    read_records,
    runs,
    to_intervals,
)
from wearbench.cgmqa._read import meal_type
from wearbench.cgmqa._series import (
    cv_percent,
    first_reading_from,
    last_reading_before,
    points_after,
    points_between,
)


def test_runs_and_interval_answers() -> None:
    mask = np.array([1, 1, 0, 0, 1, 0, 1, 1, 1], dtype=bool)
    assert runs(mask) == [(0, 1), (4, 4), (6, 8)]
    assert runs(np.zeros(4, dtype=bool)) == []
    assert runs(np.array([], dtype=bool)) == []
    assert runs(np.ones(3, dtype=bool)) == [(0, 2)]
    assert long_runs(runs(mask), 2) == [(0, 1), (6, 8)]
    # minutes = index x 5, both ends inclusive; a one-point run ends 1 minute after its start
    assert to_intervals(runs(mask)) == [
        {"start": 0, "end": 5},
        {"start": 20, "end": 21},
        {"start": 30, "end": 40},
    ]


def test_days_weeks_and_clock_windows() -> None:
    assert day_of_week(1, 1) == 1
    assert day_of_week(2, 3) == 10
    assert day_of_week(5, 2) == 30
    assert day_points(1) == slice(0, 288)
    assert day_points(30) == slice(8352, 8640)
    assert days_points(8, 14) == slice(2016, 4032)
    m = clock_mask(576, 14 * 60, 16 * 60)
    assert np.flatnonzero(m).tolist() == list(range(168, 192)) + list(range(456, 480))


def test_event_windows() -> None:
    # (481, 661]: the first point after 08:01 is 08:05 (97), the last 11:00 (132)
    assert points_after(481, 180) == slice(97, 133)
    # an event on the grid: the event's own point is not "after" it
    assert points_after(480, 60) == slice(97, 109)
    # [1000, 1023]: 16:40 (200) to 17:00 (204)
    assert points_between(1000, 1023) == slice(200, 205)
    bg = np.array([100.0, np.nan, 120.0, np.nan, np.nan, np.nan, np.nan, np.nan, np.nan, 90.0])
    assert last_reading_before(bg, 12) == 2  # point 2 (minute 10)
    assert last_reading_before(bg, 44, lookback=30) is None  # minute 10 is 34 min earlier
    assert first_reading_from(bg, 11) is None  # minute 45 is 34 min later: past the default 30
    assert first_reading_from(bg, 11, lookahead=40) == 9
    assert cv_percent(np.array([90.0, 110.0, np.nan])) == pytest.approx(10.0)
    assert cv_percent(np.array([np.nan])) is None


def test_record_days_events_and_window() -> None:
    r = meals_record()
    assert r.days == 2
    assert r.minutes == 2880
    assert [m.minute for m in r.meals_of(2)] == [1920, 2160, 2580]
    assert r.meals_of(1, "dinner") == [Meal(1140, 85, "dinner")]
    w = r.window(2, 1)
    assert w.days == 1
    assert w.start.day == 2
    assert w.bg[390 - 288] == 140
    assert w.bg[520 - 288] == 230
    assert [m.minute for m in w.meals or ()] == [480, 720, 1140]
    with pytest.raises(WearbenchError, match="not inside"):
        r.window(2, 2)


def test_record_refuses_partial_days_and_mismatched_arrays() -> None:
    with pytest.raises(WearbenchError, match="not whole days"):
        record(np.full(300, 100.0))
    with pytest.raises(WearbenchError, match="insulin has 10 points"):
        record(np.full(288, 100.0), insulin=np.zeros(10))


def test_exercise_end() -> None:
    assert Exercise(1000, 23, "cycling", 90).end == 1023


@pytest.mark.parametrize(
    ("detail", "minute", "expected"),
    [
        ("Lunch Huel+Peanutbutter", 1000, "lunch"),  # the keyword wins over the clock
        ("dinner Seabass+Veg", 600, "dinner"),
        ("Supper", 1200, "dinner"),
        ("Snack Banana", 1231, "afternoon_snack"),  # from noon
        ("Snack Banana", 600, "morning_snack"),
        ("", 8 * 60 + 59, "breakfast"),  # the clock: before 09:00
        ("toast", 1440 + 9 * 60, "morning_snack"),  # 09:00-11:30 of day 2
        ("", 12 * 60, "lunch"),
        ("", 15 * 60, "afternoon_snack"),
        ("", 17 * 60 + 30, "dinner"),
    ],
)
def test_meal_type_of_untyped_intakes(detail: str, minute: float, expected: str) -> None:
    assert meal_type(detail, minute) == expected


def _write(folder: Path, readings: pd.DataFrame, events: pd.DataFrame | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    readings.to_parquet(folder / "readings.parquet", index=False)
    if events is not None:
        events.to_parquet(folder / "events.parquet", index=False)
    return folder


def test_read_an_imported_folder_with_gaps_and_untyped_events(tmp_path: Path) -> None:
    t = pd.to_datetime(["2023-10-01 10:00", "2023-10-01 10:05", "2023-10-02 23:55"])
    readings = pd.DataFrame({"subject_id": ["7"] * 3, "time": t, "glucose": [100.0, 110.0, 90.0]})
    events = pd.DataFrame(
        {
            "subject_id": ["7", "7", "7", "7"],
            "time": pd.to_datetime(
                ["2023-10-01 12:31:30", "2023-10-01 13:00:00", "2023-10-01 13:10:00", "2023-09-30 00:00:00"]
            ),
            "kind": ["carbs", "carbs", "bolus", "bolus"],
            "value": [40.0, 0.0, 3.5, 1.0],
            "unit": ["g", "g", "U", "U"],
            "detail": ["Lunch pasta", "Coffee", "", ""],
        }
    )
    (r,) = read_records(_write(tmp_path / "imp", readings, events))
    assert r.subject == "7"
    assert r.days == 2
    assert str(r.start) == "2023-10-01 00:00:00"
    assert r.bg[120] == 100
    assert r.bg[121] == 110
    assert r.bg[575] == 90
    assert int(np.isnan(r.bg).sum()) == 576 - 3  # gaps are absent rows -> NaN points
    assert r.fault is None
    assert r.hazard is None
    assert r.insulin is None
    assert r.exercise is None
    # 0 g is not a meal; an event before day 1 is left out
    assert r.meals == (Meal(751.5, 40.0, "lunch"),)
    assert r.boluses is not None
    assert [(b.minute, b.dosage) for b in r.boluses] == [(790.0, 3.5)]


def test_read_refuses_off_grid_and_repeated_times(tmp_path: Path) -> None:
    off = pd.DataFrame(
        {
            "subject_id": ["a", "a"],
            "time": pd.to_datetime(["2024-01-01 00:00", "2024-01-01 00:07"]),
            "glucose": [1.0, 2.0],
        }
    )
    with pytest.raises(
        WearbenchError, match=r"readings\.parquet: subject a: column time: 2024-01-01 00:07:00"
    ):
        read_records(_write(tmp_path / "off", off))
    dup = off.assign(time=pd.to_datetime(["2024-01-01 00:05", "2024-01-01 00:05"]))
    with pytest.raises(
        WearbenchError, match="subject a: column time: 2024-01-01 00:05:00 appears more than once"
    ):
        read_records(_write(tmp_path / "dup", dup))


def test_read_names_the_file_and_the_missing_column(tmp_path: Path) -> None:
    with pytest.raises(WearbenchError, match=r"no readings\.parquet"):
        read_records(tmp_path)
    bad = pd.DataFrame({"subject_id": ["a"], "time": pd.to_datetime(["2024-01-01"]), "bg": [1.0]})
    with pytest.raises(WearbenchError, match=r"readings\.parquet: lacks column\(s\) glucose"):
        read_records(_write(tmp_path / "col", bad))
    good = bad.rename(columns={"bg": "glucose"})
    folder = _write(tmp_path / "lab", good)
    pd.DataFrame(
        {"subject_id": ["b"], "time": good["time"], "fault_label": [""], "hazard_label": [""]}
    ).to_parquet(folder / "labels.parquet")
    with pytest.raises(WearbenchError, match=r"labels\.parquet: subject\(s\) \['b'\] have no readings"):
        read_records(folder)
