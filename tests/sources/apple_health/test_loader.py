import math
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from wearbench import WearbenchError
from wearbench.sources import import_source

from ._xml import OTHER, PHONE, WATCH, export, rec, sleep


def _day(cohort_daily: pd.DataFrame, date: str) -> pd.Series:
    d = cohort_daily.set_index("date")
    return d.loc[pd.Timestamp(date)]


def test_iphone_and_watch_steps_are_not_double_counted(tmp_path: Path) -> None:
    z = " +0000"
    body = (
        rec("StepCount", "2024-01-01 10:00:00" + z, "2024-01-01 10:10:00" + z, "100")  # Watch: kept
        + rec("StepCount", "2024-01-01 12:00:00" + z, "2024-01-01 12:05:00" + z, "50")  # Watch: kept
        + rec("StepCount", "2024-01-01 10:00:00" + z, "2024-01-01 10:10:00" + z, "90", PHONE)  # dropped
        + rec("StepCount", "2024-01-01 11:55:00" + z, "2024-01-01 12:05:00" + z, "60", PHONE)  # half: 30
        + rec("StepCount", "2024-01-01 14:00:00" + z, "2024-01-01 14:10:00" + z, "25", PHONE)  # kept
        # 14 h from a third-party app; 30 of its 840 minutes are covered above → 500 * 810/840
        + rec("StepCount", "2024-01-01 09:00:00" + z, "2024-01-01 23:00:00" + z, "500", OTHER)
    )
    cohort, report = import_source("apple-health", export(tmp_path, body))
    expected = 100 + 50 + 30 + 25 + 500 * 810 / 840  # 687.14 → 687
    assert _day(cohort.daily, "2024-01-01")["steps"] == round(expected) == 687
    assert report.repairs["steps: sample overlapped by a better source, dropped"] == 1
    assert report.repairs["steps: sample overlapped by a better source, value split proportionally"] == 2
    assert report.examples["steps: sample overlapped by a better source, dropped"] == [
        "ann.xml line 7, user ann, 2024-01-01, steps = 90"
    ]


def test_local_day_follows_each_records_offset(tmp_path: Path) -> None:
    body = (
        rec(
            "RestingHeartRate",
            "2023-01-01 23:30:00 +0100",
            "2023-01-01 23:30:00 +0100",
            "50",
            unit="count/min",
        )
        # the same instant written in UTC is still 1 January
        + rec(
            "RestingHeartRate",
            "2023-01-01 22:30:00 +0000",
            "2023-01-01 22:30:00 +0000",
            "60",
            unit="count/min",
        )
        # 00:30 +0100 is 23:30 UTC on 1 January, but 2 January locally
        + rec(
            "RestingHeartRate",
            "2023-01-02 00:30:00 +0100",
            "2023-01-02 00:30:00 +0100",
            "70",
            unit="count/min",
        )
        # 23:50-00:10 local: 40 steps split 20/20 at local midnight
        + rec("StepCount", "2023-01-02 23:50:00 -0500", "2023-01-03 00:10:00 -0500", "40")
    )
    cohort, _ = import_source("apple-health", export(tmp_path, body))
    d = cohort.daily.set_index("date")
    assert d.loc["2023-01-01", "resting_hr"] == 55
    assert d.loc["2023-01-02", "resting_hr"] == 70
    assert d.loc["2023-01-02", "steps"] == 20
    assert d.loc["2023-01-03", "steps"] == 20


def test_ios16_sleep_stages(tmp_path: Path) -> None:
    z = " +0000"
    stages = [
        ("2024-03-01 23:00:00", "2024-03-01 23:20:00", "Awake"),  # 20
        ("2024-03-01 23:20:00", "2024-03-02 01:20:00", "AsleepCore"),  # 120
        ("2024-03-02 01:20:00", "2024-03-02 02:20:00", "AsleepDeep"),  # 60
        ("2024-03-02 02:20:00", "2024-03-02 03:20:00", "AsleepREM"),  # 60
        ("2024-03-02 03:20:00", "2024-03-02 06:20:00", "AsleepCore"),  # 180
        ("2024-03-02 06:20:00", "2024-03-02 06:40:00", "Awake"),  # 20
        ("2024-03-02 06:40:00", "2024-03-02 07:00:00", "AsleepREM"),  # 20
    ]
    body = sleep("2024-03-01 23:00:00" + z, "2024-03-02 07:00:00" + z, "InBed", PHONE)
    body += "".join(sleep(s + z, e + z, st) for s, e, st in stages)
    # the iPhone's own (legacy) guess for the same night is ignored: the Watch's stages win
    body += sleep("2024-03-01 23:10:00" + z, "2024-03-02 06:55:00" + z, "Asleep", PHONE)
    cohort, report = import_source("apple-health", export(tmp_path, body))
    row = _day(cohort.daily, "2024-03-02")  # the night belongs to its wake date
    assert row["sleep_minutes"] == 440
    assert row["sleep_efficiency"] == pytest.approx(100 * 440 / 480)
    assert row["deep_sleep_pct"] == pytest.approx(100 * 60 / 440)
    assert row["rem_sleep_pct"] == pytest.approx(100 * 80 / 440)
    assert report.repairs["sleep: stage from a second source in the same night, dropped"] == 1


def test_legacy_in_bed_and_asleep(tmp_path: Path) -> None:
    z = " -0700"
    body = (
        sleep("2019-06-10 22:00:00" + z, "2019-06-11 06:00:00" + z, "InBed", PHONE)
        + sleep("2019-06-10 22:30:00" + z, "2019-06-11 02:00:00" + z, "Asleep", PHONE)
        + sleep("2019-06-11 02:30:00" + z, "2019-06-11 05:30:00" + z, "Asleep", PHONE)
    )
    cohort, _ = import_source("apple-health", export(tmp_path, body))
    row = _day(cohort.daily, "2019-06-11")
    assert row["sleep_minutes"] == 210 + 180
    assert row["sleep_efficiency"] == pytest.approx(100 * 390 / 480)
    assert math.isnan(row["deep_sleep_pct"])
    assert math.isnan(row["rem_sleep_pct"])


def test_mixed_energy_units(tmp_path: Path) -> None:
    z = " +0200"
    body = (
        rec("ActiveEnergyBurned", "2024-05-01 10:00:00" + z, "2024-05-01 10:30:00" + z, "100", unit="kcal")
        + rec("ActiveEnergyBurned", "2024-05-01 11:00:00" + z, "2024-05-01 11:30:00" + z, "418.4", unit="kJ")
        + rec("BasalEnergyBurned", "2024-05-01 00:00:00" + z, "2024-05-01 23:59:00" + z, "6276", unit="kJ")
    )
    cohort, report = import_source("apple-health", export(tmp_path, body))
    row = _day(cohort.daily, "2024-05-01")
    assert row["active_kcal"] == pytest.approx(200.0)
    assert row["bmr_kcal"] == pytest.approx(1500.0)
    assert report.repairs["ActiveEnergyBurned: unit conversion kJ→kcal"] == 1
    assert report.repairs["BasalEnergyBurned: unit conversion kJ→kcal"] == 1


def test_workouts_hr_and_mets(tmp_path: Path) -> None:
    z = " +0000"
    hr = [("2024-02-01 18:10:00", "120"), ("2024-02-01 18:40:00", "130"), ("2024-02-01 20:00:00", "90")]
    body = "".join(rec("HeartRate", t + z, t + z, v, unit="count/min") for t, v in hr)
    body += rec("StepCount", "2024-02-02 10:00:00" + z, "2024-02-02 10:10:00" + z, "900")
    body += (
        ' <Workout workoutActivityType="HKWorkoutActivityTypeRunning" duration="30" durationUnit="min"'
        f" {WATCH}"
        ' startDate="2024-02-01 07:00:00 +0000" endDate="2024-02-01 07:30:00 +0000">\n'
        '  <MetadataEntry key="HKAverageMETs" value="8 kcal/hr·kg"/>\n'
        f'  <WorkoutStatistics type="HKQuantityTypeIdentifierHeartRate" startDate="x" endDate="y"'
        ' average="150" unit="count/min"/>\n </Workout>\n'
        f' <Workout workoutActivityType="HKWorkoutActivityTypeYoga" {WATCH}'
        ' startDate="2024-02-01 18:00:00 +0000" endDate="2024-02-01 19:00:00 +0000">\n'
        '  <MetadataEntry key="HKAverageMETs" value="4 kcal/hr·kg"/>\n </Workout>\n'
    )
    cohort, report = import_source("apple-health", export(tmp_path, body))
    day1, day2 = _day(cohort.daily, "2024-02-01"), _day(cohort.daily, "2024-02-02")
    assert day1["exercise_count"] == 2
    assert day1["exercise_minutes"] == 90
    assert day1["exercise_avg_hr"] == pytest.approx((150 * 30 + 125 * 60) / 90)  # stats, then HR records
    assert day1["mets"] == pytest.approx(8 * 0.5 + 4 * 1.0)
    assert (day2["exercise_count"], day2["exercise_minutes"], day2["mets"]) == (0, 0, 0)
    assert any("AppleExerciseTime not used" in n for n in report.notes)


def test_demographics_and_user_id(tmp_path: Path) -> None:
    body = rec("StepCount", "2024-01-01 10:00:00 +0000", "2024-01-01 10:10:00 +0000", "100")
    folder = tmp_path / "ann"
    folder.mkdir()
    path = export(folder, body, name="export.xml", export_date="2024-05-19 08:00:00 +0000")
    cohort, _ = import_source("apple-health", path)
    demo = cohort.demographics.iloc[0]
    assert (demo["user_id"], demo["age"], demo["sex"]) == ("ann", 33, "F")  # 34th birthday is 20 May


def test_bad_values_are_rejected_with_the_line(tmp_path: Path) -> None:
    body = rec("StepCount", "2024-01-01 10:00:00 +0000", "2024-01-01 10:10:00 +0000", "100") + rec(
        "StepCount", "2024-01-01 11:00:00 +0000", "2024-01-01 11:10:00 +0000", "lots"
    )
    body += rec("StepCount", "yesterday", "2024-01-01 11:10:00 +0000", "5")
    cohort, report = import_source("apple-health", export(tmp_path, body))
    assert _day(cohort.daily, "2024-01-01")["steps"] == 100
    assert report.examples["StepCount: value not a number ≥ 0"] == [
        "ann.xml line 6, user ann, 2024-01-01: 'lots'"
    ]
    assert report.rejections["StepCount: unreadable startDate/endDate"] == 1


def test_truncated_file_raises_and_writes_no_cohort(tmp_path: Path) -> None:
    body = "".join(
        rec("StepCount", f"2024-01-0{d} 10:00:00 +0000", f"2024-01-0{d} 10:10:00 +0000", "100")
        for d in range(1, 9)
    )
    full = export(tmp_path, body).read_text(encoding="utf-8")
    path = tmp_path / "cut.xml"
    path.write_text(full[: len(full) // 2], encoding="utf-8")
    out = tmp_path / "cohort"
    with pytest.raises(WearbenchError, match=r"^cut\.xml: XML ends early at line 8, column \d+: "):
        import_source("apple-health", path, out)
    assert not out.exists()


def test_malformed_xml_names_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "bad.xml"
    path.write_text('<HealthData>\n <Record type="x" value="1"/>\n <Record <oops/>\n</HealthData>\n')
    with pytest.raises(WearbenchError, match=r"^bad\.xml: malformed XML at line 3, column 9: "):
        import_source("apple-health", path)


@pytest.mark.parametrize("text", ["", "  \n\n"])
def test_empty_file(tmp_path: Path, text: str) -> None:
    path = tmp_path / "export.xml"
    path.write_text(text)
    with pytest.raises(WearbenchError, match=r"export\.xml: file is empty"):
        import_source("apple-health", path, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_wrong_root_element(tmp_path: Path) -> None:
    path = tmp_path / "route.xml"
    path.write_text('<?xml version="1.0"?>\n<gpx version="1.1"><trk/></gpx>\n')
    with pytest.raises(
        WearbenchError, match=r"route\.xml: line 2: root element is <gpx>, expected <HealthData>"
    ):
        import_source("apple-health", path)


def test_no_data_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(WearbenchError, match="no daily data found"):
        import_source("apple-health", export(tmp_path, ""))


def test_zip_without_export_xml(tmp_path: Path) -> None:
    path = tmp_path / "export.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("apple_health_export/export_cda.xml", "<x/>")
    with pytest.raises(WearbenchError, match=r"export\.zip: zip has no export\.xml"):
        import_source("apple-health", path)


def test_correlation_children_are_not_counted_twice(tmp_path: Path) -> None:
    r = rec("StepCount", "2024-01-01 10:00:00 +0000", "2024-01-01 10:10:00 +0000", "100")
    body = r + (
        f' <Correlation type="HKCorrelationTypeIdentifierFood" {OTHER} startDate="2024-01-01 10:00:00 +0000"'
        f' endDate="2024-01-01 10:10:00 +0000">\n{r} </Correlation>\n'
    )
    cohort, _ = import_source("apple-health", export(tmp_path, body))
    assert _day(cohort.daily, "2024-01-01")["steps"] == 100


def test_truncated_zip(tmp_path: Path) -> None:
    body = "".join(
        rec("StepCount", f"2024-01-0{d} 10:00:00 +0000", f"2024-01-0{d} 10:10:00 +0000", "100")
        for d in range(1, 9)
    )
    xml = export(tmp_path, body)
    path = tmp_path / "export.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.write(xml, "apple_health_export/export.xml")
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(WearbenchError, match=r"^export\.zip: not a readable zip file"):
        import_source("apple-health", path, tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_corrupt_zip_member(tmp_path: Path) -> None:
    body = "".join(
        rec("StepCount", f"2024-01-{d:02d} 10:00:00 +0000", f"2024-01-{d:02d} 10:10:00 +0000", str(d))
        for d in range(1, 29)
    )
    path = tmp_path / "export.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.write(export(tmp_path, body), "export.xml")
    data = bytearray(path.read_bytes())
    start = 30 + len("export.xml")  # local header, then the deflated bytes
    data[start + 200 : start + 260] = bytes(60)
    path.write_bytes(bytes(data))
    with pytest.raises(WearbenchError, match=r"^export\.zip: unreadable zip: "):
        import_source("apple-health", path)
