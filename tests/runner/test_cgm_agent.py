"""HealthLoopQA's agent baseline: per-question CSV files in the real bubblewrap sandbox, then a final answer.

A scripted FAKE chat model (a real model cannot be told what code to write) runs fixed code in
the real sandbox and answers with what it printed. The expectations are computed here from the
context files with the csv module, not with the code under test.
"""

from __future__ import annotations

import asyncio
import csv
import json
import lzma
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("simglucose")

import wearbench.agent._bwrap as bwrap
import wearbench.runner._cgm_run as cgm_run
from wearbench.agent import SandboxError
from wearbench.cli import main
from wearbench.models import GenerateConfig, Message, ModelOutput, ToolCall, ToolSpec
from wearbench.runner import CGMItem, RunStore, Setting, evaluate, open_cgm_bench
from wearbench.runner._cgm_agent import (
    CGM_AGENT_SYSTEM,
    CGM_PYTHON_TOOL,
    FINAL_ANSWER_ASK,
    CGMAgentSolver,
    _transcript,
    agent_files,
)
from wearbench.scoring import extract_answer, score_item, score_runs

CONFIG = GenerateConfig(max_tokens=64, max_retries=0, backoff_s=0.0, timeout_s=120)
AGENT = Setting("csv", "agent")
FINAL = FINAL_ANSWER_ASK.split("{")[0]  # "Do not run more code. Give your final answer now. "


class ScriptedFakeModel:
    """A FAKE chat model: runs ``code`` once, says what it printed, then answers it as JSON.

    Turn 1 calls the ``python`` tool with ``code`` (or writes a fenced block when ``tools`` is
    False); turn 2, seeing the output, replies without code (ends the loop); asked the final
    answer, it replies ``{"answer": <the printed JSON value>}``. Every call is recorded.
    """

    name = "fake:scripted"
    vision = False

    def __init__(self, code: str, *, tools: bool = True) -> None:
        self.code, self.tools = code, tools
        self.calls: list[tuple[tuple[Message, ...], tuple[ToolSpec, ...]]] = []

    async def generate(
        self, messages: Sequence[Message], config: GenerateConfig, tools: Sequence[ToolSpec] = ()
    ) -> ModelOutput:
        self.calls.append((tuple(messages), tuple(tools)))
        outputs = [m.text.removeprefix("Output:\n") for m in messages if _is_output(m)]
        if messages[-1].text.startswith(FINAL):
            return ModelOutput(text=json.dumps({"answer": json.loads(outputs[-1])}), prompt_tokens=10)
        if outputs:
            return ModelOutput(text=f"I computed {outputs[-1].strip()}.", prompt_tokens=10)
        if tools:
            call = ToolCall("c1", tools[0].name, json.dumps({"code": self.code}))
            return ModelOutput(text="", tool_calls=(call,), prompt_tokens=10)
        return ModelOutput(text=f"```python\n{self.code}\n```", prompt_tokens=10)

    async def aclose(self) -> None:
        return None


def _is_output(m: Message) -> bool:
    return m.role == "tool" or (m.role == "user" and m.text.startswith("Output:\n"))


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """PM and PD items of one patient x 3 days (full sampling, 55 items)."""
    root = tmp_path_factory.mktemp("cgmagent")
    main(["cgm", "simulate", "--profile", "healthloopqa", "--days", "3", "--patients", "adult#003",
          "--controller", "hcl-mpc", "--faults", "random", "--seed", "7",
          "--out", str(root / "run")])  # fmt: skip
    main(["cgm", "build", "--data", str(root / "run"), "--out", str(root / "bench"), "--seed", "5",
          "--sampling", "full", "--families", "pm,pd", "-q"])  # fmt: skip
    return root / "bench"


@pytest.fixture(scope="module")
def items(bench: Path) -> dict[str, CGMItem]:
    return {i.template: i for i in open_cgm_bench(bench)[0]}


def _rows(path: Path) -> list[dict[str, str]]:
    with lzma.open(path, "rt", encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _glucose(item: CGMItem) -> list[float]:
    return [float(r["glucose_mgdl"]) for r in _rows(item.context_file("readings")) if r["glucose_mgdl"]]


def _tool_outputs(transcript: str) -> list[str]:
    return [m["content"] for m in json.loads(transcript) if m["role"] == "tool"]


def _solve(item: CGMItem, model: ScriptedFakeModel, context_days: int | None = None) -> Any:
    solver = CGMAgentSolver(model, None, CONFIG, context_days)
    return asyncio.run(solver.solve(item))


@pytest.mark.parametrize(
    ("template", "code", "by_hand"),
    [
        (
            "pm_0",
            "print(round(float(readings['glucose_mgdl'].mean()), 1))",
            lambda g: round(sum(g) / len(g), 1),
        ),
        ("pm_1", "print(round(float(readings.glucose_mgdl.max()), 1))", lambda g: round(max(g), 1)),
    ],
    ids=["pm_0-mean", "pm_1-max"],
)
def test_code_runs_in_the_sandbox_and_the_answer_scores_100(
    items: dict[str, CGMItem], template: str, code: str, by_hand: Any
) -> None:
    item = items[template]
    expected = by_hand(_glucose(item))
    assert expected == item.answer  # the item's truth is what the fixture's readings give
    model = ScriptedFakeModel(code)
    answer = _solve(item, model)
    assert _tool_outputs(answer.transcript) == [f"{expected}\n"]  # printed by the sandboxed code
    assert answer.response == json.dumps({"answer": expected})
    assert (answer.error, answer.extra["agent_steps"], answer.extra["tool_errors"]) == (None, 1, 0)
    assert answer.extra["model_calls"] == 3  # tool call, "I computed …", final answer
    parsed = extract_answer(answer.response, item.answer_type)
    assert score_item(parsed, item.answer, item.answer_type, item.metric).score == 100.0
    # the first user message describes the files and asks the question; no data in it
    _system, user = model.calls[0][0]
    assert item.data["question"] in user.text
    assert "readings.csv" in user.text
    assert "864 rows" in user.text  # 3 days x 288 readings
    assert str(item.data["instruction"]) in user.text
    assert len(user.text) < 2_500
    (tool,) = model.calls[0][1]
    assert "glucose_mgdl" in tool.description
    assert "`df` is the user's wearable data" not in tool.description
    # the final-answer step: no tools, the item's instruction
    last_messages, last_tools = model.calls[-1]
    assert last_tools == ()
    assert last_messages[-1].text == FINAL_ANSWER_ASK.format(instruction=item.data["instruction"])


PROBE = (
    "import json\n"
    "print(json.dumps([int(readings.minute.min()), int(readings.minute.max()), len(readings), "
    "int(events.minute.max()) if len(events) else -1, len(events), int(df.minute.max())]))"
)


def test_a_prediction_item_s_files_end_at_now_and_keep_the_context_days(items: dict[str, CGMItem]) -> None:
    item = items["pd_1"]  # "It is 09:00 on day 2. What will my glucose be in 30 minutes?"
    now = int(item.data["context"]["until_minute"])
    assert now == 1980
    all_events = _rows(item.context_file("events"))
    # one day: minutes (now - 1440, now], one reading per 5 minutes: 1980 - 1435 = 545 .. 1980
    day_events = [r for r in all_events if 545 <= int(r["minute"]) <= now]
    answer = _solve(item, ScriptedFakeModel(PROBE), context_days=1)
    (out,) = _tool_outputs(answer.transcript)
    events_max = max(int(r["minute"]) for r in day_events)
    assert json.loads(out) == [545, now, 288, events_max, len(day_events), now]
    assert answer.extra["context_days"] == 1
    # the files themselves (no sandbox): no row after now, and the 7-day and whole cuts
    for days, first in ((None, 0), (7, 0), (1, 545)):
        files = agent_files(item.data, item.bench, days)
        minutes = [int(r["minute"]) for r in csv.DictReader(files.readings.splitlines())]
        assert (minutes[0], minutes[-1], len(minutes)) == (first, now, (now - first) // 5 + 1)
        events = [int(r["minute"]) for r in csv.DictReader(files.events.splitlines())]
        assert all(first <= m <= now for m in events)
    whole = agent_files(items["pm_0"].data, items["pm_0"].bench, None)  # a whole-window item: 3 days
    assert (whole.start, whole.end, whole.n_readings) == (0, 3 * 1440, 864)
    # the cut itself, not only the file: a "now" inside a 3-day file drops every later row
    early = {**items["pm_0"].data, "context": {**items["pm_0"].data["context"], "until_minute": 1000}}
    files = agent_files(early, items["pm_0"].bench, None)
    minutes = [int(r["minute"]) for r in csv.DictReader(files.readings.splitlines())]
    assert (minutes[0], minutes[-1], files.n_readings) == (0, 1000, 201)
    later = [r for r in _rows(items["pm_0"].context_file("events")) if int(r["minute"]) <= 1000]
    assert files.n_events == len(later) < whole.n_events


def test_eval_agent_mode_stores_the_final_answer_and_score_reads_it(
    bench: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    code = "print(int((readings.glucose_mgdl < 70).sum()))"
    monkeypatch.setattr(cgm_run, "load_model", lambda spec, **_: ScriptedFakeModel(code, tools=False))
    run = evaluate(bench, "fake:scripted", tmp_path, setting=AGENT, limit=2, config=CONFIG, concurrency=2)
    assert (run.answered, run.errored, run.kind) == (2, 0, "healthloopqa")
    with RunStore(tmp_path) as store:
        rows = store.rows(run.info.run_id)
    by_id = {i.id: i for i in open_cgm_bench(bench)[0]}
    for row in rows:
        item = by_id[row.item_id]
        low = sum(g < 70 for g in _glucose(item))  # the item's whole context (no --context-days)
        messages = json.loads(row.transcript)
        outputs = [m["content"] for m in messages if m["content"].startswith("Output")]
        assert outputs == [f"Output:\n{low}\n"]  # text protocol: the fenced block ran in the sandbox
        assert row.response == json.dumps({"answer": low})
        assert messages[-1] == {"role": "assistant", "content": row.response}
        assert (row.extra["agent_steps"], row.extra["tool_errors"]) == (1, 0)
        assert row.extra["kind"] == "healthloopqa"
        assert row.prompt_tokens == 30  # three calls of the fake, 10 each
    assert run.info.setting.mode == "agent"
    (score,) = score_runs(tmp_path, run.info.run_id, n_boot=50)
    res = score.to_dict()
    assert (res["n"], res["errors"], res["missing"]) == (2, 0, 0)
    unread = sum(not extract_answer(r.response, by_id[r.item_id].answer_type).ok for r in rows)
    assert res["parse_failures"] == unread  # the stored final reply is what score reads


def test_agent_mode_is_refused_without_bubblewrap(
    bench: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(bwrap, "find_bwrap", lambda: None)
    built: list[str] = []
    monkeypatch.setattr(cgm_run, "load_model", lambda spec, **_: built.append(spec))
    with pytest.raises(SandboxError, match="apt-get install bubblewrap"):
        evaluate(bench, "fake:scripted", tmp_path / "r", setting=AGENT, limit=2, config=CONFIG)
    assert not (tmp_path / "r").exists()  # refused before any run (or folder) was recorded
    assert built == []  # and before the model was built
    with pytest.raises(SystemExit) as exit_info:
        main(["eval", "--bench", str(bench), "--model", "openai:x@http://127.0.0.1:9/v1", "--mode", "agent",
              "--out", str(tmp_path / "c"), "-q"])  # fmt: skip
    assert exit_info.value.code == 1
    err = capsys.readouterr().err.strip()
    assert err.startswith("error: agent mode runs model code under bubblewrap")
    assert "\n" not in err  # one line, no traceback
    assert not (tmp_path / "c").exists()


def test_the_doc_quotes_the_system_message_and_the_tool_description() -> None:
    doc = (Path(__file__).resolve().parents[2] / "docs" / "cgm-eval.md").read_text(encoding="utf-8")
    quoted = " ".join(line[2:] for line in doc.splitlines() if line.startswith("> "))
    assert " ".join(CGM_AGENT_SYSTEM.split()) in quoted
    assert " ".join(CGM_PYTHON_TOOL.description.split()) in quoted


def test_long_code_outputs_are_cut_in_the_stored_transcript() -> None:
    long = "x" * 5_000
    stored = json.loads(
        _transcript([Message("tool", long, tool_call_id="c1"), Message("user", "Output:\n" + long),
                     Message("user", "y" * 5_000)])
    )  # fmt: skip
    assert stored[0]["content"] == "x" * 4_000 + "\n[… 1000 more characters not stored]"
    assert stored[1]["content"] == "Output:\n" + "x" * 3_992 + "\n[… 1008 more characters not stored]"
    assert stored[2]["content"] == "y" * 5_000  # not a code output: kept whole
