"""A corpus of broken cohorts: each injected fault gives exactly one clear problem."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from wearbench import CohortValidationError
from wearbench.cohort import (
    Cohort,
    Problem,
    ValidationReport,
    content_hash,
    load_cohort,
    save_cohort,
    validate_cohort,
)

Rewrite = Callable[[Path, pa.Table], None]


def _row(daily: pd.DataFrame, user: str, day: str) -> int:
    hit = daily.index[(daily["user_id"] == user) & (daily["date"] == pd.Timestamp(day))]
    return int(hit[0])


def _save(c: Cohort, tmp: Path) -> Path:
    return save_cohort(c, tmp / "broken", validate=False)


# ------------------------------------------------------------------------ fault injectors


def missing_column(c: Cohort, tmp: Path, rw: Rewrite) -> Path:
    return _save(replace(c, daily=c.daily.drop(columns=["stress"])), tmp)


def unexpected_column(c: Cohort, tmp: Path, rw: Rewrite) -> Path:
    return _save(replace(c, daily=c.daily.assign(spo2=97.0)), tmp)


def sleep_in_hours(c: Cohort, tmp: Path, rw: Rewrite) -> Path:
    return _save(replace(c, daily=c.daily.assign(sleep_minutes=c.daily["sleep_minutes"] / 60)), tmp)


def glucose_in_mmol(c: Cohort, tmp: Path, rw: Rewrite) -> Path:
    return _save(replace(c, blood=c.blood.assign(fasting_glucose=c.blood["fasting_glucose"] / 18.016)), tmp)


def hr_400(c: Cohort, tmp: Path, rw: Rewrite) -> Path:
    daily = c.daily.copy()
    daily.loc[_row(daily, "u0002", "2024-01-10"), "resting_hr"] = 400.0
    return _save(replace(c, daily=daily), tmp)


def age_150(c: Cohort, tmp: Path, rw: Rewrite) -> Path:
    demo = c.demographics.copy()
    demo.loc[demo["user_id"] == "u0003", "age"] = 150.0
    return _save(replace(c, demographics=demo), tmp)


def steps_as_text(c: Cohort, tmp: Path, rw: Rewrite) -> Path:
    daily = c.daily.copy()
    steps = daily["steps"].map(lambda v: f"{v:.0f}").astype(object)
    steps[_row(daily, "u0001", "2024-01-03")] = "lots"
    return _save(replace(c, daily=daily.assign(steps=steps)), tmp)


def duplicate_user_day(c: Cohort, tmp: Path, rw: Rewrite) -> Path:
    daily = c.daily
    extra = daily.loc[[_row(daily, "u0001", "2024-01-05")]].assign(steps=1234.0)
    return _save(replace(c, daily=pd.concat([daily, extra], ignore_index=True)), tmp)


def blood_unknown_user(c: Cohort, tmp: Path, rw: Rewrite) -> Path:
    extra = c.blood.iloc[:1].assign(user_id="u9999")
    return _save(replace(c, blood=pd.concat([c.blood, extra], ignore_index=True)), tmp)


def daily_user_without_demographics(c: Cohort, tmp: Path, rw: Rewrite) -> Path:
    demo = c.demographics[c.demographics["user_id"] != "u0002"]
    return _save(replace(c, demographics=demo), tmp)


def non_monotonic_dates(c: Cohort, tmp: Path, rw: Rewrite) -> Path:
    folder = save_cohort(c, tmp / "broken")
    table = pq.read_table(folder / "daily.parquet")
    order = np.arange(table.num_rows)
    i = _row(c.daily, "u0003", "2024-01-20")  # builder order == saved order
    order[[i, i + 1]] = order[[i + 1, i]]
    rw(folder / "daily.parquet", table.take(pa.array(order)))
    return folder


def missing_file(c: Cohort, tmp: Path, rw: Rewrite) -> Path:
    folder = save_cohort(c, tmp / "broken")
    (folder / "blood.parquet").unlink()
    return folder


def corrupted_parquet(c: Cohort, tmp: Path, rw: Rewrite) -> Path:
    folder = save_cohort(c, tmp / "broken")
    data = (folder / "demographics.parquet").read_bytes()
    (folder / "demographics.parquet").write_bytes(data[: len(data) // 2])
    return folder


def bad_sex_code(c: Cohort, tmp: Path, rw: Rewrite) -> Path:
    demo = c.demographics.copy()
    demo.loc[demo["user_id"] == "u0002", "sex"] = "X"
    return _save(replace(c, demographics=demo), tmp)


def decreasing_percentiles(c: Cohort, tmp: Path, rw: Rewrite) -> Path:
    ref = c.reference.copy()
    i = int(ref.index[(ref["metric"] == "steps") & (ref["age_band"] == "30-39")][0])
    ref.loc[i, ["p5", "p10", "p25", "p50", "p75", "p90", "p95"]] = [10.0, 20.0, 30.0, 25.0, 40.0, 50.0, 60.0]
    return _save(replace(c, reference=ref), tmp)


def edited_file(c: Cohort, tmp: Path, rw: Rewrite) -> Path:
    folder = save_cohort(c, tmp / "broken")
    table = pq.read_table(folder / "daily.parquet")
    hrv = table.column("hrv").to_numpy().copy()
    hrv[7] += 1.0  # still plausible: only the hash can tell
    rw(folder / "daily.parquet", table.set_column(table.schema.get_field_index("hrv"), "hrv", pa.array(hrv)))
    return folder


def schema_version(c: Cohort, tmp: Path, rw: Rewrite) -> Path:
    folder = save_cohort(c, tmp / "broken")
    manifest = json.loads((folder / "cohort.json").read_text())
    manifest["schema_version"] = 99
    (folder / "cohort.json").write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return folder


def missing_manifest(c: Cohort, tmp: Path, rw: Rewrite) -> Path:
    folder = save_cohort(c, tmp / "broken")
    (folder / "cohort.json").unlink()
    return folder


@dataclass(frozen=True)
class Case:
    inject: Callable[[Cohort, Path, Rewrite], Path]
    code: str
    file: str
    must_contain: tuple[str, ...] = ()
    user_id: str | None = None
    date: str | None = None
    column: str | None = None
    value: object = None
    repair: bool = False


CASES = [
    Case(missing_column, "missing_column", "daily.parquet", ("column stress is missing",), column="stress"),
    Case(
        unexpected_column, "unexpected_column", "daily.parquet", ("'spo2'", "drop or rename"), column="spo2"
    ),
    Case(
        sleep_in_hours,
        "unit_scale",
        "daily.parquet",
        ("120 of 120 sleep_minutes", "30–1080 min", "looks like hours", "×1/60 of the expected minutes"),
        column="sleep_minutes",
        value=lambda c: float(np.median(c.daily["sleep_minutes"] / 60)),
    ),
    Case(
        glucose_in_mmol,
        "unit_scale",
        "blood.parquet",
        ("fasting_glucose looks like mmol/L", "multiply by 18.016"),
        column="fasting_glucose",
        value=lambda c: float(np.median(c.blood["fasting_glucose"] / 18.016)),
    ),
    Case(
        hr_400,
        "out_of_range",
        "daily.parquet",
        (
            "daily.parquet: user u0002, 2024-01-10, resting_hr = 400 bpm is outside the plausible range "
            "25–150 bpm; set missing (repair)",
        ),
        user_id="u0002",
        date="2024-01-10",
        column="resting_hr",
        value=400.0,
        repair=True,
    ),
    Case(
        age_150,
        "out_of_range",
        "demographics.parquet",
        ("user u0003, age = 150 years", "18–100 years"),
        user_id="u0003",
        column="age",
        value=150.0,
        repair=True,
    ),
    Case(
        steps_as_text,
        "bad_type",
        "daily.parquet",
        ("user u0001, 2024-01-03, steps = 'lots' is not a number", "type string", "1 value(s)"),
        user_id="u0001",
        date="2024-01-03",
        column="steps",
        value="lots",
    ),
    Case(
        duplicate_user_day,
        "duplicate_user_day",
        "daily.parquet",
        ("user u0001, 2024-01-05: 2 rows for the same user-day; keep one",),
        user_id="u0001",
        date="2024-01-05",
        value=2,
    ),
    Case(
        blood_unknown_user,
        "unknown_user",
        "blood.parquet",
        ("user u9999: blood panel for a user with no records in daily.parquet",),
        user_id="u9999",
    ),
    Case(
        daily_user_without_demographics,
        "unknown_user",
        "daily.parquet",
        ("user u0002: daily records for a user with no row in demographics.parquet",),
        user_id="u0002",
    ),
    Case(
        non_monotonic_dates,
        "non_monotonic_dates",
        "daily.parquet",
        ("user u0003, 2024-01-20", "date 2024-01-20 comes after 2024-01-21", "sort rows by user_id, date"),
        user_id="u0003",
        date="2024-01-20",
        column="date",
        value="2024-01-20",
    ),
    Case(missing_file, "missing_file", "blood.parquet", ("blood.parquet: file is missing",)),
    Case(corrupted_parquet, "unreadable_file", "demographics.parquet", ("cannot be read as Parquet",)),
    Case(
        bad_sex_code,
        "bad_category",
        "demographics.parquet",
        ("user u0002, sex = 'X' is not a valid code; use one of F, M",),
        user_id="u0002",
        column="sex",
        value="X",
    ),
    Case(
        decreasing_percentiles,
        "non_monotonic_percentiles",
        "reference.parquet",
        ("metric steps, age band 30-39, sex M", "p50 = 25 is below p25 = 30", "must not decrease"),
        column="p50",
        value=25.0,
    ),
    Case(
        edited_file,
        "content_hash",
        "cohort.json",
        ("does not match", "changed after the cohort was written"),
        column="content_hash",
        value=lambda c: content_hash(c),
    ),
    Case(
        schema_version,
        "schema_version",
        "cohort.json",
        ("schema_version = 99", "reads schema_version 1"),
        column="schema_version",
        value=99,
    ),
    Case(missing_manifest, "missing_file", "cohort.json", ("cohort.json: file is missing",)),
]


@pytest.mark.parametrize("case", CASES, ids=[c.inject.__name__ for c in CASES])
def test_each_fault_gives_one_clear_problem(
    cohort: Cohort, tmp_path: Path, rewrite: Rewrite, case: Case
) -> None:
    folder = case.inject(cohort, tmp_path, rewrite)
    report = validate_cohort(folder)
    assert len(report.problems) == 1, report.lines()
    problem = report.problems[0]
    assert (problem in report.repairs) is case.repair
    assert not report.ok
    assert problem.code == case.code
    assert problem.file == case.file
    assert problem.message.startswith(f"{case.file}: ")
    for text in case.must_contain:
        assert text in problem.message, problem.message
    assert problem.user_id == case.user_id
    assert problem.date == case.date
    assert problem.column == case.column
    expected = case.value(cohort) if callable(case.value) else case.value
    assert (
        problem.value == pytest.approx(expected) if isinstance(expected, float) else problem.value == expected
    )
    assert report.lines() == [problem.message]


@pytest.mark.parametrize("case", CASES, ids=[c.inject.__name__ for c in CASES])
def test_loading_a_broken_cohort(cohort: Cohort, tmp_path: Path, rewrite: Rewrite, case: Case) -> None:
    folder = case.inject(cohort, tmp_path, rewrite)
    if case.repair:
        loaded = load_cohort(folder)
        assert len(loaded.repairs) == 1
        with pytest.raises(CohortValidationError):
            load_cohort(folder, repair=False)
    else:
        with pytest.raises(CohortValidationError) as err:
            load_cohort(folder)
        assert len(err.value.problems) == 1
        assert case.file in err.value.problems[0]


def test_clean_cohort_is_ok(cohort: Cohort, saved: Path) -> None:
    for source in (cohort, saved, str(saved)):
        report = validate_cohort(source)
        assert isinstance(report, ValidationReport)
        assert report.ok, report.lines()
        assert report.lines() == []


def test_in_memory_problems_name_the_table(cohort: Cohort) -> None:
    daily = cohort.daily.copy()
    daily.loc[_row(daily, "u0001", "2024-01-02"), "hrv"] = -5.0
    report = validate_cohort(replace(cohort, daily=daily))
    assert [p.code for p in report.repairs] == ["out_of_range"]
    assert report.repairs[0].message.startswith("daily: user u0001, 2024-01-02, hrv = -5 ms")
    assert report.errors == ()


def test_in_memory_row_order_is_not_an_error(cohort: Cohort) -> None:
    assert validate_cohort(replace(cohort, daily=cohort.daily.iloc[::-1])).ok


def test_isolated_values_are_listed_one_by_one(cohort: Cohort) -> None:
    daily = cohort.daily.copy()
    daily.loc[[0, 50, 90], "steps"] = [-1.0, 250_000.0, 1e9]
    report = validate_cohort(replace(cohort, daily=daily))
    assert [p.code for p in report.problems] == ["out_of_range"] * 3
    assert {p.value for p in report.problems} == {-1.0, 250_000.0, 1e9}


def test_mostly_out_of_range_without_a_factor_is_one_column_error(cohort: Cohort) -> None:
    daily = cohort.daily.assign(stress=np.linspace(-900.0, -200.0, len(cohort.daily)))
    report = validate_cohort(replace(cohort, daily=daily))
    assert [p.code for p in report.problems] == ["column_out_of_range"]
    assert "no common unit factor" in report.problems[0].message


@pytest.mark.parametrize(
    "target",
    ["does-not-exist", "a-file"],
)
def test_bad_paths_are_problems_not_crashes(tmp_path: Path, target: str) -> None:
    path = tmp_path / target
    if target == "a-file":
        path.write_text("hello")
    report = validate_cohort(path)
    assert [p.code for p in report.problems] == ["missing_file"]
    with pytest.raises(CohortValidationError):
        load_cohort(path)


def test_empty_folder_lists_every_missing_file(tmp_path: Path) -> None:
    report = validate_cohort(tmp_path)
    assert sorted(p.file for p in report.problems) == [
        "blood.parquet",
        "cohort.json",
        "daily.parquet",
        "demographics.parquet",
        "reference.parquet",
    ]


def test_garbage_manifest_is_a_problem(saved: Path) -> None:
    (saved / "cohort.json").write_text("{not json")
    report = validate_cohort(saved)
    assert [p.code for p in report.problems] == ["unreadable_file"]
    assert report.problems[0].file == "cohort.json"


def test_problem_str_is_its_message() -> None:
    p = Problem("x", "daily.parquet", "daily.parquet: something")
    assert str(p) == "daily.parquet: something"


_REPLACEMENTS = {
    "text": lambda n: pa.array(["?"] * n),
    "bool": lambda n: pa.array([True] * n),
    "list": lambda n: pa.array([[1, 2]] * n),
    "tz-timestamp": lambda n: pa.array([0] * n, type=pa.timestamp("s", tz="UTC")),
    "time of day": lambda n: pa.array([3600] * n, type=pa.timestamp("s")),
}


@pytest.mark.parametrize("kind", list(_REPLACEMENTS))
@pytest.mark.parametrize(
    ("file", "column"),
    [
        ("daily.parquet", "user_id"),
        ("daily.parquet", "date"),
        ("daily.parquet", "hrv"),
        ("demographics.parquet", "sex"),
        ("blood.parquet", "draw_date"),
        ("reference.parquet", "n_users"),
        ("reference.parquet", "p50"),
    ],
)
def test_wrong_column_types_never_crash(
    saved: Path, rewrite: Rewrite, file: str, column: str, kind: str
) -> None:
    table = pq.read_table(saved / file)
    i = table.schema.get_field_index(column)
    rewrite(saved / file, table.set_column(i, column, _REPLACEMENTS[kind](table.num_rows)))
    report = validate_cohort(saved)
    assert not report.ok
    named = column if (kind, column) != ("text", "user_id") else None  # "?" is text: dupes instead
    assert any(p.file == file and p.column == named for p in report.problems), report.lines()
    with pytest.raises(CohortValidationError):
        load_cohort(saved)


def test_empty_blood_and_reference_are_fine(cohort: Cohort, tmp_path: Path) -> None:
    from wearbench.cohort import empty_tables

    _, _, blood, reference = empty_tables()
    folder = save_cohort(replace(cohort, blood=blood, reference=reference), tmp_path / "empty")
    loaded = load_cohort(folder)
    assert loaded.blood.empty
    assert loaded.reference.empty
    assert loaded.blood["draw_date"].dtype == np.dtype("datetime64[us]")
    assert loaded.blood["ldl"].dtype == np.float64


def test_duplicate_column_names_in_a_file(saved: Path, rewrite: Rewrite) -> None:
    table = pq.read_table(saved / "demographics.parquet")
    rewrite(saved / "demographics.parquet", table.append_column("age", table.column("age")))
    report = validate_cohort(saved)
    assert len(report.problems) == 1
    assert report.problems[0].code in ("duplicate_column", "unreadable_file")  # pyarrow may refuse to read
    assert report.problems[0].file == "demographics.parquet"
