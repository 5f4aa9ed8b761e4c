"""The imputation track with learned methods at a tiny size: names, example.npz, manifest, bytes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from wearbench import UnknownNameError
from wearbench.cli import cli
from wearbench.sources import synthesize_minutes
from wearbench.tracks import LearnedSettings, read_imputation_results, run_imputation

METHODS = ("locf", "dlinear", "dlinear_7d")
TINY = LearnedSettings(epochs=1, max_train_days=20, n_threads=1)


@pytest.fixture(scope="module")
def cohort(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """5 synthetic users x 10 days (seed 3; 14 retained days)."""
    return synthesize_minutes(5, 10, 3, tmp_path_factory.mktemp("minutes") / "cohort")


@pytest.fixture(scope="module")
def results(cohort: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("results") / "r"
    run_imputation(cohort, METHODS, out, 1, test_share=0.4, learned=TINY)
    return out


def test_example_npz_has_the_documented_shapes(results: Path) -> None:
    manifest = json.loads((results / "manifest.json").read_text())
    blob = (results / "example.npz").read_bytes()
    assert manifest["example"] == {"file": "example.npz", "sha256": hashlib.sha256(blob).hexdigest()}
    with np.load(results / "example.npz", allow_pickle=False) as ex:
        assert ex["truth"].shape == (19, 1440)
        assert ex["truth"].dtype == np.float32
        assert ex["mask"].dtype == bool
        assert ex["imputed"].shape == (3, 19, 1440)
        assert ex["methods"].tolist() == list(METHODS)
        assert str(ex["user"]) == manifest["split"]["test"][0]
        assert str(ex["approach"]) == "temporal_slice"
        mask, truth, imputed = ex["mask"], ex["truth"], ex["imputed"]
        assert mask.any()
        assert not (mask & np.isnan(truth)).any()  # A lies inside the observed cells
        for k in range(3):  # observed, unmasked cells are the truth in every method's day
            keep = ~mask & ~np.isnan(truth)
            np.testing.assert_array_equal(imputed[k][keep], truth[keep])
            assert np.isfinite(imputed[k][mask]).all()


def test_manifest_records_each_learned_methods_settings(results: Path) -> None:
    manifest, errors = read_imputation_results(results)
    assert set(manifest["learned"]) == {"dlinear", "dlinear_7d"}
    s = manifest["learned"]["dlinear_7d"]
    assert s["model"] == "DLinear"
    assert s["window_days"] == 7
    assert s["epochs"] == 1
    assert s["patch_minutes"] == 10
    assert s["seed"] == 1
    assert s["params"]["moving_avg_window_size"] == 5
    assert 0 < s["train_days"] <= manifest["split"]["train_days"]
    assert {e.method for e in errors} == set(METHODS)


def test_a_second_run_writes_the_same_bytes(cohort: Path, results: Path, tmp_path: Path) -> None:
    run_imputation(cohort, METHODS, tmp_path, 1, test_share=0.4, learned=TINY)
    for name in ("results.jsonl", "example.npz"):
        assert (tmp_path / name).read_bytes() == (results / name).read_bytes()


def test_unknown_learned_name_suggests_close_matches(cohort: Path, tmp_path: Path) -> None:
    with pytest.raises(UnknownNameError, match="did you mean 'saits'"):
        run_imputation(cohort, ["locf", "sait"], tmp_path, 0)


def test_cli_takes_learned_methods_and_epochs(cohort: Path, tmp_path: Path) -> None:
    args = [
        "track",
        "impute",
        "--data",
        str(cohort),
        "--methods",
        "locf,dlinear",
        "--out",
        str(tmp_path / "r"),
    ]
    run = CliRunner().invoke(cli, [*args, "--epochs", "1", "--max-train-days", "5", "--threads", "1", "-q"])
    assert run.exit_code == 0, run.output
    manifest = json.loads((tmp_path / "r" / "manifest.json").read_text())
    assert manifest["learned"]["dlinear"]["train_days"] == min(5, manifest["split"]["train_days"])
    assert manifest["methods"] == ["locf", "dlinear"]
