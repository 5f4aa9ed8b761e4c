"""Forecast and outcome RESULTS folders in the run store: round trip, idempotence, old stores, the CLI."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from wearbench import WearbenchError
from wearbench.cli import cli
from wearbench.runner import RunStore, read_track_folder, record_track_results, track_run_id
from wearbench.sources import synthesize_minutes
from wearbench.tracks import (
    ForecastError,
    OutcomePrediction,
    read_forecast_results,
    read_outcome_results,
    run_forecast,
    run_predict,
)


@pytest.fixture(scope="module")
def cohort(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """8 synthetic users x 21 days (seed 1): enough days for forecast origins."""
    return synthesize_minutes(8, 21, 1, tmp_path_factory.mktemp("tk") / "cohort")


@pytest.fixture(scope="module")
def forecast(cohort: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("tkf") / "f"
    run_forecast(cohort, ["seasonal_naive", "linear"], out, 0, test_share=0.5)
    return out


@pytest.fixture(scope="module")
def outcome(cohort: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("tko") / "o"
    run_predict(cohort, ["linear"], out, 0, test_share=0.5)
    return out


def _count(path: Path, table: str) -> int:
    with sqlite3.connect(path) as db:
        return int(db.execute(f"SELECT COUNT(*) FROM {table}").fetchone()[0])


def test_forecast_round_trip_equals_the_folder(forecast: Path, tmp_path: Path) -> None:
    manifest, errors = read_forecast_results(forecast)
    assert errors
    assert all(isinstance(e, ForecastError) for e in errors)
    with RunStore(tmp_path) as store:
        run_id, added = store.add_track_results(forecast)
        assert run_id == track_run_id(manifest)
        assert run_id.startswith("forecast-")
        assert added == len(errors) == manifest["results"]["rows"]
        assert store.track_records(run_id) == (manifest, errors)
        [run] = store.track_runs()
        assert (run.kind, run.n_rows, run.has_example) == ("wearbench-forecast-results", len(errors), False)
        assert run.results_sha256 == manifest["results"]["sha256"]
        with pytest.raises(WearbenchError, match="not imputation results"):
            store.track_results(run_id)
    assert _count(tmp_path / "runs.sqlite", "track_forecast_results") == len(errors)
    assert _count(tmp_path / "runs.sqlite", "track_results") == 0


def test_outcome_round_trip_equals_the_folder(outcome: Path, tmp_path: Path) -> None:
    manifest, preds = read_outcome_results(outcome)
    assert preds
    assert all(isinstance(p, OutcomePrediction) for p in preds)
    with RunStore(tmp_path) as store:
        run_id, added = store.add_track_results(outcome)
        assert run_id == track_run_id(manifest)
        assert run_id.startswith("outcome-")
        assert added == len(preds)
        got_manifest, got = store.track_records(run_id)
        assert (got_manifest, got) == (manifest, preds)
        assert all(type(p.fallback) is bool for p in got)  # stored as 0/1, read back as bool
    assert read_track_folder(outcome) == (manifest, preds)


def test_adding_twice_adds_nothing(forecast: Path, outcome: Path, tmp_path: Path) -> None:
    ids = [record_track_results(forecast, tmp_path), record_track_results(outcome, tmp_path)]
    with RunStore(tmp_path) as store:
        assert store.add_track_results(forecast) == (ids[0], 0)
        assert store.add_track_results(outcome) == (ids[1], 0)
        assert [r.run_id for r in store.track_runs()] == ids
    db = tmp_path / "runs.sqlite"
    assert _count(db, "track_runs") == 2
    assert _count(db, "track_forecast_results") == len(read_forecast_results(forecast)[1])
    assert _count(db, "track_outcome_results") == len(read_outcome_results(outcome)[1])


def test_a_store_with_only_the_imputation_tables_opens_and_gains_the_others(
    forecast: Path, tmp_path: Path
) -> None:
    old = """
    CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE track_runs(
        run_id TEXT PRIMARY KEY, kind TEXT NOT NULL, source TEXT NOT NULL, data_hash TEXT,
        results_sha256 TEXT NOT NULL, n_rows INTEGER NOT NULL, manifest TEXT NOT NULL, example BLOB,
        wearbench_version TEXT NOT NULL, created TEXT NOT NULL);
    INSERT INTO meta VALUES('schema_version', '1');
    """
    with sqlite3.connect(tmp_path / "runs.sqlite") as db:
        db.executescript(old)
    with RunStore(tmp_path) as store:
        assert store.track_runs() == []
        run_id, _ = store.add_track_results(forecast)
        assert store.track_records(run_id) == read_forecast_results(forecast)


def test_a_folder_of_another_kind_is_named(tmp_path: Path) -> None:
    (tmp_path / "x").mkdir()
    (tmp_path / "x" / "manifest.json").write_text('{"kind": "something-else"}')
    with RunStore(tmp_path / "s") as store, pytest.raises(WearbenchError, match="kind 'something-else'"):
        store.add_track_results(tmp_path / "x")


def test_cli_forecast_and_predict_record(cohort: Path, tmp_path: Path) -> None:
    args = ["track", "forecast", "--data", str(cohort), "--methods", "seasonal_naive,linear",
            "--test-share", "0.5", "-q", "--out", str(tmp_path / "f")]  # fmt: skip
    run = CliRunner().invoke(cli, args)
    assert run.exit_code == 0, run.output
    with RunStore(tmp_path / "f") as store:
        [tr] = store.track_runs()
        assert f"recorded as track run {tr.run_id}" in run.output
        assert store.track_records(tr.run_id) == read_forecast_results(tmp_path / "f")
    args = ["track", "predict", "--data", str(cohort), "--methods", "linear", "--test-share", "0.5",
            "-q", "--out", str(tmp_path / "o"), "--store", str(tmp_path / "runs")]  # fmt: skip
    run = CliRunner().invoke(cli, args)
    assert run.exit_code == 0, run.output
    assert not (tmp_path / "o" / "runs.sqlite").exists()
    with RunStore(tmp_path / "runs") as store:
        [tr] = store.track_runs()
        assert store.track_records(tr.run_id) == read_outcome_results(tmp_path / "o")
