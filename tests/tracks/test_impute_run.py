"""The imputation track end to end at a small size: synth-minutes → preprocess → impute → score."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from wearbench import UnknownNameError, WearbenchError
from wearbench.cli import cli, main
from wearbench.scoring import check_approach_names, imputation_scopes
from wearbench.sources import synthesize_minutes
from wearbench.tracks import read_imputation_results, run_imputation, split_users

METHODS = ("locf", "mean", "linear", "temporal_mean")


@pytest.fixture(scope="module")
def cohort(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """6 synthetic users x 8 days (seed 3)."""
    return synthesize_minutes(6, 8, 3, tmp_path_factory.mktemp("minutes") / "cohort")


@pytest.fixture(scope="module")
def results(cohort: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("results") / "r"
    args = ["track", "impute", "--data", str(cohort), "--methods", ",".join(METHODS), "--out", str(out)]
    run = CliRunner().invoke(cli, [*args, "--seed", "5", "--test-share", "0.5", "-q"])
    assert run.exit_code == 0, run.output
    return out


def test_preprocess_cli_counts_every_users_days(cohort: Path) -> None:
    run = CliRunner().invoke(cli, ["track", "preprocess", "--data", str(cohort), "--format", "json"])
    assert run.exit_code == 0, run.output
    doc = json.loads(run.output)
    assert [u["user_id"] for u in doc["users"]] == [f"u{i:04d}" for i in range(1, 7)]
    for u in doc["users"]:
        assert u["n_days"] == 8
        assert u["retained"] == 8 - u["wear_dropped"] - u["variance_dropped"]
    assert doc["total"]["n_days"] == 48
    assert doc["total"]["retained"] == sum(u["retained"] for u in doc["users"]) > 0


def test_score_cli_json_has_every_method_and_scope(results: Path) -> None:
    run = CliRunner().invoke(cli, ["track", "score", str(results), "--baseline", "locf", "--format", "json"])
    assert run.exit_code == 0, run.output
    doc = json.loads(run.output)
    scopes = [s.name for s in imputation_scopes()]
    assert doc["scopes"] == scopes == ["Overall", "Activity", "Physiology", "Sleep", "Workout", "Semantic"]
    assert list(doc["methods"]) == list(METHODS)
    assert doc["n_boot"] == 1000
    for method in METHODS:
        assert list(doc["methods"][method]) == scopes
        for cell in doc["methods"][method].values():
            assert set(cell) == {"skill", "ci_low", "ci_high", "rank"}
    for cell in doc["methods"]["locf"].values():
        assert (cell["skill"], cell["ci_low"], cell["ci_high"]) == (0.0, 0.0, 0.0)
        assert 1.0 <= cell["rank"] <= len(METHODS)
    overall = doc["methods"]["linear"]["Overall"]
    assert overall["ci_low"] <= overall["skill"] <= overall["ci_high"]


def test_score_cli_text_table(results: Path) -> None:
    run = CliRunner().invoke(cli, ["track", "score", str(results), "--baseline", "locf", "--n-boot", "20"])
    assert run.exit_code == 0, run.output
    assert run.output.startswith("skill vs locf (")
    assert "\nSemantic\n" in run.output
    assert run.output.count("temporal_mean") == 6  # one row per scope


def test_results_rows_and_manifest(results: Path) -> None:
    manifest, errors = read_imputation_results(results)
    assert manifest["methods"] == list(METHODS)
    assert manifest["split"]["n_train"] == manifest["split"]["n_test"] == 3
    assert set(manifest["split"]["train"]).isdisjoint(manifest["split"]["test"])
    assert len(errors) == manifest["results"]["rows"] > 0
    semantic = {"sleep_gap", "workout_gap", "intensity_failure"}
    assert all(e.kind == "mae" for e in errors if e.approach in semantic)  # no binary scoring there
    assert all(e.kind == ("mae" if e.channel < 7 else "auroc") for e in errors)
    assert set(manifest["seconds"]) == set(METHODS)
    rates = [c["rate"] for m in manifest["substitution"].values() for c in m.values()]
    assert all(0.0 <= r <= 1.0 for r in rates)


def test_same_seed_same_bytes_and_masks_independent_of_methods(cohort: Path, tmp_path: Path) -> None:
    a = run_imputation(cohort, ["locf", "linear"], tmp_path / "a", seed=2, approaches=["random_noise"])
    b = run_imputation(cohort, ["locf", "linear"], tmp_path / "b", seed=2, approaches=["random_noise"])
    assert (tmp_path / "a/results.jsonl").read_bytes() == (tmp_path / "b/results.jsonl").read_bytes()
    assert a["results"]["sha256"] == b["results"]["sha256"]
    run_imputation(cohort, ["linear"], tmp_path / "c", seed=2, approaches=["random_noise"])
    _, only = read_imputation_results(tmp_path / "c")
    _, both = read_imputation_results(tmp_path / "a")
    assert only == [e for e in both if e.method == "linear"]


def test_unknown_method_suggests_close_matches(cohort: Path, tmp_path: Path) -> None:
    with pytest.raises(UnknownNameError, match="did you mean 'linear'"):
        run_imputation(cohort, ["locf", "linera"], tmp_path / "x")
    assert not (tmp_path / "x").exists()


def test_unknown_method_cli_error(cohort: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["track", "impute", "--data", str(cohort), "--methods", "lcof", "--out", str(tmp_path / "x"), "-q"]
    with pytest.raises(SystemExit) as exit_info:
        main(argv)
    assert exit_info.value.code == 1
    assert "unknown imputation method 'lcof'; did you mean 'locf'?" in capsys.readouterr().err


def test_unknown_baseline_names_the_methods(results: Path) -> None:
    run = CliRunner().invoke(cli, ["track", "score", str(results), "--baseline", "brits"])
    assert isinstance(run.exception, WearbenchError)
    assert "'brits' not among locf, mean, linear, temporal_mean" in str(run.exception)


def test_split_users_is_seeded_and_disjoint() -> None:
    ids = [f"u{i}" for i in range(10)]
    train, test = split_users(ids, 4, 0.2)
    assert (train, test) == split_users(ids, 4, 0.2)
    assert len(test) == 2
    assert sorted(train + test) == ids
    train2, test2 = split_users(["a", "b"], 0, 0.9)  # 0.9 * 2 rounds to 2: capped at n - 1
    assert len(train2) == len(test2) == 1
    with pytest.raises(WearbenchError, match="at least 2 users"):
        split_users(["a"], 0)


def test_approach_names_agree_between_tracks_and_scoring() -> None:
    check_approach_names()


def test_results_file_edit_is_detected(results: Path, tmp_path: Path) -> None:
    copy = tmp_path / "r"
    copy.mkdir()
    (copy / "manifest.json").write_bytes((results / "manifest.json").read_bytes())
    (copy / "results.jsonl").write_bytes((results / "results.jsonl").read_bytes()[:-10])
    with pytest.raises(WearbenchError, match="SHA-256 differs"):
        read_imputation_results(copy)


def test_lost_test_user_days_are_reported(cohort: Path, tmp_path: Path) -> None:
    m = run_imputation(cohort, ["mean"], tmp_path / "m", 1, max_days_per_user=1, approaches=["sleep_gap"])
    assert m["split"]["train_days"] <= m["split"]["n_train"]
    assert m["split"]["test_days"] + len(m["split"]["test_without_days"]) == m["split"]["n_test"]
    assert np.isfinite(m["seconds"]["mean"]["fit"])
