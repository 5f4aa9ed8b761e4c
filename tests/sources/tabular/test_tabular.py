"""The ``csv`` loader: hand-written tables and mappings with hand-computed daily values."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wearbench import WearbenchError
from wearbench.sources import ImportLog, import_source
from wearbench.sources.tabular import load_table, parse_dates, read_mapping

DATA = """participant,timestamp,steps,sleep_h,eff,energy_kj,hr,hrv_s
alice,2024-03-01 08:00,1500,7.5,0.90,418.4,61,0.045
alice,2024-03-01 20:00,2500,,,836.8,58,
alice,2024-03-02 09:00,3000,6.25,0.85,,,0.050
bob,2024-03-01 07:30,4000,8,0.95,2092,55,0.062
bob,2024-03-01 12:00,1000,,,,57,
"""

MAPPING = """
user: {column: participant}
date: {column: timestamp, format: "%Y-%m-%d %H:%M"}
metrics:
  steps: {column: steps, unit: steps, aggregate: sum}
  sleep_minutes: {column: sleep_h, unit: hours}
  sleep_efficiency: {column: eff, unit: fraction}
  active_kcal: {column: energy_kj, unit: kJ, aggregate: sum}
  resting_hr: {column: hr, unit: bpm, aggregate: min}
  hrv: {column: hrv_s, unit: seconds, aggregate: mean}
"""

# Hand-computed: steps summed; 7.5 h = 450 min; 0.90 → 90 %; (418.4 + 836.8) kJ / 4.184 = 300 kcal;
# lowest HR of the day; 0.045 s = 45 ms.
EXPECTED = pd.DataFrame(
    {
        "user_id": ["alice", "alice", "bob"],
        "date": pd.to_datetime(["2024-03-01", "2024-03-02", "2024-03-01"]),
        "steps": [4000.0, 3000.0, 5000.0],
        "sleep_minutes": [450.0, 375.0, 480.0],
        "sleep_efficiency": [90.0, 85.0, 95.0],
        "active_kcal": [300.0, np.nan, 500.0],
        "resting_hr": [58.0, np.nan, 55.0],
        "hrv": [45.0, 50.0, 62.0],
    }
)


def _write(folder: Path, data: str, mapping: str, name: str = "daily.csv") -> Path:
    (folder / name).write_text(data, encoding="utf-8")
    (folder / (Path(name).stem + ".yaml")).write_text(mapping, encoding="utf-8")
    return folder / name


def _daily(path: Path, log: ImportLog | None = None, chunk: int = 200_000) -> pd.DataFrame:
    return load_table(path, log or ImportLog(), chunk).daily.reset_index(drop=True)


@pytest.mark.parametrize("chunk", [200_000, 2, 1])
def test_units_and_daily_aggregation(tmp_path: Path, chunk: int) -> None:
    # Chunks of 1–2 rows split user-days across chunks: the streamed result must not change.
    daily = _daily(_write(tmp_path, DATA, MAPPING), chunk=chunk)
    pd.testing.assert_frame_equal(daily[EXPECTED.columns], EXPECTED, check_dtype=False, atol=1e-9)


def test_import_writes_cohort_and_report(tmp_path: Path) -> None:
    path = _write(tmp_path, DATA, MAPPING)
    cohort, report = import_source("csv", path, tmp_path / "cohort")
    assert (report.users, report.days) == (2, 3)
    assert report.rows_read == {"daily.csv": 5}
    assert report.repairs["sleep_minutes: converted to min"] == 3
    assert report.examples["active_kcal: converted to kcal"] == [
        "daily.csv line 2, 'energy_kj' = 418.4 → 100"
    ]
    assert (tmp_path / "cohort" / "import_report.json").is_file()
    assert cohort.demographics["sex"].isna().all()


def test_parquet_constant_user_and_timezone(tmp_path: Path) -> None:
    frame = pd.DataFrame(
        {
            # 03:00 UTC on 2 March is 22:00 on 1 March in New York.
            "t": pd.to_datetime(["2024-03-02 03:00", "2024-03-02 15:00", "2024-03-03 12:00"], utc=True),
            "kcal": [120.0, 80.0, 50.0],
            "rhr": [60.0, 62.0, 59.0],
        }
    )
    frame.to_parquet(tmp_path / "me.parquet")
    mapping = """
user: {id: me}
date: {column: t, timezone: America/New_York}
metrics:
  active_kcal: {column: kcal, unit: kcal, aggregate: sum}
  resting_hr: {column: rhr, unit: bpm, aggregate: last}
demographics: {age: 41, sex: female, bmi: 23.5}
"""
    (tmp_path / "me.yaml").write_text(mapping, encoding="utf-8")
    cohort, _ = import_source("csv", tmp_path / "me.parquet")
    d = cohort.daily
    assert d["user_id"].tolist() == ["me", "me", "me"]
    assert d["date"].dt.strftime("%Y-%m-%d").tolist() == ["2024-03-01", "2024-03-02", "2024-03-03"]
    assert d["active_kcal"].tolist() == [120.0, 80.0, 50.0]
    demo = cohort.demographics.iloc[0]
    assert (demo.age, demo.sex, demo.bmi) == (41.0, "F", 23.5)


def test_parse_dates_timezone_rules() -> None:
    cells = pd.Series(["2024-03-01T23:30:00Z", "2024-03-01 23:30", "2024-03-01", "not a date"])
    as_written = parse_dates(cells, None, None).dt.strftime("%Y-%m-%d %H:%M").tolist()
    assert as_written[:3] == ["2024-03-01 23:30", "2024-03-01 23:30", "2024-03-01 00:00"]
    tokyo = parse_dates(cells, None, "Asia/Tokyo")  # UTC+9: 23:30 UTC → 08:30 next day
    assert tokyo.dt.strftime("%Y-%m-%d %H:%M").tolist()[:3] == [
        "2024-03-02 08:30",
        "2024-03-02 08:30",
        "2024-03-01 00:00",
    ]
    assert tokyo.isna().tolist() == [False, False, False, True]


def test_unit_column_and_demographic_columns(tmp_path: Path) -> None:
    data = (
        "id;day;sleep;sleep_unit;age;gender\n"
        "u1;2024-05-01;7;h;30;male\n"
        "u1;2024-05-02;400;min;30;male\n"
        "u2;2024-05-01;27000;s;;x\n"
        "u2;2024-05-02;3;fortnights;;x\n"
    )
    mapping = """
delimiter: ";"
user: {column: id}
date: {column: day}
metrics:
  sleep_minutes: {column: sleep, unit_column: sleep_unit}
demographics: {age: {column: age}, sex: {column: gender}}
"""
    log = ImportLog()
    loaded = load_table(_write(tmp_path, data, mapping), log)
    assert loaded.daily["sleep_minutes"].tolist()[:3] == [420.0, 400.0, 450.0]  # 7 h, 400 min, 27000 s
    assert np.isnan(loaded.daily["sleep_minutes"].iloc[3])
    units = "min, minutes, h, hours, s, seconds"
    kind = f"sleep_minutes: unit in column 'sleep_unit' not one of {units}, value set missing"
    assert log.repairs[kind] == 1
    assert log.examples[kind] == ["daily.csv line 5, user u2, 2024-05-02, column 'sleep_unit' = 'fortnights'"]
    assert loaded.demographics is not None
    demo = loaded.demographics.set_index("user_id")
    assert (demo.at["u1", "age"], demo.at["u1", "sex"]) == (30.0, "M")
    assert pd.isna(demo.at["u2", "sex"])
    assert pd.isna(demo.at["u2", "age"])
    assert log.repairs["demographics: sex not understood, set missing"] == 1


def test_bad_cells_are_counted(tmp_path: Path) -> None:
    data = (
        "user,date,steps\na,2024-01-01,100\na,2024-02-30,200\na,2024-01-03,lots\na,2024-01-03,300\n"
        ",2024-01-04,1\n"
    )
    mapping = "user: {column: user}\ndate: {column: date}\nmetrics: {steps: {column: steps, unit: steps}}\n"
    log = ImportLog()
    daily = _daily(_write(tmp_path, data, mapping), log)
    assert daily["steps"].tolist() == [
        100.0,
        300.0,
    ]  # 2024-02-30 (no such day) rejected; 'lots' missing → first value 300
    assert log.examples["date not readable as ISO 8601, row rejected"] == [
        "daily.csv line 3, user a, column 'date' = '2024-02-30'"
    ]
    assert log.repairs["steps: not a number, set missing"] == 1
    assert log.rejections["row without a user in column 'user', rejected"] == 1
    assert (
        log.repairs["steps: several values on one user-day, kept the first (set 'aggregate' in the mapping)"]
        == 0
    )
    # 'lots' is missing, so 2024-01-03 has one value; a second real value triggers the repair:
    log2 = ImportLog()
    _daily(_write(tmp_path, data.replace("lots", "250"), mapping), log2)
    assert (
        log2.repairs["steps: several values on one user-day, kept the first (set 'aggregate' in the mapping)"]
        == 1
    )


def test_folder_with_mapping_yaml(tmp_path: Path) -> None:
    (tmp_path / "export.csv").write_text(DATA, encoding="utf-8")
    (tmp_path / "mapping.yaml").write_text("file: export.csv\n" + MAPPING, encoding="utf-8")
    cohort, _ = import_source("csv", tmp_path)
    assert cohort.daily["steps"].tolist() == [4000.0, 3000.0, 5000.0]


GOOD = "user: {id: me}\ndate: {column: date}\nmetrics: {steps: {column: steps, unit: steps}}\n"


@pytest.mark.parametrize(
    ("data", "mapping", "message"),
    [
        ("", GOOD, r"daily\.csv: file is empty"),
        ("date,Steps\n2024-01-01,1\n", GOOD, r"daily\.csv: line 1: no column 'steps'; closest: 'Steps'"),
        (
            'date,steps\n2024-01-01,1\n"2024-01-02,2\n',
            GOOD,
            r"daily\.csv: cannot read as CSV: .*EOF inside string",
        ),
        (
            "date,steps\nyesterday,1\n",
            GOOD,
            r"no row has a readable date \(e\.g\. daily\.csv line 2, .*'yesterday'\)",
        ),
        ("date,steps\n", GOOD, r"daily\.csv: no data rows"),
        ("date,steps\n", "user: {id: me\n", r"daily\.yaml: line 2, column 1: bad YAML"),
        ("date,steps\n", GOOD.replace("steps: {", "step: {"), r"unknown metric 'step'; did you mean 'steps'"),
        (
            "date,steps\n",
            GOOD.replace("unit: steps", "unit: furlongs"),
            r"unknown unit 'furlongs' for steps; valid",
        ),
        (
            "date,steps\n",
            GOOD.replace("steps: {column: steps, unit: steps}", "active_kcal: {column: steps, unit: cal}"),
            "ambiguous",
        ),
        (
            "date,steps\n",
            GOOD.replace("{column: steps,", "{colum: steps,"),
            r"metrics\.steps: unknown key 'colum'; did you mean 'column'",
        ),
        (
            "date,steps\n",
            GOOD.replace("unit: steps", "unit: steps, aggregate: median"),
            r"unknown 'median'; valid: sum, mean",
        ),
        ("date,steps\n", GOOD.replace("{id: me}", "{id: me, column: u}"), r"user: give exactly one"),
        (
            "date,steps\n",
            GOOD.replace("{column: date}", "{column: date, timezone: Mars/Base}"),
            "unknown IANA time zone",
        ),
        ("date,steps\n", GOOD + "extra: 1\n", r"top level: unknown key 'extra'"),
        ("date,steps\nx,1\n", GOOD.replace("{column: date}", "{column: date, format: '%Q'}"), "not usable"),
    ],
)
def test_malformed_input_fails_in_one_line(tmp_path: Path, data: str, mapping: str, message: str) -> None:
    path = _write(tmp_path, data, mapping)
    with pytest.raises(WearbenchError, match=message) as info:
        import_source("csv", path)
    assert str(tmp_path) in str(info.value)
    assert "\n" not in str(info.value)


def test_truncated_last_row_loads_what_is_there(tmp_path: Path) -> None:
    data = "date,steps,hr\n2024-01-01,100,60\n2024-01-02,20"  # cut mid-row, no final newline
    mapping = GOOD.replace("}}\n", "}, resting_hr: {column: hr, unit: bpm}}\n")
    daily = _daily(_write(tmp_path, data, mapping))
    assert daily["steps"].tolist() == [100.0, 20.0]
    assert daily["resting_hr"].isna().tolist() == [False, True]


def test_missing_mapping_is_named(tmp_path: Path) -> None:
    (tmp_path / "x.csv").write_text("date,steps\n2024-01-01,1\n", encoding="utf-8")
    with pytest.raises(
        WearbenchError, match=r"no column-mapping file found \(looked for x\.csv\.yaml, x\.yaml"
    ):
        import_source("csv", tmp_path / "x.csv")


def test_doc_examples_are_valid_mappings(tmp_path: Path) -> None:
    doc = Path(__file__).resolve().parents[3] / "docs" / "sources-whoop-csv.md"
    blocks = doc.read_text(encoding="utf-8").split("```yaml\n")[1:]
    assert len(blocks) == 2
    for i, block in enumerate(blocks):
        (tmp_path / f"m{i}.yaml").write_text(block.split("```")[0], encoding="utf-8")
        assert read_mapping(tmp_path / f"m{i}.yaml").metrics
    (tmp_path / "activity.csv").write_text(DATA, encoding="utf-8")
    (tmp_path / "activity.yaml").write_text(blocks[0].split("```")[0], encoding="utf-8")
    daily = _daily(tmp_path / "activity.csv")
    pd.testing.assert_frame_equal(daily[EXPECTED.columns], EXPECTED, check_dtype=False, atol=1e-9)


def test_tsv_defaults_to_tab(tmp_path: Path) -> None:
    path = _write(tmp_path, "date\tsteps\n2024-01-01\t1234\n", GOOD, name="x.tsv")
    assert _daily(path)["steps"].tolist() == [1234.0]


def test_bad_parquet_files(tmp_path: Path) -> None:
    (tmp_path / "p.yaml").write_text(GOOD, encoding="utf-8")
    (tmp_path / "p.parquet").write_bytes(b"not parquet at all")
    with pytest.raises(WearbenchError, match=r"p\.parquet: cannot read as Parquet: "):
        import_source("csv", tmp_path / "p.parquet")
    pd.DataFrame({"date": ["2024-01-01"], "Steps": [1]}).to_parquet(tmp_path / "p.parquet")
    with pytest.raises(WearbenchError, match=r"p\.parquet: schema: no column 'steps'; closest: 'Steps'"):
        import_source("csv", tmp_path / "p.parquet")
