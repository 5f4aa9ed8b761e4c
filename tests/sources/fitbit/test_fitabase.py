"""Fitabase loader: hand-checked real values, report counts, derivations and a malformed-input corpus."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wearbench import WearbenchError
from wearbench.cohort import Cohort
from wearbench.sources import ImportReport, import_source
from wearbench.sources.fitbit import resting_hr_from_seconds

EXPORT = "Fitabase Data 4.12.16-5.12.16"
ACTIVITY_HEAD = (
    "Id,ActivityDate,TotalSteps,TotalDistance,VeryActiveMinutes,FairlyActiveMinutes,"
    "LightlyActiveMinutes,SedentaryMinutes,Calories"
)


@pytest.fixture(scope="module")
def fitabase(shared_data: Path) -> tuple[Cohort, ImportReport]:
    return import_source("fitabase", shared_data / "fitbit_fitabase")


def _day(cohort: Cohort, user: str, day: str) -> pd.Series:
    d = cohort.daily
    return d[(d["user_id"] == user) & (d["date"] == pd.Timestamp(day))].iloc[0]


# Hand-read from dailyActivity_merged.csv and sleepDay_merged.csv (user 1503960366):
#   4/12/2016: TotalSteps 13162, VeryActive 25 + FairlyActive 13, Calories 1985; sleep 327 asleep / 346 in bed
#   4/13/2016: TotalSteps 10735; sleep 384 / 407        4/17/2016: TotalSteps 9705; sleep 700 / 712
@pytest.mark.parametrize(
    ("day", "steps", "efficiency", "asleep"),
    [
        ("2016-04-12", 13162, 327 / 346 * 100, 327),  # 94.5087 %
        ("2016-04-13", 10735, 384 / 407 * 100, 384),  # 94.3489 %
        ("2016-04-17", 9705, 700 / 712 * 100, 700),  # 98.3146 %
    ],
)
def test_user_1503960366_steps_and_sleep_equal_the_csv(
    fitabase: tuple[Cohort, ImportReport], day: str, steps: int, efficiency: float, asleep: int
) -> None:
    row = _day(fitabase[0], "1503960366", day)
    assert row["steps"] == steps
    assert row["sleep_minutes"] == asleep
    assert row["sleep_efficiency"] == pytest.approx(efficiency, abs=1e-9)


def test_energy_and_exercise_derivations(fitabase: tuple[Cohort, ImportReport]) -> None:
    row = _day(fitabase[0], "1503960366", "2016-04-12")
    assert row["exercise_minutes"] == 25 + 13
    # minuteCaloriesNarrow: 0.7865 kcal/min at 1.0 MET (METs = 10) → BMR 0.7865 × 1440 = 1132.56 kcal
    assert row["bmr_kcal"] == pytest.approx(1132.56)
    assert row["active_kcal"] == pytest.approx(1985 - 1132.56)


def test_non_wear_day_is_missing(fitabase: tuple[Cohort, ImportReport]) -> None:
    # dailyActivity line 32: 1503960366,5/12/2016,0 steps,…,1440 sedentary, 0 kcal
    # (no sleep or heart rate that day either, so assembly drops the all-missing user-day)
    d = fitabase[0].daily
    assert d[(d["user_id"] == "1503960366") & (d["date"] == pd.Timestamp("2016-05-12"))].empty
    # 5/11 is this user's last full-export day: minute files hold 1260 of 1440 minutes, so the daily
    # totals (12770 steps in line 31) are partial → missing; the sleep night stays
    partial = _day(fitabase[0], "1503960366", "2016-05-11")
    assert np.isnan(partial["steps"])
    assert np.isnan(partial["active_kcal"])


def test_whole_dataset_report(fitabase: tuple[Cohort, ImportReport]) -> None:
    cohort, report = fitabase
    assert report.users == 33
    assert (report.first_date, report.last_date) == ("2016-04-12", "2016-05-12")
    assert report.rows_read["dailyActivity_merged.csv"] == 940
    assert report.rows_read["sleepDay_merged.csv"] == 413
    assert report.rows_read["minuteMETsNarrow_merged.zip"] == 1_325_580
    assert report.rows_read["heartrate_seconds_merged_8users_from_ihr.csv.gz"] == 1_329_145  # per the README
    assert report.repairs["sleepDay_merged.csv: exact duplicate row dropped"] == 3
    nonwear = "dailyActivity: non-wear day (0 steps, 1440 sedentary min): activity metrics set missing"
    assert report.repairs[nonwear] == 72
    partial = "minute files: partial day (< 1440 minutes, e.g. the export's last): daily totals set missing"
    assert report.repairs[partial] == 31
    assert report.coverage["steps"] == pytest.approx(0.96, abs=0.01)
    assert 0.1 < report.coverage["resting_hr"] < 0.3  # 8 users have heart rate
    assert report.coverage["hrv"] == 0.0
    rhr = cohort.daily["resting_hr"].dropna()
    assert rhr.between(40, 90).all()
    assert cohort.demographics.set_index("user_id").loc["1503960366", "bmi"] == pytest.approx(22.65, abs=1e-4)


def test_resting_hr_derivation_lowest_30_min_mean() -> None:
    minutes = pd.date_range("2016-04-12", periods=1440, freq="min")
    hr = pd.Series(70.0, index=minutes)
    hr.iloc[120:150] = 50.0  # a 30-minute trough at 02:00
    assert resting_hr_from_seconds(hr) == 50.0
    assert np.isnan(resting_hr_from_seconds(hr.iloc[:700]))  # < 12 h of data


# ---------------------------------------------------------------- synthetic and malformed exports


def _export(tmp_path: Path, activity: str, **files: str) -> Path:
    folder = tmp_path / EXPORT
    folder.mkdir()
    (folder / "dailyActivity_merged.csv").write_text(activity, encoding="utf-8")
    for name, text in files.items():
        (folder / f"{name}.csv").write_text(text, encoding="utf-8")
    return tmp_path


GOOD = f"{ACTIVITY_HEAD}\n1,4/12/2016,5000,3.1,10,5,200,700,2100\n1,4/13/2016,6000,3.9,0,20,210,690,2200\n"


def test_truncated_csv_row_is_a_counted_rejection(tmp_path: Path) -> None:
    cut = GOOD + "1,4/14/2016,70"  # file cut mid-row
    cohort, report = import_source("fitabase", _export(tmp_path, cut))
    kind = "dailyActivity_merged.csv: row with a missing or non-numeric value"
    assert report.rejections[kind] == 1
    assert "line 4" in report.examples[kind][0]
    assert cohort.daily["steps"].tolist() == [5000.0, 6000.0]


def test_wrong_header_is_one_line_error(tmp_path: Path) -> None:
    text = GOOD.replace("ActivityDate", "Day", 1)
    with pytest.raises(
        WearbenchError, match=r"dailyActivity_merged.csv: line 1: missing column\(s\) ActivityDate"
    ) as e:
        import_source("fitabase", _export(tmp_path, text))
    assert "\n" not in str(e.value)


def test_empty_file_is_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(WearbenchError, match=r"dailyActivity_merged\.csv: empty file"):
        import_source("fitabase", _export(tmp_path, ""))


def test_no_export_folder(tmp_path: Path) -> None:
    with pytest.raises(WearbenchError, match=r"no dailyActivity_merged\.csv"):
        import_source("fitabase", tmp_path)


def test_bad_date_and_duplicate_sleep_rows_are_counted(tmp_path: Path) -> None:
    activity = GOOD + "1,13/45/2016,100,0.1,0,0,10,1000,1500\n"
    sleep = (
        "Id,SleepDay,TotalSleepRecords,TotalMinutesAsleep,TotalTimeInBed\n"
        "1,4/12/2016 12:00:00 AM,1,400,450\n1,4/12/2016 12:00:00 AM,1,400,450\n"
    )
    cohort, report = import_source("fitabase", _export(tmp_path, activity, sleepDay_merged=sleep))
    assert report.rejections["dailyActivity_merged.csv: row with an unreadable ActivityDate"] == 1
    assert report.repairs["sleepDay_merged.csv: exact duplicate row dropped"] == 1
    assert cohort.daily["sleep_efficiency"].iloc[0] == pytest.approx(400 / 450 * 100)


def test_minute_sleep_gives_bedtime_regularity(tmp_path: Path) -> None:
    lines = ["Id,date,value,logId"]
    onsets = ["4/11/2016 10:00:00 PM", "4/12/2016 11:00:00 PM", "4/13/2016 10:30:00 PM"]
    for i, onset in enumerate(onsets):
        start = pd.Timestamp(onset)
        for k in range(480):  # 8 h asleep
            t = (start + pd.Timedelta(minutes=k)).strftime("%-m/%-d/%Y %-I:%M:%S %p")
            lines.append(f"1,{t},1,{100 + i}")
    activity = GOOD + "1,4/14/2016,6000,3.9,0,20,210,690,2200\n"
    cohort, report = import_source(
        "fitabase", _export(tmp_path, activity, minuteSleep_merged="\n".join(lines))
    )
    got = cohort.daily.set_index("date")["bedtime_regularity"]
    # onsets 600, 660, 630 min after noon → SD (ddof 1) = 30 min on the third wake date (4/14)
    assert got[pd.Timestamp("2016-04-14")] == pytest.approx(30.0)
    assert report.rows_read["minuteSleep_merged.csv"] == 1440


def test_heart_rate_out_of_range_is_rejected(tmp_path: Path) -> None:
    hr = "Id,Time,Value\n1,4/12/2016 7:21:00 AM,97\n1,4/12/2016 7:21:05 AM,300\n"
    _, report = import_source("fitabase", _export(tmp_path, GOOD, heartrate_seconds_merged=hr))
    kind = "heartrate_seconds_merged.csv: heart rate outside 1–250 bpm"
    assert report.rejections[kind] == 1
    assert "line 3" in report.examples[kind][0]


def test_export_folder_itself_is_accepted(tmp_path: Path) -> None:
    cohort, report = import_source("fitabase", _export(tmp_path, GOOD) / EXPORT)
    assert cohort.daily["exercise_minutes"].tolist() == [15.0, 20.0]
    assert report.rows_read["dailyActivity_merged.csv"] == 2
