"""The forecasting track end to end at a small size: synth-minutes → track forecast → track score."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from wearbench import UnknownNameError, WearbenchError
from wearbench.cli import cli
from wearbench.scoring import forecast_scopes, score_track_results
from wearbench.sources import synthesize_minutes
from wearbench.tracks import read_forecast_results, read_imputation_results, run_forecast

METHODS = ("seasonal_naive", "linear")


@pytest.fixture(scope="module")
def cohort(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """8 synthetic users x 21 days (seed 1): 3 of the 4 test users (seed 0, share 0.5) have origins."""
    return synthesize_minutes(8, 21, 1, tmp_path_factory.mktemp("minutes") / "cohort")


@pytest.fixture(scope="module")
def results(cohort: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("results") / "r"
    args = ["track", "forecast", "--data", str(cohort), "--methods", ",".join(METHODS), "--out", str(out)]
    run = CliRunner().invoke(cli, [*args, "--seed", "0", "--test-share", "0.5", "-q"])
    assert run.exit_code == 0, run.output
    return out


def test_manifest_and_rows(results: Path) -> None:
    manifest, errors = read_forecast_results(results)
    assert manifest["kind"] == "wearbench-forecast-results"
    assert (manifest["horizon"], manifest["history"], manifest["max_origins"]) == (24, 336, 100)
    split = manifest["split"]
    assert split["n_train"] == split["n_test"] == 4
    assert split["test_windows"] == sum(manifest["origins"][u]["drawn"] for u in split["test"]) > 0
    assert split["train_windows"] == sum(manifest["origins"][u]["drawn"] for u in split["train"]) > 0
    assert manifest["fallback"]["seasonal_naive"] == {"n": 0, "rate": 0.0}
    assert 0.0 <= manifest["fallback"]["linear"]["rate"] < 1.0
    assert set(manifest["seconds"]) == set(METHODS)
    assert len(errors) == manifest["results"]["rows"] > 0
    assert {e.method for e in errors} == set(METHODS)
    assert {e.participant for e in errors} <= set(split["test"])
    for e in errors:
        assert (e.kind == "mae") == (e.channel <= 6)
        assert e.n_hours > 0


def test_bytes_fixed_by_the_seed(cohort: Path, results: Path, tmp_path: Path) -> None:
    again = run_forecast(cohort, METHODS, tmp_path / "again", 0, test_share=0.5)
    assert (tmp_path / "again" / "results.jsonl").read_bytes() == (results / "results.jsonl").read_bytes()
    assert again["origins"] == json.loads((results / "manifest.json").read_text())["origins"]
    other = run_forecast(cohort, METHODS, tmp_path / "other", 1, test_share=0.5)
    assert other["results"]["sha256"] != again["results"]["sha256"]


def test_score_cli_json(results: Path) -> None:
    run = CliRunner().invoke(
        cli, ["track", "score", str(results), "--baseline", "seasonal_naive", "--format", "json"]
    )
    assert run.exit_code == 0, run.output
    doc = json.loads(run.output)
    assert doc["track"] == "forecast"
    assert doc["baseline"] == "seasonal_naive"
    assert doc["n_boot"] == 1000
    assert (
        doc["scopes"]
        == [s.name for s in forecast_scopes()]
        == ["Overall", "Activity", "Physiology", "Sleep", "Workout"]
    )
    assert list(doc["methods"]) == list(METHODS)
    for cell in doc["methods"]["seasonal_naive"].values():
        assert (cell["skill"], cell["ci_low"], cell["ci_high"]) == (0.0, 0.0, 0.0)
    for cell in doc["methods"]["linear"].values():
        assert set(cell) == {"skill", "ci_low", "ci_high", "rank"}
    assert score_track_results(results, n_boot=10)["baseline"] == "seasonal_naive"  # default by kind


def test_h48_and_errors(cohort: Path, tmp_path: Path) -> None:
    m = run_forecast(cohort, ["seasonal_naive"], tmp_path / "h48", 0, 48, test_share=0.5)
    assert m["horizon"] == 48
    assert all(o["valid"] <= 21 for o in m["origins"].values())
    with pytest.raises(UnknownNameError):
        run_forecast(cohort, ["autoetz"], tmp_path / "x", 0)
    with pytest.raises(ValueError, match="multiple of 24"):
        run_forecast(cohort, ["seasonal_naive"], tmp_path / "x", 0, 36)
    with pytest.raises(WearbenchError, match="not imputation results"):
        read_imputation_results(tmp_path / "h48")
    run = CliRunner().invoke(
        cli, ["track", "forecast", "--data", str(cohort), "--methods", "x", "--out", str(tmp_path / "o")]
    )
    assert run.exit_code != 0
