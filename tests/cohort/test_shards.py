"""Sharded cohort folders: writer, reader, validation, hashing and sharded synthesis."""

from __future__ import annotations

import hashlib
import json
import pickle
from pathlib import Path

import pandas as pd
import pytest

from wearbench._errors import CohortValidationError, WearbenchError
from wearbench.cohort import (
    Cohort,
    ShardedCohortWriter,
    load_cohort,
    open_cohort,
    read_manifest,
    save_cohort,
    validate_cohort,
)

TABLE_NAMES = ("daily", "demographics", "blood", "reference")


def _equal(a: Cohort, b: Cohort) -> None:
    for name in TABLE_NAMES:
        pd.testing.assert_frame_equal(getattr(a, name), getattr(b, name), obj=name)


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_layout_by_hand(cohort: Cohort, tmp_path: Path) -> None:
    out = save_cohort(cohort, tmp_path / "c", shard_users=2)
    assert sorted(_files(out)) == [
        "cohort.json",
        "ground_truth.json",
        "reference.parquet",
        "shards/00000/blood.parquet",
        "shards/00000/daily.parquet",
        "shards/00000/demographics.parquet",
        "shards/00001/blood.parquet",
        "shards/00001/daily.parquet",
        "shards/00001/demographics.parquet",
    ]
    manifest = read_manifest(out)
    assert manifest["layout"] == "sharded"
    assert sorted(manifest["files"]) == ["ground_truth.json", "reference.parquet"]
    s0, s1 = manifest["shards"]
    assert (s0["dir"], s0["first_user"], s0["last_user"], s0["users"], s0["user_days"]) == (
        "shards/00000", "u0001", "u0002", 2, 80,
    )  # fmt: skip
    assert (s1["dir"], s1["first_user"], s1["last_user"], s1["users"], s1["user_days"]) == (
        "shards/00001", "u0003", "u0003", 1, 40,
    )  # fmt: skip
    data = (out / "shards/00001/daily.parquet").read_bytes()
    assert s1["files"]["daily.parquet"] == hashlib.sha256(data).hexdigest()
    assert manifest["counts"]["users"] == 3
    assert manifest["counts"]["user_days"] == 120
    assert manifest["counts"]["blood_draws"] == 3
    assert manifest["counts"]["demographics_rows"] == 3
    assert manifest["date_range"] == {"first": "2024-01-01", "last": "2024-02-09"}
    single = save_cohort(cohort, tmp_path / "s")
    assert manifest["content_hash"] != read_manifest(single)["content_hash"]
    assert read_manifest(single)["counts"] == manifest["counts"]
    first = pd.read_parquet(out / "shards/00000/demographics.parquet")
    assert first["user_id"].tolist() == ["u0001", "u0002"]


def test_round_trip_equals_single_file(cohort: Cohort, tmp_path: Path) -> None:
    whole = load_cohort(save_cohort(cohort, tmp_path / "s"))
    sharded = load_cohort(save_cohort(cohort, tmp_path / "c", shard_users=2))
    _equal(whole, sharded)
    assert sharded.truth == whole.truth
    assert dict(sharded.source) == dict(whole.source)
    assert validate_cohort(tmp_path / "c").ok


def test_hash_and_bytes_stable(cohort: Cohort, tmp_path: Path) -> None:
    a = save_cohort(cohort, tmp_path / "a", shard_users=1)
    b = save_cohort(cohort, tmp_path / "b", shard_users=1)
    assert _files(a) == _files(b)
    save_cohort(load_cohort(a), a, shard_users=1)  # load → save round-trips the bytes
    assert _files(a) == _files(b)


def test_load_users_across_boundary(cohort: Cohort, tmp_path: Path) -> None:
    handle = open_cohort(save_cohort(cohort, tmp_path / "c", shard_users=2))
    assert handle.users == ("u0001", "u0002", "u0003")
    assert handle.shard_users == (("u0001", "u0002"), ("u0003",))
    assert handle.sharded
    assert handle.content_hash == read_manifest(tmp_path / "c")["content_hash"]
    handle = pickle.loads(pickle.dumps(handle))
    part = handle.load_users(["u0003", "u0002"])
    whole = load_cohort(tmp_path / "c")
    for name in ("daily", "demographics", "blood"):
        frame = getattr(whole, name)
        cut = frame[frame["user_id"].isin(["u0002", "u0003"])].reset_index(drop=True)
        pd.testing.assert_frame_equal(getattr(part, name), cut, obj=name)
    pd.testing.assert_frame_equal(part.reference, whole.reference)
    assert part.truth is None
    assert dict(part.source) == dict(whole.source)
    assert handle.demographics()["user_id"].tolist() == ["u0001", "u0002", "u0003"]
    assert handle.truth() == whole.truth
    with pytest.raises(WearbenchError, match="u0009"):
        handle.load_users(["u0009"])


def test_load_users_reads_only_needed_shards(cohort: Cohort, tmp_path: Path) -> None:
    handle = open_cohort(save_cohort(cohort, tmp_path / "c", shard_users=2))
    (tmp_path / "c/shards/00000/daily.parquet").unlink()
    assert handle.load_users(["u0003"]).n_users == 1


def test_repairs_listed(cohort: Cohort, tmp_path: Path) -> None:
    cohort.daily.loc[cohort.daily["user_id"] == "u0003", "resting_hr"] = [500.0] + [60.0] * 39
    handle = open_cohort(save_cohort(cohort, tmp_path / "c", shard_users=2))
    part = handle.load_users(["u0003"])
    assert len(part.repairs) == 1
    assert "u0003" in part.repairs[0]
    assert pd.isna(part.daily["resting_hr"].iloc[0])
    assert handle.load_users(["u0001"]).repairs == ()
    assert len(load_cohort(tmp_path / "c").repairs) == 1


def test_tampered_shard_file_named(cohort: Cohort, tmp_path: Path) -> None:
    out = save_cohort(cohort, tmp_path / "c", shard_users=2)
    handle = open_cohort(out)
    frame = pd.read_parquet(out / "shards/00001/daily.parquet")
    frame.loc[0, "steps"] = 1234.0
    frame.to_parquet(out / "shards/00001/daily.parquet")
    with pytest.raises(CohortValidationError, match=r"shards/00001/daily\.parquet: sha256 does not match"):
        handle.load_users(["u0003"])
    handle.load_users(["u0001"])  # the other shard is untouched
    report = validate_cohort(out)
    assert [p.file for p in report.errors] == ["shards/00001/daily.parquet"]
    with pytest.raises(CohortValidationError, match=r"shards/00001/daily\.parquet"):
        load_cohort(out)


def _write(path: Path, parts: list[Cohort], reference: pd.DataFrame) -> None:
    with ShardedCohortWriter(path, source={}, reference=reference) as writer:
        for part in parts:
            writer.add(part)


def test_writer_refuses_out_of_order(cohort: Cohort, tmp_path: Path) -> None:
    parts = _parts(cohort)
    with pytest.raises(WearbenchError, match="'u0002' is not after 'u0003'"):
        _write(tmp_path / "c", [parts[2], parts[1]], cohort.reference)
    assert list(tmp_path.iterdir()) == []  # no folder, no hidden sibling left


def test_failed_write_keeps_previous(cohort: Cohort, tmp_path: Path) -> None:
    out = save_cohort(cohort, tmp_path / "c", shard_users=2)
    before = _files(out)
    parts = _parts(cohort)
    bad = Cohort(
        parts[1].daily.drop(columns="steps"), parts[1].demographics, parts[1].blood, parts[1].reference
    )
    with pytest.raises(CohortValidationError, match="shards/00001"):
        _write(out, [parts[0], bad], cohort.reference)
    assert _files(out) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c"]


def test_incremental_equals_save(cohort: Cohort, tmp_path: Path) -> None:
    with ShardedCohortWriter(tmp_path / "w", source=cohort.source, truth=cohort.truth) as w:
        for part in _parts(cohort):
            w.add(part)
        w.reference = cohort.reference
    assert _files(tmp_path / "w") == _files(save_cohort(cohort, tmp_path / "s", shard_users=1))


def test_single_file_opens_as_one_shard(cohort: Cohort, tmp_path: Path) -> None:
    handle = open_cohort(save_cohort(cohort, tmp_path / "s"))
    assert not handle.sharded
    assert handle.shard_users == (("u0001", "u0002", "u0003"),)
    assert handle.load_users(["u0002"]).daily["user_id"].unique().tolist() == ["u0002"]


def test_manifest_shard_order_checked(cohort: Cohort, tmp_path: Path) -> None:
    out = save_cohort(cohort, tmp_path / "c", shard_users=2)
    manifest = json.loads((out / "cohort.json").read_text())
    manifest["shards"].reverse()
    (out / "cohort.json").write_text(json.dumps(manifest))
    assert "shard_order" in validate_cohort(out).codes()


def _parts(cohort: Cohort) -> list[Cohort]:
    from wearbench.cohort._shards import split_users

    return list(split_users(cohort, 1))


def test_writer_needs_reference_and_block(cohort: Cohort, tmp_path: Path) -> None:
    writer = ShardedCohortWriter(tmp_path / "c", source={})
    with pytest.raises(WearbenchError, match="outside its with-block"):
        writer.add(_parts(cohort)[0])
    with pytest.raises(WearbenchError, match="no reference table"):
        _write_without_reference(writer, _parts(cohort))
    assert list(tmp_path.iterdir()) == []


def _write_without_reference(writer: ShardedCohortWriter, parts: list[Cohort]) -> None:
    with writer:
        for part in parts:
            writer.add(part)
