"""`wearbench cgm judge`: an LLM judge's grades of HealthLoopQA answers, stored beside them.

Most tests drive a scripted FAKE judge (a chat model that returns fixed replies chosen from the
prompt), since a judge that grades reliably cannot run offline; the last test goes through the
real local model (gemma3-270m on llama.cpp) and checks only that each reply is stored either
parsed or counted as a parse failure. The expected counts and means are worked out by hand
from the scripted replies.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

pytest.importorskip("simglucose")

from tests.fake_openai import fake_openai_server

from wearbench import WearbenchError
from wearbench.cli import main
from wearbench.models import GenerateConfig, Message, ModelOutput, ToolSpec, TransientModelError
from wearbench.prompts import Setting
from wearbench.runner import (
    JUDGE_PROMPT_VERSION,
    RunInfo,
    RunStore,
    evaluate,
    judge_cgm_runs,
    judge_messages,
    judge_summary,
    open_cgm_bench,
    parse_judgement,
)

GOOD = '{"instruction_following": 4, "reasoning_quality": 3, "format_compliance": 5, "failure_types": [], "rationale": "ok"}'  # noqa: E501
FORMATTING = 'Sure. {"instruction_following": 2, "reasoning_quality": 1, "format_compliance": 1, "failure_type": "Formatting Misalignment", "rationale": "prose"}'  # noqa: E501


class FakeJudge:
    """A FAKE judge model: ``reply(user_text, call_number)`` scripts each reply; it counts calls."""

    vision = False
    tools = False

    def __init__(self, reply: Callable[[str, int], str], name: str = "fake:judge") -> None:
        self.reply, self.name, self.calls = reply, name, 0

    async def generate(
        self, messages: Sequence[Message], config: GenerateConfig, tools: Sequence[ToolSpec] = ()
    ) -> ModelOutput:
        self.calls += 1
        user = messages[-1].text
        return ModelOutput(self.reply(user, self.calls), prompt_tokens=len(user) // 4, completion_tokens=30)

    async def aclose(self) -> None:
        pass


@pytest.fixture(scope="module")
def rundir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A PM benchmark of one patient x 2 days and a naive-mean run on it (its integer/number items)."""
    root = tmp_path_factory.mktemp("cgmjudge")
    main(["cgm", "simulate", "--profile", "healthloopqa", "--days", "2", "--patients", "adult#003",
          "--seed", "3", "--out", str(root / "run")])  # fmt: skip
    main(["cgm", "build", "--data", str(root / "run"), "--out", str(root / "bench"), "--seed", "1",
          "--families", "pm", "--sampling", "full", "-q"])  # fmt: skip
    evaluate(root / "bench", "baseline:naive-mean", root / "runs")
    return root / "runs"


def _copy(rundir: Path, tmp_path: Path) -> Path:
    """A private copy of the run store (each test judges its own)."""
    out = tmp_path / "runs"
    out.mkdir()
    src, dst = sqlite3.connect(rundir / "runs.sqlite"), sqlite3.connect(out / "runs.sqlite")
    with dst:
        src.backup(dst)
    src.close()
    dst.close()
    return out


def _run_id(rundir: Path) -> str:
    with RunStore(rundir) as store:
        (info,) = store.runs()
    return info.run_id


def test_the_judge_prompt_holds_question_instruction_truth_and_response(rundir: Path) -> None:
    with RunStore(rundir) as store:
        (info,) = store.runs()
        row = store.rows(info.run_id)[0]
    item = {i.id: i for i in open_cgm_bench(info.bench)[0]}[row.item_id]
    (message,) = judge_messages(item, row.response)  # one user message: Gemma has no system role
    assert message.role == "user"
    rubric, _, rest = message.text.partition("- other: any other failure.\n\n")
    case, _, reply = rest.partition("\n\nReply with one JSON object and nothing else:\n")
    assert "reluctance_to_calculate" in rubric
    assert "format_compliance" in reply
    assert case.splitlines()[:3] == [
        f"Question: {item.data['question']}",
        f"Instruction: {item.data['instruction']}",
        f"Correct answer: {json.dumps(item.answer)}" + (f" ({item.unit})" if item.unit else ""),
    ]
    assert case.endswith(f"<<<\n{row.response}\n>>>")
    long = judge_messages(item, "a" * 100 + "b" * 100, max_response_chars=30)[0].text
    assert "a" * 20 + "\n[... 170 characters cut ...]\n" + "b" * 10 + "\n>>>" in long


def _with(old: str, new: str) -> str:
    return GOOD.replace(old, new)


@pytest.mark.parametrize(
    ("reply", "error"),
    [
        ("I think it is fine.", "no JSON object in the reply"),
        ('{"instruction_following": 4, "reasoning_quality": 3', "no JSON object in the reply"),
        (_with('"reasoning_quality": 3', '"reasoning_quality": 7'), "reasoning_quality 7 outside 1-5"),
        (
            _with('"instruction_following": 4', '"instruction_following": 0'),
            "instruction_following 0 outside",
        ),
        (_with('"format_compliance": 5', '"format_compliance": 3.5'), "format_compliance 3.5 is not a whole"),
        (_with('"format_compliance": 5', '"format_compliance": "good"'), "format_compliance 'good' is not a"),
        (_with('"format_compliance": 5', '"format_compliance": true'), "format_compliance True is not a"),
        (_with('"failure_types": []', '"failure_types": ["laziness"]'), "unknown failure type 'laziness'"),
        (_with('"failure_types": [], ', ""), "failure_types missing"),
        (_with('"reasoning_quality": 3, ', ""), "reasoning_quality missing"),
    ],
)
def test_an_invalid_reply_is_a_parse_failure_with_its_reason(reply: str, error: str) -> None:
    parsed = parse_judgement(reply)
    assert parsed.scores is None
    assert parsed.error is not None
    assert parsed.error.startswith(error)


def test_a_valid_reply_is_read_exactly() -> None:
    parsed = parse_judgement(
        "```json\n" + GOOD.replace("[]", '["Temporal Misalignment", "others", "TM"]') + "\n```"
    )
    assert parsed.scores == {"instruction_following": 4, "reasoning_quality": 3, "format_compliance": 5}
    assert parsed.failure_types == ("temporal_misalignment", "other")
    assert parsed.rationale == "ok"
    quoted = parse_judgement(FORMATTING.replace(": 2,", ': "2",').replace(": 1,", ": 1.0,"))
    assert quoted.scores == {"instruction_following": 2, "reasoning_quality": 1, "format_compliance": 1}
    assert quoted.failure_types == ("formatting",)
    assert parse_judgement(GOOD.replace("[]", '"none"')).failure_types == ()


def _scripted(user: str, _call: int) -> str:
    """Three kinds of reply, chosen by the first digit of the stored response ("0" when it has none)."""
    digit = next((c for c in user.split("<<<")[1] if c.isdigit()), "0")
    if digit in "0123":
        return GOOD
    if digit in "456":
        return FORMATTING
    return GOOD.replace('"reasoning_quality": 3', '"reasoning_quality": 7')  # a grade out of range


def test_judgements_are_stored_summarised_and_resumed(rundir: Path, tmp_path: Path) -> None:
    runs = _copy(rundir, tmp_path)
    judge = FakeJudge(_scripted)
    outcome = judge_cgm_runs(runs, judge, concurrency=3)
    with RunStore(runs) as store:
        (info,) = store.runs()
        answers = store.rows(info.run_id)
        stored = store.judgements(info.run_id)
    assert judge.calls == outcome.judged == len(answers) == len(stored) >= 6
    kinds = {r.item_id: _scripted("<<<" + r.response, 0) for r in answers}
    good = [j for j in stored if kinds[j.item_id] == GOOD]
    fmt = [j for j in stored if kinds[j.item_id] == FORMATTING]
    bad = [j for j in stored if j not in good and j not in fmt]
    assert good
    assert fmt
    assert bad
    for j in good:
        assert (j.instruction_following, j.reasoning_quality, j.format_compliance) == (4, 3, 5)
        assert (j.failure_types, j.rationale, j.parse_failed, j.error) == ((), "ok", False, None)
    for j in fmt:
        assert (j.instruction_following, j.reasoning_quality, j.format_compliance) == (2, 1, 1)
        assert (j.failure_types, j.rationale, j.parse_failed) == (("formatting",), "prose", False)
    for j in bad:
        assert (j.instruction_following, j.reasoning_quality, j.format_compliance) == (None, None, None)
        assert j.parse_failed
        assert j.parse_error == "reasoning_quality 7 outside 1-5"
        assert j.response == kinds[j.item_id]  # stored raw
    assert all(j.judge == "fake:judge" and j.prompt_version == JUDGE_PROMPT_VERSION for j in stored)
    g, f = len(good), len(fmt)
    (group,) = judge_summary(runs, info.run_id[:8])["judges"]
    assert (group["n"], group["parsed"], group["parse_failures"], group["errors"]) == (
        g + f + len(bad),
        g + f,
        len(bad),
        0,
    )
    assert group["means"] == {"instruction_following": (4 * g + 2 * f) / (g + f),
                              "reasoning_quality": (3 * g + 1 * f) / (g + f),
                              "format_compliance": (5 * g + 1 * f) / (g + f)}  # fmt: skip
    assert group["failure_types"]["formatting"] == f
    assert group["no_failure"] == g
    assert sum(group["failure_types"].values()) == f
    assert outcome.summaries[0]["judges"] == [group]

    again = judge_cgm_runs(runs, judge)
    assert (again.judged, again.retried, judge.calls) == (0, 0, len(answers))
    other = FakeJudge(lambda _u, _c: GOOD, name="fake:other-judge")
    assert judge_cgm_runs(runs, other, limit=2).judged == 2  # a second judge grades beside the first
    with RunStore(runs) as store:
        summary = judge_summary(store, info.run_id)
    assert [(g["judge"], g["n"]) for g in summary["judges"]] == [
        ("fake:judge", len(answers)),
        ("fake:other-judge", 2),
    ]


def test_a_failed_call_is_an_error_row_retried_on_the_next_call(rundir: Path, tmp_path: Path) -> None:
    runs = _copy(rundir, tmp_path)

    def flaky(_user: str, call: int) -> str:
        if call == 2:
            raise TransientModelError("HTTP 503 from the judge")
        return GOOD

    first = judge_cgm_runs(runs, FakeJudge(flaky), limit=3, concurrency=1)
    assert (first.judged, first.errored) == (3, 1)
    with RunStore(runs) as store:
        errors = [j for j in store.judgements(_run_id(runs)) if j.error is not None]
    assert [(j.error, j.response, j.parse_failed) for j in errors] == [("HTTP 503 from the judge", "", False)]
    second = judge_cgm_runs(runs, FakeJudge(lambda _u, _c: GOOD), limit=3)
    assert (second.judged, second.retried, second.errored) == (1, 1, 0)
    (group,) = second.summaries[0]["judges"]
    assert (group["n"], group["parsed"], group["errors"]) == (3, 3, 0)


def test_wearableqa_runs_are_refused_with_one_line(rundir: Path, tmp_path: Path) -> None:
    runs = _copy(rundir, tmp_path)
    wearable = RunInfo("run-wearable01", "baseline:random", Setting(), {"limit": None}, "bench", "0" * 64, 3)
    with RunStore(runs) as store:
        store.ensure_run(wearable)
    with pytest.raises(WearbenchError, match=r"^run run-wearable01 is a WearableQA run: `cgm judge` grades "
                                             r"HealthLoopQA runs only$"):  # fmt: skip
        judge_cgm_runs(runs, FakeJudge(lambda _u, _c: GOOD), run_id="run-wearable")
    outcome = judge_cgm_runs(runs, FakeJudge(lambda _u, _c: GOOD), limit=1)
    assert outcome.skipped_runs == ("run-wearable01",)
    assert "left out WearableQA run run-wearable01" in outcome.to_text()
    only = tmp_path / "only"
    with RunStore(only) as store:
        store.ensure_run(wearable)
    with pytest.raises(WearbenchError, match="no HealthLoopQA run to judge"):
        judge_cgm_runs(only, FakeJudge(lambda _u, _c: GOOD))


def test_cli_judges_over_http_and_fails_in_one_line(rundir: Path, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:  # fmt: skip
    runs = _copy(rundir, tmp_path)
    with fake_openai_server() as (url, state):
        main(["cgm", "judge", str(runs), "--model", f"openai:fake@{url}", "--limit", "3", "--format",
              "json", "--retries", "0", "-q"])  # fmt: skip
        assert state.requests == 3
    data = json.loads(capsys.readouterr().out)
    # The FAKE server replies "Reasoning omitted. Answer: <letter>": no JSON object, 3 parse failures.
    (group,) = data["runs"][0]["judges"]
    assert (data["judged"], group["n"], group["parse_failures"], group["means"]["reasoning_quality"]) == (
        3,
        3,
        3,
        None,
    )
    with pytest.raises(SystemExit) as exit_info:
        main(["cgm", "judge", str(tmp_path / "missing"), "--model", "openai:m@http://127.0.0.1:9/v1", "-q"])
    assert exit_info.value.code == 1
    err = capsys.readouterr().err
    assert err == f"error: {tmp_path / 'missing'}: no run store (runs.sqlite) to judge\n"
    assert not (tmp_path / "missing").exists()


def test_the_real_local_model_judges_two_answers(rundir: Path, llama_base_url: str, tmp_path: Path) -> None:
    runs = _copy(rundir, tmp_path)
    # Gemma 3 270M echoes the prompt rather than judging; 32 tokens keep the two calls short on a
    # busy machine. The check is the plumbing: whatever comes back is stored parsed or counted.
    config = GenerateConfig(max_tokens=32, timeout_s=120, max_retries=0)
    outcome = judge_cgm_runs(runs, f"openai:gemma@{llama_base_url}", limit=2, config=config, concurrency=1)
    with RunStore(runs) as store:
        stored = store.judgements(_run_id(runs))
    assert (outcome.judged, len(stored)) == (2, 2)
    for j in stored:
        assert j.error is None
        assert j.response
        assert j.completion_tokens is not None
        assert 0 < j.completion_tokens <= 32
        if j.parse_failed:
            assert j.parse_error
            assert j.instruction_following is None
        else:
            assert j.parse_error is None
            assert all(
                1 <= v <= 5 for v in (j.instruction_following, j.reasoning_quality, j.format_compliance)
            )
    (group,) = outcome.summaries[0]["judges"]
    assert group["parsed"] + group["parse_failures"] == 2
    assert group["parse_failures"] == sum(j.parse_failed for j in stored)


def test_a_moved_benchmark_is_named_and_found_with_bench(rundir: Path, tmp_path: Path) -> None:
    runs = _copy(rundir, tmp_path)
    with RunStore(runs) as store:
        (info,) = store.runs()
    with pytest.raises(
        WearbenchError, match=r"benchmark .*nowhere not found \(pass --bench with where it is now\)"
    ):
        judge_cgm_runs(runs, FakeJudge(lambda _u, _c: GOOD), bench=tmp_path / "nowhere")
    assert judge_cgm_runs(runs, FakeJudge(lambda _u, _c: GOOD), bench=info.bench, limit=1).judged == 1
