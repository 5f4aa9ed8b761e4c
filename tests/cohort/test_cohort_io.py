"""Cohort folders: deterministic bytes, byte-identical round trip, content hash, load semantics."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from wearbench import CohortValidationError, WearbenchError
from wearbench.cohort import (
    BIOMARKER_NAMES,
    METRIC_NAMES,
    METRICS,
    SCHEMA_VERSION,
    Cohort,
    content_hash,
    load_cohort,
    save_cohort,
)

FILES = (
    "blood.parquet",
    "cohort.json",
    "daily.parquet",
    "demographics.parquet",
    "ground_truth.json",
    "reference.parquet",
)


def _bytes(folder: Path) -> dict[str, bytes]:
    return {f.name: f.read_bytes() for f in sorted(folder.iterdir())}


def test_save_writes_the_cohort_files(saved: Path) -> None:
    assert tuple(sorted(f.name for f in saved.iterdir())) == FILES


def test_round_trip_is_byte_identical(saved: Path, tmp_path: Path) -> None:
    again = save_cohort(load_cohort(saved), tmp_path / "again")
    first, second = _bytes(saved), _bytes(again)
    assert first.keys() == second.keys()
    for name in first:
        assert first[name] == second[name], name


def test_two_saves_give_identical_bytes(cohort: Cohort, tmp_path: Path) -> None:
    a = _bytes(save_cohort(cohort, tmp_path / "a"))
    b = _bytes(save_cohort(cohort, tmp_path / "b"))
    assert a == b


def test_loaded_frames_equal_the_saved_ones(cohort: Cohort, saved: Path) -> None:
    loaded = load_cohort(saved)
    # Dates load as datetime64[us] whatever unit the input had (pandas 2 builds ns, pandas 3 us).
    assert str(loaded.daily["date"].dtype) == "datetime64[us]"
    assert str(loaded.blood["draw_date"].dtype) == "datetime64[us]"
    for name in ("daily", "demographics", "blood", "reference"):
        original = getattr(cohort, name)
        for col in ("date", "draw_date"):
            if col in original.columns:
                original = original.assign(**{col: original[col].astype("datetime64[us]")})
        pd.testing.assert_frame_equal(getattr(loaded, name), original)
    assert loaded.source == cohort.source
    assert loaded.truth == cohort.truth
    assert loaded.repairs == ()


def test_loaded_dtypes(saved: Path) -> None:
    daily = load_cohort(saved).daily
    assert list(daily.columns) == ["user_id", "date", *METRIC_NAMES]
    assert daily["date"].dtype == np.dtype("datetime64[us]")
    assert (daily["date"] == daily["date"].dt.normalize()).all()
    assert pd.api.types.is_string_dtype(daily["user_id"].dtype)
    assert all(daily[m].dtype == np.float64 for m in METRIC_NAMES)
    blood = load_cohort(saved).blood
    assert list(blood.columns) == ["user_id", "draw_date", *BIOMARKER_NAMES]
    assert blood["draw_date"].dtype == np.dtype("datetime64[us]")


def test_rows_are_sorted_by_key_on_disk(cohort: Cohort, tmp_path: Path) -> None:
    shuffled = replace(cohort, daily=cohort.daily.sample(frac=1.0, random_state=1))
    table = pq.read_table(save_cohort(shuffled, tmp_path / "s") / "daily.parquet")
    keys = list(zip(table.column("user_id").to_pylist(), table.column("date").to_pylist(), strict=True))
    assert keys == sorted(keys)


def test_parquet_has_explicit_schema_and_no_metadata(saved: Path) -> None:
    schema = pq.read_schema(saved / "daily.parquet")
    assert schema.metadata is None
    assert str(schema.field("user_id").type) == "string"
    assert str(schema.field("date").type) == "date32[day]"
    assert all(str(schema.field(m).type) == "double" for m in METRIC_NAMES)
    meta = pq.ParquetFile(saved / "daily.parquet").metadata
    assert meta.metadata is None
    assert meta.row_group(0).column(2).compression == "ZSTD"


def test_manifest_contents(cohort: Cohort, saved: Path) -> None:
    text = (saved / "cohort.json").read_text(encoding="utf-8")
    manifest = json.loads(text)
    assert text.endswith("}\n")
    assert text == json.dumps(manifest, sort_keys=True, indent=2, ensure_ascii=False) + "\n"
    assert manifest["schema_version"] == SCHEMA_VERSION
    assert manifest["source"] == cohort.source
    assert manifest["content_hash"] == content_hash(cohort)
    assert manifest["counts"] == {
        "users": 3,
        "user_days": 120,
        "days_per_user": {"min": 40, "median": 40.0, "max": 40},
        "demographics_rows": 3,
        "blood_draws": 3,
        "reference_rows": len(cohort.reference),
    }
    assert manifest["date_range"] == {"first": "2024-01-01", "last": "2024-02-09"}
    assert set(manifest["files"]) == set(FILES) - {"cohort.json"}
    for name, digest in manifest["files"].items():
        assert hashlib.sha256((saved / name).read_bytes()).hexdigest() == digest


def test_truth_none_writes_no_ground_truth_file(cohort: Cohort, saved: Path) -> None:
    save_cohort(replace(cohort, truth=None), saved)  # overwrite in place
    assert not (saved / "ground_truth.json").exists()
    assert load_cohort(saved).truth is None


# ------------------------------------------------------------------------------------ hash


def test_hash_is_a_sha256_hex_digest(cohort: Cohort) -> None:
    h = content_hash(cohort)
    assert len(h) == 64
    assert int(h, 16) >= 0


def test_hash_ignores_row_and_column_order(cohort: Cohort) -> None:
    shuffled = replace(
        cohort,
        daily=cohort.daily.sample(frac=1.0, random_state=3)[list(reversed(cohort.daily.columns))],
        demographics=cohort.demographics.iloc[::-1],
        blood=cohort.blood.sample(frac=1.0, random_state=4),
        reference=cohort.reference.sample(frac=1.0, random_state=5),
    )
    assert content_hash(shuffled) == content_hash(cohort)


def test_hash_ignores_source_and_repairs(cohort: Cohort) -> None:
    other = replace(cohort, source={"name": "elsewhere"}, repairs=("something",))
    assert content_hash(other) == content_hash(cohort)


def test_hash_treats_nan_and_null_alike(cohort: Cohort) -> None:
    daily = cohort.daily.copy()
    daily.loc[5, "hrv"] = np.nan
    with_nan = replace(cohort, daily=daily)
    objects = daily.astype({"hrv": object})
    objects.loc[5, "hrv"] = None
    assert content_hash(replace(cohort, daily=objects)) == content_hash(with_nan)


@pytest.mark.parametrize(
    ("table", "column", "row", "value"),
    [
        ("daily", "resting_hr", 0, 61.0001),
        ("daily", "steps", 77, np.nan),
        ("daily", "user_id", 3, "u0009"),
        ("daily", "date", 10, pd.Timestamp("2023-12-31")),
        ("demographics", "sex", 1, "F"),
        ("demographics", "age", 2, 63.0),
        ("blood", "ldl", 0, 116.0),
        ("reference", "p50", 4, 0.5),
    ],
)
def test_hash_changes_with_any_single_value(
    cohort: Cohort, table: str, column: str, row: int, value: object
) -> None:
    frame = getattr(cohort, table).copy()
    frame.loc[row, column] = value
    assert content_hash(replace(cohort, **{table: frame})) != content_hash(cohort)


def test_hash_changes_with_column_name_and_truth(cohort: Cohort) -> None:
    renamed = cohort.daily.rename(columns={"stress": "stress_level"})
    assert content_hash(replace(cohort, daily=renamed)) != content_hash(cohort)
    assert content_hash(replace(cohort, truth={"seed": 1})) != content_hash(cohort)
    assert content_hash(replace(cohort, truth=None)) != content_hash(cohort)


_BASE: dict[str, tuple[Cohort, str]] = {}


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    row=st.integers(0, 119),
    col=st.sampled_from(METRIC_NAMES),
    delta=st.floats(min_value=1e-9, max_value=1e6) | st.floats(min_value=-1e6, max_value=-1e-9),
)
def test_hash_detects_any_metric_change(
    make_cohort: Callable[..., Cohort], row: int, col: str, delta: float
) -> None:
    if "base" not in _BASE:
        c = make_cohort()
        _BASE["base"] = (c, content_hash(c))
    cohort, base = _BASE["base"]
    daily = cohort.daily.copy()
    old = float(daily.loc[row, col])
    new = old + delta
    assume(new != old)
    daily.loc[row, col] = new
    assert content_hash(replace(cohort, daily=daily)) != base


# ------------------------------------------------------------------------------------ load


def test_load_repairs_out_of_range_values(cohort: Cohort, tmp_path: Path) -> None:
    daily = cohort.daily.copy()
    row = daily.index[(daily["user_id"] == "u0002") & (daily["date"] == "2024-01-10")][0]
    daily.loc[row, "resting_hr"] = 400.0
    folder = save_cohort(replace(cohort, daily=daily), tmp_path / "hr")
    loaded = load_cohort(folder)
    fixed = loaded.daily.set_index(["user_id", "date"]).loc[
        ("u0002", pd.Timestamp("2024-01-10")), "resting_hr"
    ]
    assert np.isnan(fixed)
    assert len(loaded.repairs) == 1
    assert "resting_hr = 400 bpm" in loaded.repairs[0]
    assert int(loaded.daily["resting_hr"].isna().sum()) == 1
    with pytest.raises(CohortValidationError) as err:
        load_cohort(folder, repair=False)
    assert err.value.problems == list(loaded.repairs)


def test_load_raises_with_one_line_per_problem(cohort: Cohort, tmp_path: Path) -> None:
    daily = cohort.daily.drop(columns=["stress"])
    blood = pd.concat([cohort.blood, cohort.blood.iloc[:1].assign(user_id="u0404")], ignore_index=True)
    folder = save_cohort(replace(cohort, daily=daily, blood=blood), tmp_path / "bad", validate=False)
    with pytest.raises(CohortValidationError) as err:
        load_cohort(folder)
    assert len(err.value.problems) == 2
    assert str(folder) in str(err.value)
    assert any("stress" in p for p in err.value.problems)
    assert any("u0404" in p for p in err.value.problems)


def test_save_refuses_a_cohort_with_errors(cohort: Cohort, tmp_path: Path) -> None:
    demo = cohort.demographics.copy()
    demo.loc[0, "sex"] = "female"
    with pytest.raises(CohortValidationError, match="sex = 'female'"):
        save_cohort(replace(cohort, demographics=demo), tmp_path / "refused")
    assert not (tmp_path / "refused").exists()


def test_save_refuses_a_file_path(cohort: Cohort, tmp_path: Path) -> None:
    file = tmp_path / "file.txt"
    file.write_text("x")
    with pytest.raises(WearbenchError, match="not a folder"):
        save_cohort(cohort, file)


def test_save_rejects_unserialisable_truth(cohort: Cohort, tmp_path: Path) -> None:
    with pytest.raises(WearbenchError, match="JSON"):
        save_cohort(replace(cohort, truth={"f": object()}), tmp_path / "t", validate=False)


def test_metric_units_are_documented() -> None:
    assert all(m.unit for m in METRICS)
