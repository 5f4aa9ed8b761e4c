"""HealthLoopQA's *agent* baseline: the sandboxed Python tool over the item's data, then a final answer.

Per item, the rows the structured prompt would show (``prompts.shown_minutes``: the item's context
files, cut at a prediction item's "now" and at ``context_days``) are written, as stored (at the
prompt's precision, decompressed), as two CSV files in the sandbox's working directory, ``readings.csv`` and
``events.csv``, and loaded there as the pandas DataFrames ``readings`` (also ``df``) and
``events`` before the model's first turn. The first user message holds the question, its answer
instruction and a description of the columns, no data. The model then runs code through the
harness's agent loop (:func:`wearbench.agent.run_agent`, bubblewrap sandbox, at most
``agent_steps`` rounds). Last, a *final-answer step* asks it, without tools, for exactly the
item's ``{"answer": …}``; that reply is the stored response, read and scored by
``wearbench score`` as any other. ``docs/cgm-eval.md`` ("Agent") shows the texts.
"""

from __future__ import annotations

import asyncio
import csv
import io
import json
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import pandas as pd

from wearbench._errors import WearbenchError
from wearbench.agent import PYTHON_TOOL, AgentTexts, Sandbox, run_agent
from wearbench.cgmqa import DAY_MIN
from wearbench.models import ChatModel, GenerateConfig, Message, ModelError, ModelOutput, ToolSpec
from wearbench.prompts import ContextFiles, shown_context
from wearbench.runner._cgm import CGMItem
from wearbench.runner._chat import CachedModel
from wearbench.runner._solvers import Answer
from wearbench.runner._store import RunStore

_N = TypeVar("_N", int, float)
READINGS_FILE = "readings.csv"
EVENTS_FILE = "events.csv"
#: Characters of one tool output (or text-protocol output message) kept in the stored transcript.
TRANSCRIPT_OUTPUT_CHARS = 4_000

CGM_AGENT_SYSTEM = (
    "You are a careful analyst of continuous glucose monitor (CGM) data from a person with type 1 "
    "diabetes. The data are not in this conversation: they are loaded in a Python tool, `python`, "
    "that runs your code with pandas (as pd) and numpy (as np) and shows what it prints (and the "
    "value of a final expression); variables persist between calls. Compute what the question needs "
    "with the tool, then say what you found. You will then be asked for the answer as JSON."
)

CGM_PYTHON_TOOL = ToolSpec(
    name=PYTHON_TOOL.name,
    description=(
        "Run Python code in a persistent sandbox (variables survive between calls) over one person's "
        "CGM data. `readings` (also `df`) is a pandas DataFrame read from readings.csv, one row per 5 "
        "minutes: minute (minutes from day 1 00:00), day (1 = first day), time (HH:MM), "
        "glucose_mgdl (sensor glucose, mg/dL; NaN = missing reading) and, where the record has it, "
        "insulin_mu_per_min (pump insulin, mean rate in mU/min over the 5 minutes). `events` is a "
        "DataFrame read from events.csv, one row per event: minute, day, time, kind (meal, bolus, "
        "exercise, treatment), type, amount, unit, duration_min. `pd` and `np` are imported. Both "
        "files are in the working directory (if the sandbox restarts, read them again with "
        "pd.read_csv). Print what you need. No network and no files outside the working directory."
    ),
    parameters=PYTHON_TOOL.parameters,
)

CGM_TEXT_HINT = (
    "To run Python over the data, write one fenced ```python code block; `readings` (also `df`) and "
    "`events` (pandas DataFrames read from readings.csv and events.csv), `pd` and `np` are available "
    "and variables persist. You will get its output back. Reply without a code block when you are done."
)

#: The texts of the CGM agent loop (tool description, text-protocol hint, out-of-steps request).
CGM_AGENT_TEXTS = AgentTexts(
    tool=CGM_PYTHON_TOOL,
    text_hint=CGM_TEXT_HINT,
    final_ask="You have used all {n} code executions. Do not run more code: say what you found.",
)

#: The final-answer step: asked without tools after the loop; ``{instruction}`` is the item's.
FINAL_ANSWER_ASK = "Do not run more code. Give your final answer now. {instruction}"

_READINGS_COLUMNS = (
    "minute: minutes from day 1 00:00 (minute 0); day: day number (day 1 is the first); time: HH:MM; "
    "glucose_mgdl: sensor glucose in mg/dL (empty in the file, NaN in pandas: a missing reading)"
)
_INSULIN_COLUMN = (
    "; insulin_mu_per_min: insulin delivered by the pump, mean rate in mU/min over the 5 minutes"
)
_EVENTS_COLUMNS = (
    "minute, day, time: as in readings; kind: meal, bolus, exercise or treatment (fast carbohydrate "
    "taken to treat a low); type: the meal (breakfast, lunch …), insulin, sport or treatment; amount "
    "in unit: carbohydrate in g (meal, treatment), insulin in U (bolus), speed in km/h (running) or "
    "power in W (cycling); duration_min: minutes an exercise lasted (empty for other kinds)"
)


@dataclass(frozen=True)
class AgentFiles:
    """The per-question CSV files of one item.

    Attributes:
        readings: ``readings.csv`` text: the header and rows of the item's readings file whose
            ``minute`` is in ``[start, end)``, values as stored.
        events: ``events.csv`` text, the same cut of the item's events file.
        header: Columns of the readings file.
        start: First minute shown (minutes from day 1 00:00).
        end: One past the last minute shown.
        n_readings: Rows of ``readings``.
        n_events: Rows of ``events``.
    """

    readings: str
    events: str
    header: tuple[str, ...]
    start: int
    end: int
    n_readings: int
    n_events: int


def _csv(header: Sequence[str], rows: Sequence[Mapping[str, str]]) -> str:
    """CSV text of ``rows`` under ``header``, the values as stored."""
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(header), lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    return out.getvalue()


def agent_files(
    item: Mapping[str, Any], bench: Path, days: int | None = None, *, cache: ContextFiles | None = None
) -> AgentFiles:
    """The per-question CSV files of an item: the rows its structured prompt would show.

    Args:
        item: The item as stored in ``items.jsonl``.
        bench: The benchmark folder (context paths are relative to it).
        days: Days of context, counted back from the context's end (30, 7, 1; None: all).
        cache: Read context files (path → header and rows), filled as files are read.

    Raises:
        WearbenchError: If a context file cannot be read.
    """
    shown = shown_context(item, bench, days, cache)
    return AgentFiles(
        _csv(shown.header, shown.readings),
        _csv(shown.events_header, shown.events),
        tuple(shown.header),
        shown.start,
        shown.end,
        len(shown.readings),
        len(shown.events),
    )


def cgm_agent_messages(item: Mapping[str, Any], files: AgentFiles) -> list[Message]:
    """The opening messages: the system message, then the data's description and the question.

    No data is shown: the user message says which days the files cover, their row counts and
    columns, then gives the question and its answer instruction.
    """
    first, last = files.start // DAY_MIN + 1, (files.end - 1) // DAY_MIN + 1
    columns = _READINGS_COLUMNS + (_INSULIN_COLUMN if "insulin_mu_per_min" in files.header else "")
    body = [
        f"The data cover days {first}-{last} (day 1 starts at minute 0) and are in the Python tool only.",
        "",
        f"- `readings` ({READINGS_FILE}, {files.n_readings} rows, one per 5 minutes). Columns: {columns}.",
        f"- `events` ({EVENTS_FILE}, {files.n_events} rows). Columns: {_EVENTS_COLUMNS}.",
        "",
        "## Question",
        "",
        str(item["question"]),
        "",
        str(item["instruction"]),
    ]
    return [Message("system", CGM_AGENT_SYSTEM), Message("user", "\n".join(body))]


def open_sandbox(files: AgentFiles, item_id: str = "") -> Sandbox:
    """A sandbox holding ``files`` in its working directory and as ``readings``/``events``.

    Args:
        files: The item's CSV files.
        item_id: The item, named in errors.

    Raises:
        SandboxError: If bubblewrap is missing or the worker cannot start.
        WearbenchError: If loading the files inside the sandbox failed.
    """
    frame = pd.read_csv(io.StringIO(files.readings))
    sandbox = Sandbox(frame)
    try:
        (sandbox.scratch / READINGS_FILE).write_text(files.readings, encoding="utf-8")
        (sandbox.scratch / EVENTS_FILE).write_text(files.events, encoding="utf-8")
        loaded = sandbox.run(
            f"readings = pd.read_csv({READINGS_FILE!r})\nevents = pd.read_csv({EVENTS_FILE!r})\n"
            "print(len(readings), len(events))"
        )
        if not loaded.ok or loaded.stdout.split() != [str(files.n_readings), str(files.n_events)]:
            raise WearbenchError(
                f"item {item_id or '?'}: the sandbox could not load its CSV files: {loaded.to_text()}"
            )
    except BaseException:
        sandbox.close()
        raise
    return sandbox


class CGMAgentSolver:
    """Answers HealthLoopQA items with a chat model running Python in the sandbox.

    Args:
        model: The adapter (``model.tools`` picks native tool calls or the fenced-code protocol).
        store: Run store for the response cache (None: no cache).
        config: Generation settings for every call.
        context_days: Days of context in the files (30, 7, 1; None: the item's whole context).
        agent_steps: Most tool rounds before the model is told to stop running code.
    """

    needs_context = True

    def __init__(
        self,
        model: ChatModel,
        store: RunStore | None,
        config: GenerateConfig,
        context_days: int | None,
        *,
        agent_steps: int = 8,
    ) -> None:
        self.model = CachedModel(model, store)
        self.name = model.name
        self.config = config
        self.context_days = context_days
        self.agent_steps = agent_steps

    def covers(self, item: CGMItem) -> bool:
        """Every item."""
        return True

    async def solve(self, item: CGMItem) -> Answer:
        """Answer one item; a model failure becomes an :class:`Answer` with ``error`` set.

        Raises:
            SandboxError: If the sandbox cannot start (a machine problem, not the model's).
        """
        started = time.perf_counter()
        # read per item, no cache: a few ms against a sandbox start, and a whole benchmark's
        # context files would take hundreds of MB
        files = await asyncio.to_thread(agent_files, item.data, item.bench, self.context_days)
        messages = cgm_agent_messages(item.data, files)
        model = _Counting(self.model)
        extra: dict[str, Any] = {"context_days": self.context_days}
        sandbox = await asyncio.to_thread(open_sandbox, files, item.id)
        try:
            result = await run_agent(
                model, messages, sandbox, self.config, max_steps=self.agent_steps, texts=CGM_AGENT_TEXTS
            )
            ask = Message("user", FINAL_ANSWER_ASK.format(instruction=item.data["instruction"]))
            final = await model.generate([*result.transcript, ask], self.config)
        except ModelError as e:
            extra |= {"error_type": type(e).__name__, "model_calls": model.calls}
            extra["latency_s"] = time.perf_counter() - started
            return Answer("", None, self.model.key(messages, self.config), error=str(e),
                          transcript=_transcript(messages), extra=extra)  # fmt: skip
        finally:
            await asyncio.to_thread(sandbox.close)
        extra |= {"agent_steps": result.steps, "tool_errors": result.tool_errors, "model_calls": model.calls}
        extra["latency_s"] = time.perf_counter() - started
        return Answer(
            response=final.text,
            letter=None,
            prompt_hash=self.model.key(messages, self.config),
            prompt_tokens=_add(result.prompt_tokens, final.prompt_tokens),
            completion_tokens=_add(result.completion_tokens, final.completion_tokens),
            cost_usd=_add(result.cost_usd, final.cost_usd),
            retries=result.retries + final.retries,
            transcript=_transcript([*result.transcript, ask, Message("assistant", final.text)]),
            cached=model.hits == model.calls,
            extra=extra,
        )

    async def aclose(self) -> None:
        """Close the model."""
        await self.model.aclose()


class _Counting:
    """A chat model that counts its calls and response-cache hits (one item's episode)."""

    def __init__(self, model: CachedModel) -> None:
        self.model = model
        self.name, self.vision, self.tools = model.name, model.vision, model.tools
        self.calls = 0
        self.hits = 0

    async def generate(
        self, messages: Sequence[Message], config: GenerateConfig, tools: Sequence[ToolSpec] = ()
    ) -> ModelOutput:
        """Cached completion (see :class:`~wearbench.models.ChatModel`)."""
        out = await self.model.generate(messages, config, tools)
        self.calls += 1
        self.hits += bool(out.extra.get("cached"))
        return out

    async def aclose(self) -> None:
        """Nothing: the solver closes the model."""


def _add(a: _N | None, b: _N | None) -> _N | None:
    """Sum of two usage counts; None only when both are None."""
    return b if a is None else (a if b is None else a + b)


def _transcript(messages: Sequence[Message]) -> str:
    """The messages as JSON; each code output cut to :data:`TRANSCRIPT_OUTPUT_CHARS` characters."""
    out = []
    for m in messages:
        d = m.to_dict()
        output = m.role == "tool" or (isinstance(m.content, str) and m.content.startswith("Output:\n"))
        if output and isinstance(m.content, str) and len(m.content) > TRANSCRIPT_OUTPUT_CHARS:
            cut = len(m.content) - TRANSCRIPT_OUTPUT_CHARS
            d["content"] = m.content[:TRANSCRIPT_OUTPUT_CHARS] + f"\n[… {cut} more characters not stored]"
        out.append(d)
    return json.dumps(out, ensure_ascii=False)
