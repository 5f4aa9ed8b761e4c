"""Imputation RESULTS folders in the run store: round trip, idempotence, old stores, the CLI."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from wearbench import WearbenchError
from wearbench.cli import cli
from wearbench.runner import RunStore, record_track_results, track_run_id
from wearbench.sources import synthesize_minutes
from wearbench.tracks import read_imputation_results, run_imputation


@pytest.fixture(scope="module")
def cohort(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """6 synthetic users x 8 days (seed 3)."""
    return synthesize_minutes(6, 8, 3, tmp_path_factory.mktemp("tc") / "cohort")


@pytest.fixture(scope="module")
def results(cohort: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("tr") / "r"
    run_imputation(
        cohort, ["locf", "mean"], out, seed=1, test_share=0.5, approaches=["random_noise", "sleep_gap"]
    )
    return out


def _count(path: Path, table: str) -> int:
    with sqlite3.connect(path) as db:
        return int(db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])


def test_round_trip_equals_the_folder(results: Path, tmp_path: Path) -> None:
    manifest, errors = read_imputation_results(results)
    assert errors  # the fixture scored something
    with RunStore(tmp_path) as store:
        run_id, added = store.add_track_results(results)
        assert run_id == track_run_id(manifest)
        assert added == len(errors)
        assert store.track_results(run_id) == (manifest, errors)
        [run] = store.track_runs()
        assert (run.run_id, run.n_rows, run.has_example, run.source) == (
            run_id,
            len(errors),
            True,  # run_imputation writes example.npz
            str(results),
        )
        assert run.data_hash == manifest["data"]["content_hash"]
        assert run.results_sha256 == manifest["results"]["sha256"]
        assert store.track_example(run_id) == (results / "example.npz").read_bytes()


def test_adding_twice_adds_nothing(results: Path, tmp_path: Path) -> None:
    first = record_track_results(results, tmp_path)
    with RunStore(tmp_path) as store:
        assert store.add_track_results(results) == (first, 0)
        assert [r.run_id for r in store.track_runs()] == [first]
    n = len(read_imputation_results(results)[1])
    assert _count(tmp_path / "runs.sqlite", "track_results") == n
    assert _count(tmp_path / "runs.sqlite", "track_runs") == 1


def test_partial_run_is_completed_on_add(results: Path, tmp_path: Path) -> None:
    """A store holding part of a track run's rows (a crash mid-write) gets the rest; none twice."""
    run_id = record_track_results(results, tmp_path)
    with sqlite3.connect(tmp_path / "runs.sqlite") as db:
        db.execute("DELETE FROM track_results WHERE pos % 2 = 0")
    with RunStore(tmp_path) as store:
        with pytest.raises(WearbenchError, match="error rows"):
            store.track_results(run_id)
        n = len(read_imputation_results(results)[1])
        assert store.add_track_results(results) == (run_id, (n + 1) // 2)
        assert store.track_results(run_id) == read_imputation_results(results)


def test_run_id_ignores_timings_only() -> None:
    a = {"kind": "k", "seed": 1, "seconds": {"locf": {"fit": 1.0}}, "seconds_total": 3.0}
    b = {**a, "seconds": {"locf": {"fit": 9.0}}, "seconds_total": 7.5}
    assert track_run_id(a) == track_run_id(b)
    assert track_run_id(a) != track_run_id({**a, "seed": 2})
    text = json.dumps({"kind": "k", "seed": 1}, sort_keys=True, separators=(",", ":"))
    assert track_run_id(a) == "impute-" + hashlib.sha256(text.encode()).hexdigest()[:16]


def test_example_is_stored_as_a_blob_and_checked(results: Path, tmp_path: Path) -> None:
    folder = tmp_path / "r"
    folder.mkdir()
    (folder / "results.jsonl").write_bytes((results / "results.jsonl").read_bytes())
    # a manifest that declares no example (as written before run_imputation kept one)
    manifest = json.loads((results / "manifest.json").read_text())
    del manifest["example"]
    (folder / "manifest.json").write_text(json.dumps(manifest))
    np.savez_compressed(folder / "example.npz", truth=np.zeros((19, 1440), np.float32))
    blob = (folder / "example.npz").read_bytes()
    with RunStore(tmp_path / "s") as store:
        run_id, _ = store.add_track_results(folder)
        assert store.track_example(run_id) == blob
        assert store.track_runs()[0].has_example
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest["example"] = {"file": "example.npz", "sha256": "0" * 64}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    with RunStore(tmp_path / "s2") as store, pytest.raises(WearbenchError, match=r"example\.npz: SHA-256"):
        store.add_track_results(folder)
    assert _count(tmp_path / "s2" / "runs.sqlite", "track_runs") == 0


def test_a_store_written_before_track_tables_still_opens(results: Path, tmp_path: Path) -> None:
    """The store as it was before this change (no track tables) opens, keeps its run and gains them."""
    old = """
    CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE runs(run_id TEXT PRIMARY KEY, model TEXT NOT NULL, setting TEXT NOT NULL,
        params TEXT NOT NULL, bench TEXT NOT NULL, bench_hash TEXT NOT NULL, n_items INTEGER NOT NULL,
        wearbench_version TEXT NOT NULL, created TEXT NOT NULL);
    INSERT INTO meta VALUES('schema_version', '1');
    INSERT INTO runs VALUES('r1', 'baseline:oracle', 'repr=csv|mode=direct|ablate=-', '{}', '/b', 'h', 3,
        '0.1', 't');
    """
    with sqlite3.connect(tmp_path / "runs.sqlite") as db:
        db.executescript(old)
    with RunStore(tmp_path) as store:
        assert [(r.run_id, r.model, r.n_items) for r in store.runs()] == [("r1", "baseline:oracle", 3)]
        assert store.track_runs() == []
        run_id, _ = store.add_track_results(results)
        assert store.track_results(run_id) == read_imputation_results(results)


def test_unknown_track_run_and_bad_folder(tmp_path: Path) -> None:
    with RunStore(tmp_path) as store:
        with pytest.raises(WearbenchError, match="no track run 'impute-x'"):
            store.track_results("impute-x")
        assert store.track_example("impute-x") is None
        with pytest.raises(WearbenchError, match="no track results"):
            store.add_track_results(tmp_path / "missing")


def test_cli_impute_records_in_results_and_in_another_store(cohort: Path, tmp_path: Path) -> None:
    args = ["track", "impute", "--data", str(cohort), "--methods", "locf,mean", "--seed", "1",
            "--test-share", "0.5", "--approaches", "random_noise,sleep_gap", "-q"]  # fmt: skip
    run = CliRunner().invoke(cli, [*args, "--out", str(tmp_path / "r")])
    assert run.exit_code == 0, run.output
    want = read_imputation_results(tmp_path / "r")
    with RunStore(tmp_path / "r") as store:
        [tr] = store.track_runs()
        assert f"recorded as track run {tr.run_id}" in run.output
        assert store.track_results(tr.run_id) == want
    run = CliRunner().invoke(cli, [*args, "--out", str(tmp_path / "r2"), "--store", str(tmp_path / "runs")])
    assert run.exit_code == 0, run.output
    assert not (tmp_path / "r2" / "runs.sqlite").exists()
    with RunStore(tmp_path / "runs") as store:
        [tr2] = store.track_runs()
        assert tr2.run_id == tr.run_id  # same settings, data and results: the same track run
        assert store.track_results(tr2.run_id) == read_imputation_results(tmp_path / "r2")
        assert store.track_results(tr2.run_id)[1] == want[1]
