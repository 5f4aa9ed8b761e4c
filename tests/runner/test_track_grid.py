"""`wearbench track run --config`: a tiny grid runs, re-runs skip, a changed setting re-runs one cell."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from wearbench import WearbenchError
from wearbench.cli import cli
from wearbench.runner import RunStore, load_grid_config, run_track_grid
from wearbench.sources import synthesize_minutes

GRID = """
root: out
data: cohort
seeds: [0, 1]
tracks:
  forecast:
    methods: [linear]
    options: {test_share: 0.5}
  predict:
    methods: [linear]
    options: {test_share: 0.5}
"""
FORECAST_OPTIONS = "options: {test_share: 0.5}\n  predict"


@pytest.fixture(scope="module")
def cohort(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return synthesize_minutes(8, 21, 1, tmp_path_factory.mktemp("grid") / "cohort")


def _setup(cohort: Path, tmp_path: Path, text: str = GRID) -> Path:
    (tmp_path / "cohort").symlink_to(cohort)
    (tmp_path / "grid.yaml").write_text(text)
    return tmp_path / "grid.yaml"


def _stamps(root: Path) -> dict[str, tuple[int, bytes]]:
    return {
        str(p.relative_to(root)): (p.stat().st_mtime_ns, p.read_bytes())
        for p in sorted(root.rglob("*"))
        if p.is_file() and p.parent != root  # the cells' files, not the store or the report
    }


def test_grid_runs_then_skips_then_reruns_one_cell(cohort: Path, tmp_path: Path) -> None:
    config = _setup(cohort, tmp_path)
    first = run_track_grid(config)
    assert [(c.track, c.seed, c.status) for c in first.cells] == [
        ("forecast", 0, "ran"), ("forecast", 1, "ran"), ("predict", 0, "ran"), ("predict", 1, "ran"),
    ]  # fmt: skip
    root = tmp_path / "out"
    manifest = json.loads((root / "forecast" / "cohort" / "seed-1" / "manifest.json").read_text())
    assert manifest["methods"] == ["seasonal_naive", "linear"]  # the reference is added first
    assert manifest["seed"] == 1
    with RunStore(root) as store:
        assert [r.run_id for r in store.track_runs()] == [c.run_id for c in first.cells]
    before = _stamps(root)
    again = run_track_grid(config)
    assert [c.status for c in again.cells] == ["skipped"] * 4
    assert _stamps(root) == before  # nothing touched
    assert [c.run_id for c in again.cells] == [c.run_id for c in first.cells]
    assert "4 cells: 0 ran, 4 skipped" in again.table()
    config.write_text(GRID.replace(FORECAST_OPTIONS, "options: {test_share: 0.5, max_origins: 5}\n  predict"))
    third = run_track_grid(config)
    assert [c.status for c in third.cells] == ["ran", "ran", "skipped", "skipped"]
    after = _stamps(root)
    predict_before = {k: v for k, v in before.items() if k.startswith("predict")}
    assert {k: v for k, v in after.items() if k.startswith("predict")} == predict_before
    key = "forecast/cohort/seed-0/manifest.json"
    assert json.loads(after[key][1])["max_origins"] == 5


def test_cli_runs_the_grid_and_writes_one_page(cohort: Path, tmp_path: Path) -> None:
    config = _setup(cohort, tmp_path)
    run = CliRunner().invoke(cli, ["track", "run", "--config", str(config), "--n-boot", "20"])
    assert run.exit_code == 0, run.output
    assert "4 cells: 4 ran, 0 skipped" in run.output
    page = (tmp_path / "out" / "report.html").read_text()
    assert "OpenMHC forecasting T1: skill" in page
    assert "OpenMHC outcome prediction T4: per-task metrics" in page
    assert 'data-task="' in page
    assert "http://" not in page
    assert "https://" not in page
    assert "<script" not in page


@pytest.mark.parametrize(
    ("text", "key"),
    [
        (GRID.replace("root: out", "rot: out"), "rot: unknown key"),
        (GRID.replace("methods: [linear]\n    " + FORECAST_OPTIONS, "methodz: [x]\n  predict"),
         "tracks.forecast.methodz: unknown key"),
        (GRID.replace(FORECAST_OPTIONS, "options: {horizon: '24'}\n  predict"),
         "tracks.forecast.options.horizon: expected int"),
        (GRID.replace("seeds: [0, 1]", "seeds: [-1]"), "seeds: expected"),
        (GRID.replace("  predict:", "  classify:"), "tracks.classify: unknown track"),
        (GRID.replace("data: cohort\n", ""), "data: missing"),
    ],
)  # fmt: skip
def test_a_bad_config_names_the_key(tmp_path: Path, text: str, key: str) -> None:
    (tmp_path / "grid.yaml").write_text(text)
    with pytest.raises(WearbenchError, match=key):
        load_grid_config(tmp_path / "grid.yaml")
