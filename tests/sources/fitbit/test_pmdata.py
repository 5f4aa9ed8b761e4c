"""PMData loader: hand-checked real values, report counts and a malformed-JSON corpus."""

import json
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from wearbench import WearbenchError
from wearbench.cohort import Cohort
from wearbench.sources import ImportReport, import_source
from wearbench.sources.fitbit import read_xlsx_rows


@pytest.fixture(scope="module")
def pmdata(shared_data: Path) -> tuple[Cohort, ImportReport]:
    return import_source("pmdata", shared_data / "pmdata")


def _day(cohort: Cohort, user: str, day: str) -> pd.Series:
    d = cohort.daily
    return d[(d["user_id"] == user) & (d["date"] == pd.Timestamp(day))].iloc[0]


def test_p01_resting_hr_equals_the_json(pmdata: tuple[Cohort, ImportReport]) -> None:
    # p01/fitbit/resting_heart_rate.json: {"dateTime": "2019-11-05 00:00:00", "value": {"date": "11/05/19",
    #   "value": 52.25911045074463, "error": 6.787136077880859}}
    assert _day(pmdata[0], "p01", "2019-11-05")["resting_hr"] == 52.25911045074463
    assert _day(pmdata[0], "p01", "2019-11-01")["resting_hr"] == 53.74107360839844


def test_p01_sleep_night_of_2019_11_02(pmdata: tuple[Cohort, ImportReport]) -> None:
    # sleep.json logId 24486013387, dateOfSleep 2019-11-02: minutesAsleep 378, timeInBed 430,
    # stages deep 36, light 259, rem 83 (Fitbit's own efficiency field says 97; we use asleep / in bed)
    row = _day(pmdata[0], "p01", "2019-11-02")
    assert row["sleep_minutes"] == 378
    assert row["sleep_efficiency"] == pytest.approx(378 / 430 * 100)
    assert row["deep_sleep_pct"] == pytest.approx(36 / 378 * 100)
    assert row["rem_sleep_pct"] == pytest.approx(83 / 378 * 100)


def test_p01_exercise_2019_11_01(pmdata: tuple[Cohort, ImportReport]) -> None:
    # exercise.json: Walk 14:56:32, 1,331,000 ms, HR 94, 192 kcal; 19:03:11, 2,202,000 ms, HR 94, 302 kcal;
    # p01's median reported weight is 100 kg → MET-h = 494 / 100
    row = _day(pmdata[0], "p01", "2019-11-01")
    assert row["exercise_count"] == 2
    assert row["exercise_minutes"] == pytest.approx((1_331_000 + 2_202_000) / 60_000)
    assert row["exercise_avg_hr"] == 94
    assert row["mets"] == pytest.approx(4.94)


def test_whole_dataset_report(pmdata: tuple[Cohort, ImportReport]) -> None:
    cohort, report = pmdata
    assert report.users == 10
    assert (report.first_date, report.last_date) == ("2019-11-01", "2020-03-31")
    assert report.repairs["resting_heart_rate.json: value 0 (no data) set missing"] == 115
    assert report.repairs["sleep.json: repeated record (same logId, overlapping export months) dropped"] == 44
    assert report.rejections["sleep.json: not the main sleep (nap): not used"] == 96
    for m in ("resting_hr", "sleep_minutes", "deep_sleep_pct", "bedtime_regularity", "exercise_count"):
        assert report.coverage[m] > 0.5
    assert report.coverage["hrv"] == 0.0
    demo = cohort.demographics.set_index("user_id")
    assert demo.loc["p01", "age"] == 48  # overview row: p01, 48, 195 cm, male
    assert demo.loc["p01", "sex"] == "M"
    assert demo.loc["p04", "sex"] == "F"
    assert demo.loc["p01", "bmi"] == pytest.approx(100 / 1.95**2)


def test_xlsx_reader_reads_the_overview(shared_data: Path) -> None:
    rows = read_xlsx_rows(shared_data / "pmdata" / "participant-overview.xlsx")
    assert rows[1][:4] == ["Participant ID", "Age", "Height", "Gender"]
    assert rows[2][:4] == ["p01", "48", "195", "male"]


# ---------------------------------------------------------------- synthetic and malformed exports


def _person(tmp_path: Path, files: dict[str, Any]) -> Path:
    fitbit = tmp_path / "p01" / "fitbit"
    fitbit.mkdir(parents=True)
    for name, content in files.items():
        text = content if isinstance(content, str) else json.dumps(content)
        (fitbit / name).write_text(text, encoding="utf-8")
    return tmp_path


def _rhr(day: str, value: Any) -> dict[str, Any]:
    return {"dateTime": f"{day} 00:00:00", "value": {"date": "x", "value": value, "error": 6.8}}


def test_zero_resting_hr_is_a_counted_repair_and_overview_csv(tmp_path: Path) -> None:
    root = _person(tmp_path, {"resting_heart_rate.json": [_rhr("2019-11-01", 55.5), _rhr("2019-11-02", 0)]})
    (root / "participant-overview.csv").write_text("Participant ID,Age,Height,Gender\np01,30,180,female\n")
    cohort, report = import_source("pmdata", root)
    assert report.repairs["resting_heart_rate.json: value 0 (no data) set missing"] == 1
    assert cohort.daily["resting_hr"].tolist() == [
        55.5
    ]  # the 0-day has nothing left, so it is not a user-day
    assert cohort.demographics.iloc[0]["sex"] == "F"
    assert np.isnan(cohort.demographics.iloc[0]["bmi"])  # no weight reported


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            '[{"dateTime": "2019-11-01 00:00:00", "value": {"va',
            r"resting_heart_rate.json: line 1, column \d+",
        ),
        ('{"dateTime": "2019-11-01"}', "expected a JSON list of records, found dict"),
        ("", "resting_heart_rate.json: empty file"),
    ],
)
def test_malformed_json_is_one_line_error(tmp_path: Path, text: str, message: str) -> None:
    root = _person(tmp_path, {"resting_heart_rate.json": text})
    with pytest.raises(WearbenchError, match=message) as e:
        import_source("pmdata", root)
    assert "\n" not in str(e.value)
    assert "p01/fitbit/resting_heart_rate.json" in str(e.value)


def test_minute_steps_summed_and_bad_minutes_counted(tmp_path: Path) -> None:
    steps = [
        {"dateTime": "2019-11-01 08:00:00", "value": "120"},
        {"dateTime": "2019-11-01 08:01:00", "value": "80"},
        {"dateTime": "2019-11-01 08:02:00", "value": "x"},
        {"dateTime": "2019-11-02 09:00:00", "value": "10"},
    ]
    sedentary = [
        {"dateTime": "2019-11-01 00:00:00", "value": "900"},
        {"dateTime": "2019-11-02 00:00:00", "value": "1440"},
    ]
    cohort, report = import_source(
        "pmdata", _person(tmp_path, {"steps.json": steps, "sedentary_minutes.json": sedentary})
    )
    assert report.rejections["steps.json: unreadable minute record"] == 1
    assert (
        report.repairs["steps.json: minutes on a non-wear day (1440 sedentary min): steps set missing"] == 1
    )
    day1 = cohort.daily.iloc[0]
    assert day1["steps"] == 200
    assert day1["exercise_count"] == 0
    assert day1["exercise_minutes"] == 0


@pytest.mark.parametrize(
    ("record", "kind", "example"),
    [
        (
            '{"dateTime": "2019-11-02 00:00:00"}',
            "resting_heart_rate.json: record not an object or missing a field, rejected",
            "p01/fitbit/resting_heart_rate.json: record 1: missing field(s) value",
        ),
        (
            '{"dateTime": "2019-11-02 00:00:00", "value": 5}',
            "resting_heart_rate.json: unreadable record, rejected",
            "p01/fitbit/resting_heart_rate.json: record 1: expected value to be an object with 'value', "
            "found 5 (user p01, date 2019-11-02 00:00:00)",
        ),
        (
            '{"dateTime": "2019-11-02 00:00:00", "value": {"value": "abc"}}',
            "resting_heart_rate.json: unreadable record, rejected",
            "p01/fitbit/resting_heart_rate.json: record 1, value.value: expected a number, found 'abc' "
            "(user p01, date 2019-11-02 00:00:00)",
        ),
        (
            '{"dateTime": "not a date", "value": {"value": 50}}',
            "resting_heart_rate.json: unreadable record, rejected",
            "p01/fitbit/resting_heart_rate.json: record 1, dateTime: unreadable time 'not a date' "
            "(user p01, date not a date)",
        ),
    ],
)
def test_one_bad_record_is_a_counted_rejection(tmp_path: Path, record: str, kind: str, example: str) -> None:
    first, last = json.dumps(_rhr("2019-11-01", 55.5)), json.dumps(_rhr("2019-11-03", 57.0))
    text = f"[{first}, {record}, {last}]"  # the bad record sits between two good ones
    cohort, report = import_source("pmdata", _person(tmp_path, {"resting_heart_rate.json": text}))
    assert report.rejections[kind] == 1
    assert report.examples[kind] == [example]
    assert cohort.daily["resting_hr"].tolist() == [55.5, 57.0]


def test_exercise_wrong_field_type_is_a_counted_rejection(tmp_path: Path) -> None:
    sessions = [
        {"startTime": "2019-11-01 10:00:00", "duration": "long"},
        {"startTime": "2019-11-01 18:00:00", "duration": 1_800_000, "averageHeartRate": 120},
    ]
    cohort, report = import_source("pmdata", _person(tmp_path, {"exercise.json": sessions}))
    kind = "exercise.json: unreadable record, rejected"
    assert report.rejections[kind] == 1
    assert report.examples[kind] == [
        "p01/fitbit/exercise.json: record 0, duration: expected a number, found 'long' "
        "(user p01, date 2019-11-01 10:00:00)"
    ]
    row = cohort.daily.iloc[0]
    assert (row["exercise_count"], row["exercise_minutes"], row["exercise_avg_hr"]) == (1, 30, 120)


def test_real_p01_with_one_non_numeric_record(shared_data: Path, tmp_path: Path) -> None:
    """Real PMData p01 with record 4 (2019-11-05, 52.259 bpm) set to "n/a": one counted rejection."""
    fitbit = tmp_path / "p01" / "fitbit"
    fitbit.mkdir(parents=True)
    source = shared_data / "pmdata" / "p01" / "fitbit"
    for name in ("resting_heart_rate.json", "sleep.json"):
        (fitbit / name).write_bytes((source / name).read_bytes())
    rhr = json.loads((fitbit / "resting_heart_rate.json").read_text())
    assert rhr[4]["dateTime"] == "2019-11-05 00:00:00"
    rhr[4]["value"]["value"] = "n/a"
    (fitbit / "resting_heart_rate.json").write_text(json.dumps(rhr))
    cohort, report = import_source("pmdata", tmp_path)
    kind = "resting_heart_rate.json: unreadable record, rejected"
    assert report.rejections[kind] == 1
    assert report.examples[kind] == [
        "p01/fitbit/resting_heart_rate.json: record 4, value.value: expected a number, found 'n/a' "
        "(user p01, date 2019-11-05 00:00:00)"
    ]
    assert report.rows_read["resting_heart_rate.json"] == 152
    assert np.isnan(_day(cohort, "p01", "2019-11-05")["resting_hr"])  # the night's sleep keeps the day
    assert _day(cohort, "p01", "2019-11-01")["resting_hr"] == 53.74107360839844
    assert _day(cohort, "p01", "2019-11-02")["sleep_minutes"] == 378
