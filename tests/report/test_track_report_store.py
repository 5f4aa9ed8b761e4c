"""Track runs in the report from a run store, the per-channel AUROC table and the example day."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from tests.report.test_track_report import _cells

from wearbench import WearbenchError
from wearbench.cli import cli
from wearbench.minutes import BINARY
from wearbench.report import report_runs
from wearbench.report._track_example import load_example
from wearbench.runner import RunStore, evaluate
from wearbench.sources import synthesize_minutes
from wearbench.tracks import read_imputation_results

METHODS = ("locf", "mean")
TABLES = ("skill-table", "rank-table", "channel-table", "auroc-table")
IMG = re.compile(r'src="(data:image/png;base64,[^"]+)"')


def write_example(path: Path, methods: tuple[str, ...] = METHODS) -> None:
    """A hand-made example day: HR, steps, energy and two sleep channels masked 09:00-12:00."""
    t = np.arange(1440)
    truth = np.full((19, 1440), np.nan, np.float32)
    truth[3] = np.where((t >= 600) & (t < 660), 100.0, 0.0)
    truth[5] = 60 + 20 * np.sin(2 * np.pi * t / 1440)
    truth[6] = 1.0 + 0.5 * np.cos(2 * np.pi * t / 720)
    truth[7] = np.where(t < 420, 1.0, 0.0)
    truth[8] = np.where(t < 450, 1.0, 0.0)
    mask = np.zeros((19, 1440), bool)
    mask[[3, 5, 6, 7, 8], 540:720] = True
    imputed = np.repeat(truth[None], len(methods), axis=0)
    for i in range(len(methods)):
        imputed[i][mask] = np.float32(10.0 * (i + 1))
    np.savez_compressed(
        path, truth=truth, mask=mask, imputed=imputed, methods=np.array(methods), user=np.array("u003"),
        date=np.array("2024-01-05"), approach=np.array("temporal_slice"),
    )  # fmt: skip


@pytest.fixture(scope="module")
def cohort(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return synthesize_minutes(6, 8, 3, tmp_path_factory.mktemp("trs") / "cohort")


def _impute(cohort: Path, out: Path, *extra: str) -> None:
    args = ["track", "impute", "--data", str(cohort), "--methods", ",".join(METHODS), "--out", str(out),
            "--seed", "5", "--test-share", "0.5", "-q", *extra]  # fmt: skip
    run = CliRunner().invoke(cli, args)
    assert run.exit_code == 0, run.output


def _page(paths: list[Path], out: Path) -> str:
    return report_runs(paths, out, n_examples=1, n_boot=50, track_n_boot=200).read_text(encoding="utf-8")


def _track_cells(page: str, tag: str = "t1") -> list[list[dict[str, str]]]:
    return [_cells(page, f"track-{tag}-{t}") for t in TABLES]


def test_store_gives_the_same_track_sections_as_the_folder(
    cohort: Path, eval_bench: Path, tmp_path: Path
) -> None:
    """WearableQA run and track run in one store: one page, track cells equal the RESULTS folder's."""
    evaluate(eval_bench, "baseline:oracle", tmp_path / "runs")
    _impute(cohort, tmp_path / "r", "--store", str(tmp_path / "runs"))
    from_store = _page([tmp_path / "runs"], tmp_path / "s.html")
    from_folder = _page([tmp_path / "r"], tmp_path / "f.html")
    assert from_store.index('<section id="leaderboard">') < from_store.index('<section id="track-t1-skill">')
    assert all(_track_cells(from_store))
    assert _track_cells(from_store) == _track_cells(from_folder)
    assert "track-t2" not in from_store


def test_folder_and_its_own_store_show_the_run_once(cohort: Path, tmp_path: Path) -> None:
    _impute(cohort, tmp_path / "r")
    assert (tmp_path / "r" / "runs.sqlite").is_file()
    page = _page([tmp_path / "r"], tmp_path / "p.html")
    assert '<section id="track-t1-skill">' in page
    assert "track-t2" not in page
    assert "OpenMHC imputation T1" not in page  # one run: no tag


def test_auroc_cells_are_mean_auroc_of_the_results(cohort: Path, tmp_path: Path) -> None:
    _impute(cohort, tmp_path / "r")
    _, errors = read_imputation_results(tmp_path / "r")
    cells = _cells(_page([tmp_path / "r"], tmp_path / "p.html"), "track-t1-auroc-table")
    scored = {(e.method, e.channel) for e in errors if e.kind == "auroc"}
    assert {(c["data-method"], int(c["data-channel"])) for c in cells} == scored
    assert scored
    assert {ch for _, ch in scored} <= set(BINARY)
    for c in cells:
        key = (c["data-method"], int(c["data-channel"]), "auroc")
        values = [e.value for e in errors if (e.method, e.channel, e.kind) == key]
        assert int(c["data-n"]) == len(values)
        assert float(c["data-auroc"]) == sum(values) / len(values)
        assert c["text"] == f"{sum(values) / len(values):.3f}"


def test_example_day_section_from_folder_and_from_store(cohort: Path, tmp_path: Path) -> None:
    _impute(cohort, tmp_path / "plain")
    # a RESULTS folder without an example day (as written before run_imputation kept one)
    (tmp_path / "plain" / "example.npz").unlink()
    (tmp_path / "plain" / "runs.sqlite").unlink()  # it holds the example too
    manifest = json.loads((tmp_path / "plain" / "manifest.json").read_text())
    del manifest["example"]
    (tmp_path / "plain" / "manifest.json").write_text(json.dumps(manifest))
    plain = _page([tmp_path / "plain"], tmp_path / "plain.html")
    assert '<section id="track-t1-example">' not in plain  # no example.npz: no section
    assert len(IMG.findall(plain)) == 1
    folder = tmp_path / "ex"
    folder.mkdir()
    for name in ("results.jsonl", "manifest.json"):
        shutil.copy(tmp_path / "plain" / name, folder / name)
    write_example(folder / "example.npz")
    with RunStore(tmp_path / "runs") as store:
        store.add_track_results(folder)
    page = _page([folder], tmp_path / "f.html")
    assert '<section id="track-t1-example">' in page
    assert "u003, 2024-01-05, temporal_slice; methods locf, mean" in page
    stored = _page([tmp_path / "runs"], tmp_path / "s.html")
    assert IMG.findall(page) == IMG.findall(stored)  # the same two figures, byte for byte
    assert len(IMG.findall(page)) == 2


def test_load_example_by_hand_and_bad_files(tmp_path: Path) -> None:
    write_example(tmp_path / "e.npz")
    ex = load_example((tmp_path / "e.npz").read_bytes())
    assert (ex.methods, ex.user, ex.date, ex.approach) == (METHODS, "u003", "2024-01-05", "temporal_slice")
    assert int(ex.mask.sum()) == 5 * 180
    assert ex.imputed.shape == (2, 19, 1440)
    assert float(ex.imputed[1, 5, 600]) == 20.0
    np.savez_compressed(tmp_path / "bad.npz", truth=np.zeros((19, 1440), np.float32))
    with pytest.raises(WearbenchError, match="lacks mask, imputed, methods, user, date, approach"):
        load_example((tmp_path / "bad.npz").read_bytes(), "bad.npz")
    with np.load(tmp_path / "e.npz") as npz:
        arrays = {k: npz[k] for k in npz.files}
    np.savez_compressed(tmp_path / "short.npz", **(arrays | {"methods": np.array(["locf"])}))
    with pytest.raises(WearbenchError, match="wrong shapes"):
        load_example((tmp_path / "short.npz").read_bytes())
    with pytest.raises(WearbenchError, match="not a readable example day"):
        load_example(b"not a zip")
