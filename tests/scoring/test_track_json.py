"""One score JSON for the three OpenMHC tracks: schema, hand-checked breakdowns, folder == store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from wearbench.cli import cli
from wearbench.runner import RunStore, track_run_id
from wearbench.scoring import (
    channel_breakdown,
    check_score_json,
    check_track_score_json,
    score_track_records,
    score_track_results,
)
from wearbench.sources import synthesize_minutes
from wearbench.tracks import ForecastError, run_forecast, run_imputation, run_predict


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("tj")
    cohort = synthesize_minutes(8, 21, 1, root / "cohort")
    run_imputation(cohort, ["locf", "mean"], root / "i", 0, test_share=0.5, approaches=["random_noise"],
                   max_days_per_user=3)  # fmt: skip
    run_forecast(cohort, ["seasonal_naive", "linear"], root / "f", 0, test_share=0.5)
    run_predict(cohort, ["linear"], root / "o", 0, test_share=0.5)
    return {"openmhc-imputation": root / "i", "openmhc-forecast": root / "f", "openmhc-outcome": root / "o"}


@pytest.mark.parametrize("kind", ["openmhc-imputation", "openmhc-forecast", "openmhc-outcome"])
def test_every_kind_follows_the_one_schema(folders: dict[str, Path], kind: str, tmp_path: Path) -> None:
    scored = score_track_results(folders[kind], n_boot=20)
    check_track_score_json(scored)
    assert scored["kind"] == kind
    assert scored["n"] == scored["n_participants"] > 0
    assert scored["ci_method"] == "participant_bootstrap"
    manifest = json.loads((folders[kind] / "manifest.json").read_text())
    assert scored["run_id"] == track_run_id(manifest)
    for cells in scored["methods"].values():  # issue 15's contract: these keys per method and scope
        for scope in scored["scopes"]:
            assert set(cells[scope]) == {"skill", "ci_low", "ci_high", "rank"}
    assert scored["methods"][scored["baseline"]]["Overall"]["skill"] == 0.0
    with RunStore(tmp_path) as store:  # the store gives the same JSON as the folder
        run_id, _ = store.add_track_results(folders[kind])
        assert score_track_records(*store.track_records(run_id), n_boot=20) == scored
    with pytest.raises(ValueError, match="missing"):  # not a question-benchmark score (no model, setting)
        check_score_json(scored)


def test_cli_json_is_the_schema(folders: dict[str, Path]) -> None:
    run = CliRunner().invoke(cli, ["track", "score", str(folders["openmhc-forecast"]), "--format", "json",
                                   "--n-boot", "20"])  # fmt: skip
    assert run.exit_code == 0, run.output
    doc = json.loads(run.output)
    check_track_score_json(doc)
    assert doc["breakdowns"]["by_channel"]["linear"]


def test_outcome_breakdown_counts_the_test_users(folders: dict[str, Path]) -> None:
    scored = score_track_results(folders["openmhc-outcome"], n_boot=20)
    manifest = json.loads((folders["openmhc-outcome"] / "manifest.json").read_text())
    for task, cell in scored["breakdowns"]["by_task"]["linear"].items():
        assert cell["n"] == manifest["tasks"][task]["n_test"]
        assert cell["value"] == scored["metrics"]["linear"][task]
        assert cell["domain"] == manifest["tasks"][task]["domain"]


def test_channel_breakdown_by_hand() -> None:
    rows = [
        ForecastError("a", "u1", 5, "mae", 2.0, 10),
        ForecastError("a", "u2", 5, "mae", 4.0, 7),
        ForecastError("a", "u1", 9, "auroc", 0.75, 24),
        ForecastError("b", "u1", 5, "mae", 1.0, 10),
    ]
    got = channel_breakdown(rows)
    assert list(got) == ["a", "b"]
    assert got["a"]["Watch HeartRate"] == {"metric": "mae", "value": 3.0, "n": 2}
    assert list(got["a"]) == ["Watch HeartRate", "Walking"]
    assert got["b"] == {"Watch HeartRate": {"metric": "mae", "value": 1.0, "n": 1}}


def test_a_broken_json_is_named() -> None:
    with pytest.raises(ValueError, match=r"\$: missing"):
        check_track_score_json({"kind": "openmhc-forecast"})
