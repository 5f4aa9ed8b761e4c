"""The OpenMHC imputation part of the HTML report against ``wearbench track score --format json``."""

from __future__ import annotations

import json
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from wearbench import WearbenchError
from wearbench.cli import cli
from wearbench.minutes import CONTINUOUS
from wearbench.report import report_runs
from wearbench.report._track import channel_errors, is_track_results
from wearbench.runner import evaluate
from wearbench.sources import synthesize_minutes
from wearbench.tracks import ImputationError, read_imputation_results

METHODS = ("locf", "mean", "linear")
SCOPES = ["Overall", "Activity", "Physiology", "Sleep", "Workout", "Semantic"]


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """6 synthetic users x 8 days (seed 3), imputed by LOCF, mean and linear (seed 5)."""
    root = tmp_path_factory.mktemp("track")
    cohort = synthesize_minutes(6, 8, 3, root / "cohort")
    args = [
        "track",
        "impute",
        "--data",
        str(cohort),
        "--methods",
        ",".join(METHODS),
        "--out",
        str(root / "r"),
    ]
    run = CliRunner().invoke(cli, [*args, "--seed", "5", "--test-share", "0.5", "-q"])
    assert run.exit_code == 0, run.output
    return root / "r"


@pytest.fixture(scope="module")
def scored(results: Path) -> dict[str, Any]:
    run = CliRunner().invoke(cli, ["track", "score", str(results), "--baseline", "locf", "--format", "json"])
    assert run.exit_code == 0, run.output
    doc: dict[str, Any] = json.loads(run.output)
    return doc


@pytest.fixture(scope="module")
def page(results: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    out = tmp_path_factory.mktemp("rep") / "r.html"
    run = CliRunner().invoke(cli, ["report", str(results), "--out", str(out)])
    assert run.exit_code == 0, run.output
    return out.read_text(encoding="utf-8")


class _Cells(HTMLParser):
    """``td`` elements carrying ``data-method``: attributes, the text outside ``small``, the table id."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: list[dict[str, str]] = []
        self._open: dict[str, str] | None = None
        self._table = ""
        self._small = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "table":
            self._table = a.get("id", "")
        elif tag == "td" and "data-method" in a:
            self._open = a | {"text": "", "table": self._table}
        elif tag == "small":
            self._small += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self._open is not None:
            self.cells.append(self._open)
            self._open = None
        elif tag == "small":
            self._small -= 1

    def handle_data(self, data: str) -> None:
        if self._open is not None and not self._small:
            self._open["text"] += data


def _cells(page: str, table: str) -> list[dict[str, str]]:
    parser = _Cells()
    parser.feed(page)
    return [c for c in parser.cells if c["table"] == table]


def _num(cell: dict[str, str], key: str) -> float | None:
    return float(cell[key]) if key in cell else None


def test_skill_cells_equal_the_score_json(page: str, scored: dict[str, Any]) -> None:
    cells = _cells(page, "track-t1-skill-table")
    assert [(c["data-method"], c["data-scope"]) for c in cells] == [(m, s) for m in METHODS for s in SCOPES]
    for c in cells:
        want = scored["methods"][c["data-method"]][c["data-scope"]]
        got = {k: _num(c, f"data-{k.replace('_', '-')}") for k in ("skill", "ci_low", "ci_high")}
        assert got == {k: want[k] for k in ("skill", "ci_low", "ci_high")}
        assert c["text"] == ("–" if want["skill"] is None else f"{want['skill']:.3f}")
    locf = [c for c in cells if c["data-method"] == "locf"]
    assert [(_num(c, "data-skill"), _num(c, "data-ci-low"), _num(c, "data-ci-high")) for c in locf] == [
        (0.0, 0.0, 0.0)
    ] * len(SCOPES)
    assert all(c["text"] == "0.000" for c in locf)


def test_rank_cells_equal_the_score_json(page: str, scored: dict[str, Any]) -> None:
    cells = _cells(page, "track-t1-rank-table")
    assert len(cells) == len(METHODS) * len(SCOPES)
    for c in cells:
        assert _num(c, "data-rank") == scored["methods"][c["data-method"]][c["data-scope"]]["rank"]
    for scope in SCOPES:  # three methods: ranks 1..3 sum to 6 with ties averaged
        assert sum(float(c["data-rank"]) for c in cells if c["data-scope"] == scope) == 6.0


def test_channel_cells_are_mean_mae_of_the_results(page: str, results: Path) -> None:
    _, errors = read_imputation_results(results)
    cells = _cells(page, "track-t1-channel-table")
    assert len(cells) == len(METHODS) * len(CONTINUOUS)
    for c in cells:
        values = [
            e.value
            for e in errors
            if (e.method, e.channel, e.kind) == (c["data-method"], int(c["data-channel"]), "mae")
        ]
        assert int(c["data-n"]) == len(values) > 0
        assert float(c["data-mae"]) == sum(values) / len(values)


def test_page_has_sections_and_two_inline_figures(page: str) -> None:
    for sid in ("skill", "rank", "channels", "figure"):
        assert f'<section id="track-t1-{sid}">' in page
    # the skill figure and the example day (run_imputation writes example.npz)
    assert page.count('src="data:image/png;base64,') == 2
    assert "<script" not in page
    assert "<link" not in page


def test_channel_errors_by_hand() -> None:
    rows = [
        ImputationError("a", "random_noise", "u1", 5, "mae", 2.0, 10),
        ImputationError("a", "sleep_gap", "u2", 5, "mae", 4.0, 3),
        ImputationError("a", "random_noise", "u1", 7, "auroc", 0.9, 10),
        ImputationError("b", "random_noise", "u1", 0, "mae", 1.5, 10),
    ]
    assert channel_errors(rows) == {("a", 5): (3.0, 2), ("b", 0): (1.5, 1)}
    assert channel_errors([]) == {}


def test_is_track_results(results: Path, tmp_path: Path) -> None:
    assert is_track_results(results)
    assert not is_track_results(tmp_path)
    (tmp_path / "manifest.json").write_text('{"kind": "minute-cohort"}', encoding="utf-8")
    assert not is_track_results(tmp_path)
    (tmp_path / "manifest.json").write_text("not json", encoding="utf-8")
    assert not is_track_results(tmp_path)
    with pytest.raises(WearbenchError, match="no run store"):
        report_runs([tmp_path], tmp_path / "x.html")


def test_run_folder_and_results_folder_give_one_page(eval_bench: Path, results: Path, tmp_path: Path) -> None:
    evaluate(eval_bench, "baseline:oracle", tmp_path / "runs")
    out = report_runs([tmp_path / "runs", results], tmp_path / "both.html", n_examples=1, n_boot=50)
    page = out.read_text(encoding="utf-8")
    assert page.count("<html") == 1
    assert page.index('<section id="leaderboard">') < page.index('<section id="track-t1-skill">')
    assert len(_cells(page, "track-t1-skill-table")) == len(METHODS) * len(SCOPES)
