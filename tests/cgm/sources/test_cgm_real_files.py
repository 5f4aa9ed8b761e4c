"""Every real CGM dataset in shared/data loads; counts, spans and values hand-checked in the files."""

from pathlib import Path

import pandas as pd
import pytest

from wearbench.cgm import MMOL_TO_MGDL
from wearbench.cgm.sources import import_cgm


def _at(data: pd.DataFrame, subject: str, time: str) -> float:
    rows = data[(data["subject_id"] == subject) & (data["time"] == pd.Timestamp(time))]
    assert len(rows) == 1, (subject, time, rows)
    return float(rows["glucose"].iloc[0])


def test_dexcom_clarity(shared_data: Path) -> None:
    data, report = import_cgm("dexcom-clarity", shared_data / "cgm_dexcom_clarity" / "test_file.csv")
    r = data.readings
    assert data.subjects == ["test_file"]
    assert len(r) == 2148  # lines 13-2160: 2,148 EGV rows
    assert r["time"].iloc[0] == pd.Timestamp("2016-10-24 11:24:17")
    assert r["glucose"].iloc[0] == 103
    assert r["time"].iloc[-1] == pd.Timestamp("2016-11-01 09:19:02")
    assert r["glucose"].iloc[-1] == 108
    assert _at(r, "test_file", "2016-10-24 11:49:18") == 95  # file line 18 (Index 17)
    assert report["rows_read"] == {"test_file.csv": 2159}
    assert report["repairs"] == {}
    assert report["rejections"] == {}
    assert data.events is None  # the 11 header rows are alert settings, not events


def test_t1d_uom(shared_data: Path) -> None:
    data, report = import_cgm("t1d-uom", shared_data / "t1d_uom")
    r = data.readings
    assert len(data.subjects) == 13
    assert "2301" in data.subjects
    assert len(r) == 260116
    assert report["first_time"] == "2023-09-04T00:03:00"
    assert report["last_time"] == "2024-06-25T13:48:00"
    # UoMGlucose2301.csv line 2 "01/10/2023 00:04,7.5" (day-first) and line 3422 "13/10/2023 00:00,8.8"
    assert _at(r, "2301", "2023-10-01 00:04") == pytest.approx(7.5 * MMOL_TO_MGDL)
    assert _at(r, "2301", "2023-10-13 00:00") == pytest.approx(8.8 * MMOL_TO_MGDL)
    assert report["per_subject"]["2301"]["last"] == "2024-01-18T23:58:00"  # last line: 18/01/2024 23:58
    assert report["repairs"] == {
        "t1d-uom: conflicting duplicate (same time, other glucose) dropped, first kept": 238,
        "t1d-uom: exact duplicate reading dropped": 15658,
    }
    assert report["rejections"] == {
        "t1d-uom: glucose outside 20-600 mg/dL": 7,  # UoMGlucose2307.csv: 0.1 mmol/L values
        "t1d-uom events: empty or non-numeric bolus_dose": 100,
        "t1d-uom events: unparseable meal_ts": 4,  # e.g. UoMNutrition2309.csv line 42 '21/02/2024' (no time)
    }
    ev = data.events
    assert ev is not None
    assert len(ev) == 27350


def _event(ev: pd.DataFrame, subject: str, kind: str) -> list[object]:
    row = ev[(ev["subject_id"] == subject) & (ev["kind"] == kind)].iloc[0]
    return [row["time"], row["value"], row["unit"], row["detail"]]


def test_t1d_uom_events(shared_data: Path) -> None:
    data, _ = import_cgm("t1d-uom", shared_data / "t1d_uom")
    ev = data.events
    assert ev is not None
    # UoMBolus2301.csv line 2 "10/11/2023 12:43,2.36"; UoMBasal2301.csv line 2 "10/11/2023 00:00,1.725,R"
    assert _event(ev, "2301", "bolus") == [pd.Timestamp("2023-11-10 12:43"), 2.36, "U", ""]
    assert _event(ev, "2301", "basal") == [pd.Timestamp("2023-11-10 00:00"), 1.725, "U/h", "R"]
    assert _event(ev, "2302", "basal")[1:3] == [9.0, "U"]  # insulin_kind L: a daily long-acting dose
    # UoMNutrition2301.csv line 2 "22/10/2023 10:00,Breakfast,Coffee,0,..."
    assert _event(ev, "2301", "carbs") == [pd.Timestamp("2023-10-22 10:00"), 0.0, "g", "Breakfast Coffee"]


def test_d1namo(shared_data: Path) -> None:
    data, report = import_cgm("d1namo", shared_data / "cgm_d1namo")
    r = data.readings
    assert data.subjects == ["001", "002", "004", "006", "007", "008"]
    assert len(r) == 6846  # README: 6,846 cgm rows, 131 manual
    # 001/glucose.csv lines 2-5: 19:14 10.3 cgm, 19:19 9.9 cgm, 19:23 9.4 manual, 19:24 9.8 cgm
    assert _at(r, "001", "2014-10-01 19:14") == pytest.approx(10.3 * MMOL_TO_MGDL)
    assert _at(r, "001", "2014-10-01 19:24") == pytest.approx(9.8 * MMOL_TO_MGDL)
    assert not ((r["subject_id"] == "001") & (r["time"] == pd.Timestamp("2014-10-01 19:23"))).any()
    assert data.events is not None
    ev = data.events
    finger = ev[ev["kind"] == "fingerstick"]
    assert len(finger) == 131
    first = finger[finger["subject_id"] == "001"].iloc[0]
    assert first["time"] == pd.Timestamp("2014-10-01 19:23")
    assert first["value"] == pytest.approx(9.4 * MMOL_TO_MGDL)
    bolus = ev[(ev["kind"] == "bolus") & (ev["subject_id"] == "001")].iloc[0]
    assert (bolus["time"], bolus["value"]) == (
        pd.Timestamp("2014-10-01 10:06"),
        7.0,
    )  # 001/insulin.csv line 2
    assert report["rows_read"]["001/glucose.csv"] == 1438


def test_hall2018(shared_data: Path) -> None:
    data, report = import_cgm("hall2018", shared_data / "cgm_hall2018")
    r = data.readings
    assert len(data.subjects) == 19
    assert len(r) == 34890
    assert r.iloc[0].tolist() == ["1636-69-001", pd.Timestamp("2014-02-03 08:42:12"), 93.0]
    assert _at(r, "1636-69-001", "2014-02-03 08:57:12") == 95.0  # line 5
    assert _at(r, "2133-039", "2017-06-14 18:57:42") == 106.0  # last line
    assert report["last_time"] == "2017-06-14T18:57:42"
    assert data.events is not None
    assert len(data.events) == 9
    assert data.events.iloc[0][["subject_id", "detail"]].tolist() == ["2133-004", "CF 1"]


def test_hall2018_meal_windows_file(shared_data: Path) -> None:
    data, report = import_cgm("hall2018", shared_data / "cgm_hall2018" / "hall_meals_std.tsv")
    assert report["rows_read"] == {"hall_meals_std.tsv": 6152}
    assert _at(data.readings, "2133-001", "2016-08-04 08:10") == 81.0  # line 2: PB 1, 81


def test_shanghai(shared_data: Path) -> None:
    data, report = import_cgm("shanghai", shared_data / "shanghai")
    r = data.readings
    assert len(data.subjects) == 12  # 16 files (4 .xlsx, 12 legacy .xls), 12 patients
    assert len(r) == 15695  # README: 15,695 T1DM CGM rows
    assert report["repairs"] == {}
    assert report["rejections"] == {}
    assert report["rows_read"]["1002_0_20210504.xls"] == 948
    # 1001_0_20210730.xlsx row 2: Date 44407.696527777778 (2021-07-30 16:43), CGM 113.39999999999999
    assert _at(r, "1001", "2021-07-30 16:43") == 113.4
    assert _at(r, "1001", "2021-07-30 16:58") == 124.2
    # 1002_0_20210504.xls (BIFF8) row 2: 44320.43958333333 (2021-05-04 10:33), CGM 156.6; row 3: 140.4
    assert _at(r, "1002", "2021-05-04 10:33") == 156.6
    assert _at(r, "1002", "2021-05-04 11:03") == 140.4
    assert report["first_time"] == "2021-01-14T18:39:00"
    assert report["last_time"] == "2021-10-06T23:38:00"
    assert data.events is not None
    ev = data.events[data.events["subject_id"] == "1001"]
    assert ev.iloc[0][["kind", "value", "unit"]].tolist() == ["basal", 0.3, "U/h"]  # row 2, CSII basal
    assert ev.iloc[1][["kind", "value", "unit"]].tolist() == ["bolus", 4.0, "U"]  # row 3, CSII bolus
    ev2 = data.events[(data.events["subject_id"] == "1002") & (data.events["kind"] == "fingerstick")]
    assert ev2.iloc[0][["time", "value"]].tolist() == [pd.Timestamp("2021-05-04 11:03"), 156.6]  # row 3 CBG
