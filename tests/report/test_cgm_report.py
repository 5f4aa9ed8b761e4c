"""One report for a run store holding WearableQA and HealthLoopQA runs, and one score-JSON schema.

The store holds a WearableQA oracle run (the report fixtures' benchmark) and HealthLoopQA oracle
and naive-mean runs on a 3-patient x 3-day full-sampling benchmark. Every Table 2 and template
cell of the page must carry exactly the numbers of ``wearbench score --format json``.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

pytest.importorskip("simglucose")

from tests.report.test_track_report import _cells as _track_cells

from wearbench import WearbenchError
from wearbench.cli import cli, main
from wearbench.report import report_runs, write_cgm_report
from wearbench.report._cgm_html import cgm_run_label, prompt_text
from wearbench.runner import RunInfo, RunStore, Setting, evaluate
from wearbench.scoring import SCORE_JSON_SCHEMA, check_score_json
from wearbench.sources import synthesize_minutes

PATIENTS = ("adolescent#002", "adult#003", "child#001")
N_BOOT = 200
#: Cells of Table 2 with items: PM has descriptive and memory templates, AD all three levels, PD pattern.
POPULATED = {
    *("pm/descriptive", "pm/memory", "pm/all", "ad/descriptive", "ad/memory", "ad/pattern", "ad/all"),
    *("pd/pattern", "pd/all", "all/descriptive", "all/memory", "all/pattern", "all/all"),
}


@pytest.fixture(scope="module")
def cgm_bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cgmreport")
    main(
        ["cgm", "simulate", "--profile", "healthloopqa", "--days", "3", "--patients", ",".join(PATIENTS),
         "--controller", "hcl-mpc", "--faults", "random", "--seed", "7", "--out", str(root / "run")]
    )  # fmt: skip
    main(["cgm", "build", "--data", str(root / "run"), "--out", str(root / "bench"), "--seed", "5",
          "--sampling", "full", "-q"])  # fmt: skip
    return root / "bench"


@pytest.fixture(scope="module")
def store(cgm_bench: Path, eval_bench: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One run store: WearableQA oracle, then HealthLoopQA oracle and naive-mean."""
    out = tmp_path_factory.mktemp("store")
    evaluate(eval_bench, "baseline:oracle", out)
    evaluate(cgm_bench, "baseline:oracle", out)
    evaluate(cgm_bench, "baseline:naive-mean", out)
    return out


@pytest.fixture(scope="module")
def scores(store: Path) -> list[dict[str, Any]]:
    """``wearbench score STORE --format json`` (2,000 replicates, seed 0), one dict per run."""
    res = CliRunner().invoke(cli, ["score", str(store), "--format", "json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert isinstance(data, list)
    return data


@pytest.fixture(scope="module")
def page(store: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    out = report_runs([store], tmp_path_factory.mktemp("rep") / "r.html", n_examples=2)
    return out.read_text(encoding="utf-8")


class _Cells(HTMLParser):
    """The ``td`` elements that carry a ``data-run`` attribute, with their attributes and text."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: list[dict[str, str]] = []
        self._open: dict[str, str] | None = None
        self._depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "td" and any(k == "data-run" for k, _ in attrs):
            self._open = {k: v or "" for k, v in attrs} | {"text": ""}
        elif self._open is not None and tag == "small":
            self._depth += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self._open is not None:
            self.cells.append(self._open)
            self._open = None
        elif tag == "small":
            self._depth = max(0, self._depth - 1)

    def handle_data(self, data: str) -> None:
        if self._open is not None and not self._depth:
            self._open["text"] += data


def _cells(page: str, key: str) -> dict[tuple[str, str], dict[str, str]]:
    parser = _Cells()
    parser.feed(page)
    return {(c["data-run"], c[key]): c for c in parser.cells if key in c}


def _by_model(scores: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {f"{s['kind']}:{s['model']}": s for s in scores}


def _group(r: dict[str, Any], key: str) -> dict[str, Any]:
    fam, level = key.split("/")
    if fam == "all":
        return r if level == "all" else r["by_level"][level]
    return r["by_family"][fam] if level == "all" else r["by_family_level"][key]


def test_one_page_holds_both_kinds(page: str) -> None:
    for sid in ("leaderboard", "labels", "hlqa-runs", "hlqa-table2", "hlqa-figure", "hlqa-templates"):
        assert f'<section id="{sid}">' in page
    assert "<h2>WearableQA: Leaderboard</h2>" in page  # titled by kind when both are shown
    assert page.index('id="leaderboard"') < page.index('id="hlqa-runs"')
    assert "hlqa-judge" not in page  # no run of the store was judged: no judge section
    assert "<script" not in page
    assert "http://" not in page
    assert "https://" not in page
    figure = page[page.index('<section id="hlqa-figure">') :]
    assert figure.split("</section>")[0].count('src="data:image/png;base64,') == 1
    # the kinds never share a table: no HealthLoopQA model in the WearableQA leaderboard
    board = page[page.index('id="leaderboard-table"') :].split("</table>")[0]
    assert "naive-mean" not in board
    assert board.count("<tr>") == 2


def test_table2_cells_are_the_score_json(page: str, scores: list[dict[str, Any]]) -> None:
    runs = _by_model(scores)
    oracle, naive = runs["healthloopqa:baseline:oracle"], runs["healthloopqa:baseline:naive-mean"]
    cells = _cells(page, "data-cell")
    assert {k for run, k in cells if run == "H1"} == POPULATED
    for key in POPULATED:
        cell = cells[("H1", key)]
        assert (float(cell["data-score"]), cell["text"]) == (100.0, "100.0")
        assert int(cell["data-n"]) == _group(oracle, key)["n"]
    naive_keys = {k for run, k in cells if run == "H2"}
    assert naive_keys == {k for k in POPULATED if _group(naive, k)["n"]}
    for key in naive_keys:
        cell, want = cells[("H2", key)], _group(naive, key)
        assert float(cell["data-score"]) == want["score"]
        assert cell["text"] == f"{want['score']:.1f}"
        assert (int(cell["data-n"]), int(cell["data-parse-failures"])) == (want["n"], want["parse_failures"])
    assert ("H2", "all/all") in cells
    assert naive["score"] < 100.0
    assert f"[{naive['ci_low']:.1f}–{naive['ci_high']:.1f}]" in page  # the same 2,000-replicate CI


def test_template_rows_are_the_score_json(page: str, scores: list[dict[str, Any]]) -> None:
    runs = _by_model(scores)
    oracle, naive = runs["healthloopqa:baseline:oracle"], runs["healthloopqa:baseline:naive-mean"]
    cells = _cells(page, "data-template")
    assert {t for run, t in cells if run == "H1"} == set(oracle["by_template"])
    assert all(float(c["data-score"]) == 100.0 for (run, _), c in cells.items() if run == "H1")
    assert {t for run, t in cells if run == "H2"} == set(naive["by_template"])
    for tid, want in naive["by_template"].items():
        cell = cells[("H2", tid)]
        assert float(cell["data-score"]) == want["score"]
        assert (int(cell["data-n"]), int(cell["data-parse-failures"])) == (want["n"], want["parse_failures"])
    assert cells[("H2", "ad_1")]["data-score"] == "100.0"  # every truth 3.12: the mean is it, perfect
    table = page[page.index('id="hlqa-templates-table"') :].split("</table>")[0]
    groups = [table.index(f'id="hlqa-{fam}"') for fam in ("pm", "ad", "pd")]
    assert groups == sorted(groups)  # grouped by family, in Table 2 order
    pm = table[groups[0] : groups[1]]
    assert pm.index(">pm_2<") < pm.index(">pm_10<")  # natural id order within a family


def test_run_parameters(page: str, scores: list[dict[str, Any]], store: Path) -> None:
    runs = page[page.index('id="hlqa-runs-table"') :].split("</table>")[0]
    naive = _by_model(scores)["healthloopqa:baseline:naive-mean"]
    with RunStore(store) as s:
        bench_hash = s.run(naive["run_id"]).bench_hash
    assert runs.count("<tr>") == 3  # header, H1 oracle, H2 naive-mean
    assert runs.count("– (baseline)") == 2
    assert f"<td>{naive['n']}/{naive['n_items']}</td>" in runs
    assert runs.count(f"<td>{bench_hash[:12]}</td>") == 2
    chat = RunInfo("run-x", "openai:gpt-x", Setting(), {"context_days": 7, "seed": 0}, "b", "h", 1)
    assert prompt_text(chat) == "structured, 7 days"
    assert cgm_run_label("H3", chat) == "H3 openai:gpt-x (structured, 7 days)"
    timelined = RunInfo("run-y", "openai:gpt-x", Setting(), {"prompt": "timelined"}, "b", "h", 1)
    assert prompt_text(timelined) == "timelined, 30 (all) days"


def test_score_json_has_one_schema_for_both_kinds(scores: list[dict[str, Any]]) -> None:
    assert sorted(s["kind"] for s in scores) == ["healthloopqa", "healthloopqa", "wearableqa"]
    for s in scores:
        check_score_json(s)
    runs = _by_model(scores)
    wqa = runs["wearableqa:baseline:oracle"]
    assert (wqa["score"], wqa["accuracy"], wqa["ci_high"], wqa["ci_method"]) == (100.0, 1.0, 100.0, "wilson")
    assert 90.0 < wqa["ci_low"] < 100.0  # Wilson lower end, in percent like the score
    assert wqa["n"] == wqa["k"] == wqa["n_items"]
    assert wqa["parse_failures"] == 0
    assert {"by_reasoning", "by_signals", "by_type"} <= set(wqa["breakdowns"])
    for label, group in wqa["breakdowns"]["by_type"].items():
        assert (group["score"], group["n"]) == (100.0, wqa["by_label"]["type"][label]["n"])
    cgm = runs["healthloopqa:baseline:oracle"]
    assert (cgm["score"], cgm["ci_method"], cgm["parse_failures"]) == (100.0, "patient_bootstrap", 0)
    assert set(cgm["by_family"]) == {"pm", "ad", "pd"}  # the command-line contract keeps it on top
    assert cgm["breakdowns"]["by_family"] == cgm["by_family"]
    assert set(cgm["breakdowns"]) >= {"by_family", "by_level", "by_family_level", "by_template"}
    assert cgm["template_metrics"]["pm_0"]["answer_type"] == "number"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"kind": "mcq"}, r"\$\.kind: 'mcq' is not one of"),
        ({"score": 100.5}, r"\$\.score: 100\.5 is above 100"),
        ({"n": True}, r"\$\.n: True is not of type integer"),
        (
            {"breakdowns": {"by_level": {"memory": {"score": 1.0}}}},
            r"\$\.breakdowns\.by_level\.memory: missing",
        ),
    ],
)
def test_schema_check_names_the_broken_key(scores: list[dict[str, Any]], change: dict[str, Any],
                                           message: str) -> None:  # fmt: skip
    with pytest.raises(ValueError, match=message):
        check_score_json({**scores[0], **change})
    broken = {k: v for k, v in scores[0].items() if k != "parse_failures"}
    with pytest.raises(ValueError, match=r"^\$: missing parse_failures$"):
        check_score_json(broken)


def test_schema_agrees_with_jsonschema(scores: list[dict[str, Any]]) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    for s in scores:
        jsonschema.validate(s, SCORE_JSON_SCHEMA)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({**scores[0], "ci_low": -1.0}, SCORE_JSON_SCHEMA)


def test_cgm_only_report_and_mixed_benchmarks(store: Path, tmp_path: Path) -> None:
    with RunStore(store) as s:
        cgm = [(i, s.rows(i.run_id)) for i in s.runs() if i.params.get("bench_kind") == "healthloopqa"]
    out = write_cgm_report(cgm, tmp_path / "c.html", n_boot=N_BOOT)
    text = out.read_text(encoding="utf-8")
    assert 'id="hlqa-table2"' in text
    assert 'id="leaderboard"' not in text
    assert "<h2>HealthLoopQA runs</h2>" in text
    other = (replace(cgm[1][0], bench_hash="0" * 64), cgm[1][1])
    with pytest.raises(WearbenchError, match="HealthLoopQA runs were made on different benchmarks"):
        write_cgm_report([cgm[0], other], tmp_path / "x.html", n_boot=N_BOOT)


#: The three OpenMHC tracks, each recorded into the same store: (command, methods, kind word).
TRACKS = (
    ("impute", "locf,mean", "imputation"),
    ("forecast", "seasonal_naive,linear", "forecasting"),
    ("predict", "linear", "outcome"),
)


@pytest.fixture(scope="module")
def all_kinds(store: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, Any]]:
    """The store above plus one run of every OpenMHC track (``--store``): the page and each
    run's ``track score --format json``."""
    root = tmp_path_factory.mktemp("allkinds")
    shutil.copytree(store, root / "store")
    cohort = synthesize_minutes(8, 21, 3, root / "cohort")
    scored: dict[str, Any] = {}
    for command, methods, word in TRACKS:
        out = root / command
        args = ["track", command, "--data", str(cohort), "--methods", methods, "--out", str(out),
                "--seed", "1", "--test-share", "0.5", "--store", str(root / "store"), "-q"]  # fmt: skip
        res = CliRunner().invoke(cli, args)
        assert res.exit_code == 0, res.output
        res = CliRunner().invoke(cli, ["track", "score", str(out), "--format", "json", "--n-boot", "200"])
        assert res.exit_code == 0, res.output
        scored[word] = json.loads(res.stdout)
    page = report_runs([root / "store"], root / "p.html", n_examples=1, n_boot=N_BOOT, track_n_boot=200)
    return page.read_text(encoding="utf-8"), scored


def test_one_page_holds_every_kind(all_kinds: tuple[str, dict[str, Any]]) -> None:
    """WearableQA, HealthLoopQA and the three OpenMHC tracks on one self-contained page; every
    track skill cell carries the numbers of ``track score --format json``."""
    page, scored = all_kinds
    for sid in ("leaderboard", "hlqa-table2", "track-t1-skill", "track-t2-skill", "track-t3-skill"):
        assert f'<section id="{sid}">' in page
    for bad in ("<script", "http://", "https://", "<link"):
        assert bad not in page
    for tag in ("t1", "t2", "t3"):
        heading = page[page.index(f'<section id="track-{tag}-skill">') :].split("</h2>")[0]
        [word] = [w for _, _, w in TRACKS if f"OpenMHC {w} " in heading]
        cells = _track_cells(page, f"track-{tag}-skill-table")
        want = scored.pop(word)
        assert {(c["data-method"], c["data-scope"]) for c in cells} == {
            (m, s) for m in want["methods"] for s in want["scopes"]
        }
        for c in cells:
            value = want["methods"][c["data-method"]][c["data-scope"]]
            assert float(c["data-skill"]) == value["skill"]
            assert float(c["data-ci-low"]) == value["ci_low"]
            assert float(c["data-ci-high"]) == value["ci_high"]
    assert not scored  # every kind was on the page once
