"""The LLM judge's grades in ``wearbench score`` (text and JSON) and in the HTML report.

A PM benchmark of two patients x 2 days; a naive-mean run judged by two scripted FAKE judges
(a judge that grades reliably cannot run offline), and an oracle run left unjudged. The main
fake cycles through four replies with one call at a time, over 8 answers: each reply lands
twice, so the means and counts below are worked out by hand whichever answers get which reply.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

pytest.importorskip("simglucose")

from wearbench.cli import cli, main
from wearbench.models import GenerateConfig, Message, ModelOutput, ToolSpec, TransientModelError
from wearbench.report import report_runs
from wearbench.runner import JUDGE_PROMPT_VERSION, RunStore, evaluate, judge_cgm_runs
from wearbench.scoring import JUDGE_SCHEMA, check_score_json, cluster_bootstrap_ci, score_runs

#: The main fake's cycle: (instruction following, reasoning quality, format compliance, failure types).
CYCLE: tuple[tuple[int, int, int, list[str]] | None, ...] = (
    (4, 3, 5, []),
    (2, 1, 1, ["formatting"]),
    (5, 4, 4, ["temporal_misalignment", "unsupported_assumption"]),
    None,  # not a JSON object: a parse failure
)
MAIN, FLAKY = "fake:cycle-judge", "fake:flaky-judge"


def _reply(grades: tuple[int, int, int, list[str]] | None) -> str:
    if grades is None:
        return "I would rather not grade this."
    i, r, f, types = grades
    return json.dumps({"instruction_following": i, "reasoning_quality": r, "format_compliance": f,
                       "failure_types": types, "rationale": "scripted"})  # fmt: skip


class FakeJudge:
    """A FAKE judge model: ``reply(call_number)`` scripts each reply; it counts calls."""

    vision = False
    tools = False

    def __init__(self, reply: Callable[[int], str], name: str) -> None:
        self.reply, self.name, self.calls = reply, name, 0

    async def generate(
        self, messages: Sequence[Message], config: GenerateConfig, tools: Sequence[ToolSpec] = ()
    ) -> ModelOutput:
        self.calls += 1
        return ModelOutput(self.reply(self.calls), prompt_tokens=100, completion_tokens=30)

    async def aclose(self) -> None:
        pass


def _flaky(call: int) -> str:
    if call == 2:
        raise TransientModelError("HTTP 503 from the judge")
    return _reply(CYCLE[0])


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """(run folder, judged naive-mean run id, unjudged oracle run id)."""
    root = tmp_path_factory.mktemp("judgescores")
    main(["cgm", "simulate", "--profile", "healthloopqa", "--days", "2", "--patients",
          "adult#003,child#001", "--seed", "3", "--out", str(root / "run")])  # fmt: skip
    main(["cgm", "build", "--data", str(root / "run"), "--out", str(root / "bench"), "--seed", "1",
          "--families", "pm", "--sampling", "full", "-q"])  # fmt: skip
    runs = root / "runs"
    judged = evaluate(root / "bench", "baseline:naive-mean", runs).info.run_id
    plain = evaluate(root / "bench", "baseline:oracle", runs).info.run_id
    main_judge = FakeJudge(lambda call: _reply(CYCLE[(call - 1) % len(CYCLE)]), MAIN)
    judge_cgm_runs(runs, main_judge, run_id=judged, limit=8, concurrency=1)
    assert main_judge.calls == 8  # no reply came from the response cache: the cycle held
    judge_cgm_runs(runs, FakeJudge(_flaky, FLAKY), run_id=judged, limit=3, concurrency=1)
    return runs, judged, plain


@pytest.fixture(scope="module")
def scores(store: tuple[Path, str, str]) -> dict[str, dict[str, Any]]:
    """``wearbench score RUNDIR --format json`` by run id."""
    res = CliRunner().invoke(cli, ["score", str(store[0]), "--format", "json"])
    assert res.exit_code == 0, res.output
    return {s["run_id"]: s for s in json.loads(res.stdout)}


def _blocks(scores: dict[str, dict[str, Any]], run_id: str) -> dict[str, dict[str, Any]]:
    return {b["judge"]: b for b in scores[run_id]["judges"]}


def test_the_score_json_holds_the_hand_computed_grades(
    store: tuple[Path, str, str], scores: dict[str, dict[str, Any]]
) -> None:
    runs, judged, _ = store
    check_score_json(scores[judged])
    blocks = _blocks(scores, judged)
    assert list(blocks) == [MAIN, FLAKY]
    b = blocks[MAIN]
    assert (b["prompt_version"], b["n"], b["parsed"], b["parse_failures"], b["errors"]) == (
        JUDGE_PROMPT_VERSION, 8, 6, 2, 0,
    )  # fmt: skip
    assert b["patients"] == 2
    means = {k: g["mean"] for k, g in b["grades"].items()}
    assert means == {"instruction_following": 11 / 3, "reasoning_quality": 8 / 3, "format_compliance": 10 / 3}
    for g in b["grades"].values():
        assert g["n"] == 6
        assert 1 <= g["ci_low"] < g["mean"] < g["ci_high"] <= 5  # two patients who differ: a real interval
    assert b["failure_types"] == {
        "reluctance_to_calculate": {"count": 0, "share": 0.0},
        "temporal_misalignment": {"count": 2, "share": 1 / 3},
        "unsupported_assumption": {"count": 2, "share": 1 / 3},
        "guessing_over_uncertainty": {"count": 0, "share": 0.0},
        "formatting": {"count": 2, "share": 1 / 3},
        "other": {"count": 0, "share": 0.0},
    }
    assert b["no_failure"] == {"count": 2, "share": 1 / 3}
    # The interval is the scoring bootstrap over patients, seed 0, 2,000 replicates.
    with RunStore(runs) as s:
        parsed = [j for j in s.judgements(judged, MAIN) if not j.parse_failed]
    users = [j.user_id for j in parsed]
    q = b["grades"]["reasoning_quality"]
    expected = cluster_bootstrap_ci(users, [float(j.reasoning_quality or 0) for j in parsed])
    assert (q["ci_low"], q["ci_high"]) == expected
    f = blocks[FLAKY]
    assert (f["n"], f["parsed"], f["parse_failures"], f["errors"]) == (2, 2, 0, 1)
    assert f["grades"]["instruction_following"] == {"mean": 4.0, "ci_low": 4.0, "ci_high": 4.0, "n": 2}
    assert f["no_failure"] == {"count": 2, "share": 1.0}


def test_a_run_without_judgements_has_no_judge_block(
    store: tuple[Path, str, str], scores: dict[str, dict[str, Any]]
) -> None:
    _, _, plain = store
    assert "judges" not in scores[plain]
    check_score_json(scores[plain])
    assert "judge " not in score_runs(store[0], plain)[0].to_text()


def test_the_schema_refuses_a_grade_outside_1_to_5(scores: dict[str, dict[str, Any]]) -> None:
    run = next(s for s in scores.values() if "judges" in s)
    bad = json.loads(json.dumps(run))
    bad["judges"][0]["grades"]["format_compliance"]["mean"] = 6
    with pytest.raises(ValueError, match=r"^\$\.judges\[0\]\.grades\.format_compliance\.mean: 6 is above 5$"):
        check_score_json(bad)
    assert JUDGE_SCHEMA["properties"]["ci_method"] == {"enum": ["patient_bootstrap"]}


def test_the_score_text_shows_the_judges(
    store: tuple[Path, str, str], scores: dict[str, dict[str, Any]]
) -> None:
    runs, judged, _ = store
    res = CliRunner().invoke(cli, ["score", str(runs), "--run", judged])
    assert res.exit_code == 0, res.output
    g = _blocks(scores, judged)[MAIN]["grades"]

    def ci(grade: str) -> str:
        return f"[{g[grade]['ci_low']:.2f}, {g[grade]['ci_high']:.2f}] n=6"

    lines = res.stdout.splitlines()
    start = lines.index(
        f"judge {MAIN} ({JUDGE_PROMPT_VERSION}): 8 judged, 2 parse failure(s), 0 error(s), 2 patient(s)"
    )
    assert lines[start + 1 : start + 5] == [
        f"  instruction following   3.67 {ci('instruction_following')}",
        f"  reasoning quality       2.67 {ci('reasoning_quality')}",
        f"  format compliance       3.33 {ci('format_compliance')}",
        "  failure types (of 6 parsed): temporal_misalignment 2 (33.3%), unsupported_assumption 2 (33.3%), "
        "formatting 2 (33.3%); none named: 2 (33.3%)",
    ]
    assert f"judge {FLAKY} ({JUDGE_PROMPT_VERSION}): 2 judged, 0 parse failure(s), 1 error(s)" in res.stdout


class _JudgeCells(HTMLParser):
    """The ``td`` elements of the judge table (those with ``data-judge``): attributes and text."""

    def __init__(self) -> None:
        super().__init__()
        self.cells: list[dict[str, str]] = []
        self._open: dict[str, str] | None = None
        self._small = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "td" and any(k == "data-judge" for k, _ in attrs):
            self._open = {k: v or "" for k, v in attrs} | {"text": ""}
        elif tag == "small" and self._open is not None:
            self._small += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "td" and self._open is not None:
            self.cells.append(self._open)
            self._open = None
        elif tag == "small":
            self._small = max(0, self._small - 1)

    def handle_data(self, data: str) -> None:
        if self._open is not None and not self._small:
            self._open["text"] += data


def test_the_report_shows_the_same_judge_numbers(
    store: tuple[Path, str, str], scores: dict[str, dict[str, Any]], tmp_path: Path
) -> None:
    runs, judged, _ = store
    page = report_runs([runs], tmp_path / "r.html").read_text(encoding="utf-8")
    assert 'id="hlqa-judge"' in page
    parser = _JudgeCells()
    parser.feed(page)
    grades = {(c["data-judge"], c["data-grade"]): c for c in parser.cells if "data-grade" in c}
    failures = {c["data-judge"]: c for c in parser.cells if "data-failures" in c}
    assert {c["data-run"] for c in parser.cells} == {"H1"}  # the judged run only; H2 (oracle) has no row
    blocks = _blocks(scores, judged)
    assert len(grades) == 6
    for (judge, grade), cell in grades.items():
        g = blocks[judge]["grades"][grade]
        assert (float(cell["data-mean"]), float(cell["data-ci-low"]), float(cell["data-ci-high"])) == (
            g["mean"], g["ci_low"], g["ci_high"],
        )  # fmt: skip
        assert int(cell["data-n"]) == g["n"]
        assert cell["text"] == f"{g['mean']:.2f}"
    assert json.loads(failures[MAIN]["data-failures"]) == {
        "formatting": 2, "guessing_over_uncertainty": 0, "none": 2, "other": 0,
        "reluctance_to_calculate": 0, "temporal_misalignment": 2, "unsupported_assumption": 2,
    }  # fmt: skip
    assert failures[MAIN]["text"] == (
        "temporal misalignment 2 (33%); unsupported assumption 2 (33%); formatting 2 (33%); "
        "none named 2 (33%)"
    )
    assert failures[FLAKY]["text"] == "none named 2 (100%)"


def test_a_report_without_judgements_has_no_judge_table(store: tuple[Path, str, str], tmp_path: Path) -> None:
    runs, _, plain = store
    with RunStore(runs) as src:
        bench = src.run(plain).bench
    only = tmp_path / "plain"
    evaluate(bench, "baseline:oracle", only)
    page = report_runs([only], tmp_path / "r.html").read_text(encoding="utf-8")
    assert "hlqa-table2" in page
    assert "hlqa-judge" not in page
