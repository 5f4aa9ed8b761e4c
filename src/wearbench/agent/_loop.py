"""The agent loop: a chat model calls a sandboxed ``python`` tool until it gives a final answer.

Models with native tool calling get one tool, ``python`` (``{"code": string}``); each call runs in
the :class:`~wearbench.agent.Sandbox` and is answered with a ``tool`` message. Models without
tool calling use a text protocol: a fenced ```` ```python ```` block is run and its output sent
back as a user message. A reply without tool calls (or without a code block) is final. After
``max_steps`` tool rounds the model is asked once more, without tools, for its final answer.

What the model is told about the tool (its description, the text-protocol hint and the
out-of-steps request) is an :class:`AgentTexts`; the default, :data:`WEARABLE_TEXTS`, describes a
WearableQA user's ``df``. HealthLoopQA's agent passes its own (``runner/_cgm_agent.py``).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TypeVar

from wearbench.agent._sandbox import Sandbox
from wearbench.agent._types import ExecResult
from wearbench.models import ChatModel, GenerateConfig, Message, ModelOutput, ToolCall, ToolSpec

PYTHON_TOOL = ToolSpec(
    name="python",
    description=(
        "Run Python code in a persistent sandbox (variables survive between calls). `df` is the "
        "user's wearable data: a pandas DataFrame with a date index and one column per metric; "
        "`pd` and `np` are imported. Print what you need; the value of a final expression is "
        "shown. No network and no files outside the working directory."
    ),
    parameters={
        "type": "object",
        "properties": {"code": {"type": "string", "description": "Python source to run."}},
        "required": ["code"],
        "additionalProperties": False,
    },
)

TEXT_PROTOCOL_HINT = (
    "To run Python over the user's data, write one fenced ```python code block; `df` (pandas "
    "DataFrame, date index, one column per metric), `pd` and `np` are available and variables "
    "persist. You will get its output back. Reply without a code block to give your final answer."
)
FINAL_ASK = (
    "You have used all {n} code executions. Do not run more code: give your final answer now "
    "(the answer letter, in the format asked for)."
)


@dataclass(frozen=True)
class AgentTexts:
    """What the model is told about the sandbox.

    Attributes:
        tool: The tool offered to native tool-calling models (its ``name`` is the one accepted).
        text_hint: The user message that explains the fenced-code protocol to other models.
        final_ask: The request for a final answer after ``max_steps`` rounds (``{n}``: the steps).
    """

    tool: ToolSpec = PYTHON_TOOL
    text_hint: str = TEXT_PROTOCOL_HINT
    final_ask: str = FINAL_ASK


#: WearableQA's texts: the user's ``df``, and a final answer letter.
WEARABLE_TEXTS = AgentTexts()
_N = TypeVar("_N", int, float)
_CODE_BLOCK = re.compile(r"```(?:python|py)[ \t]*\n(.*?)```", re.DOTALL | re.IGNORECASE)


@dataclass(frozen=True)
class AgentResult:
    """Outcome of one agent episode.

    Attributes:
        final_text: The model's final answer text.
        transcript: Every message, the caller's first, then assistant, tool and user turns.
        prompt_tokens: Sum of reported prompt tokens (None if no call reported any).
        completion_tokens: Sum of reported completion tokens (None if no call reported any).
        cost_usd: Sum of known costs, US dollars (None if no call had a known cost).
        retries: Sum of transient-failure retries over all model calls.
        steps: Tool rounds (model turns that ran code).
        tool_errors: Executions that failed (exception, killed, timed out, bad arguments).
    """

    final_text: str
    transcript: tuple[Message, ...]
    prompt_tokens: int | None
    completion_tokens: int | None
    cost_usd: float | None
    retries: int
    steps: int
    tool_errors: int


class _Episode:
    """Mutable state of one run: transcript and usage sums."""

    def __init__(self, model: ChatModel, messages: Sequence[Message], config: GenerateConfig) -> None:
        self.model, self.config = model, config
        self.transcript: list[Message] = list(messages)
        self.prompt_tokens: int | None = None
        self.completion_tokens: int | None = None
        self.cost_usd: float | None = None
        self.retries = 0
        self.steps = 0
        self.tool_errors = 0

    async def ask(self, tools: Sequence[ToolSpec]) -> ModelOutput:
        """One model call on the transcript; records usage and the assistant message."""
        out = await self.model.generate(self.transcript, self.config, tools)
        self.prompt_tokens = _add(self.prompt_tokens, out.prompt_tokens)
        self.completion_tokens = _add(self.completion_tokens, out.completion_tokens)
        self.cost_usd = _add(self.cost_usd, out.cost_usd)
        self.retries += out.retries
        calls = out.tool_calls if tools else ()
        self.transcript.append(Message(role="assistant", content=out.text, tool_calls=calls))
        return out

    def result(self, final_text: str) -> AgentResult:
        return AgentResult(
            final_text=final_text,
            transcript=tuple(self.transcript),
            prompt_tokens=self.prompt_tokens,
            completion_tokens=self.completion_tokens,
            cost_usd=self.cost_usd,
            retries=self.retries,
            steps=self.steps,
            tool_errors=self.tool_errors,
        )


async def run_agent(
    model: ChatModel,
    messages: Sequence[Message],
    sandbox: Sandbox,
    config: GenerateConfig,
    *,
    max_steps: int = 8,
    texts: AgentTexts = WEARABLE_TEXTS,
) -> AgentResult:
    """Let ``model`` run Python over the sandbox's data until it answers.

    Args:
        model: The chat model; ``model.tools`` picks native tool calls or the text protocol.
        messages: The opening messages (system and user prompt).
        sandbox: An open sandbox holding the user's data (not closed here).
        config: Generation settings for every call.
        max_steps: Most tool rounds before the model is asked for its final answer without tools.
        texts: The tool's description, the text-protocol hint and the out-of-steps request.

    Returns:
        The final answer, the whole transcript and usage sums.

    Raises:
        ValueError: ``max_steps`` is negative.
        ModelError: A model call failed permanently (from ``model.generate``).
        SandboxError: The sandbox could not (re)start its worker.
    """
    if max_steps < 0:
        raise ValueError(f"max_steps must be >= 0, got {max_steps}")
    episode = _Episode(model, messages, config)
    if model.tools:
        return await _tool_loop(episode, sandbox, max_steps, texts)
    return await _text_loop(episode, sandbox, max_steps, texts)


async def _tool_loop(episode: _Episode, sandbox: Sandbox, max_steps: int, texts: AgentTexts) -> AgentResult:
    while episode.steps < max_steps:
        out = await episode.ask((texts.tool,))
        if not out.tool_calls:
            return episode.result(out.text)
        episode.steps += 1
        for call in out.tool_calls:
            text, failed = await _execute_call(call, sandbox, texts.tool.name)
            episode.tool_errors += failed
            episode.transcript.append(Message(role="tool", content=text, tool_call_id=call.id))
    episode.transcript.append(Message(role="user", content=texts.final_ask.format(n=max_steps)))
    out = await episode.ask(())
    return episode.result(out.text)


async def _text_loop(episode: _Episode, sandbox: Sandbox, max_steps: int, texts: AgentTexts) -> AgentResult:
    episode.transcript.append(Message(role="user", content=texts.text_hint))
    while episode.steps < max_steps:
        out = await episode.ask(())
        blocks = _CODE_BLOCK.findall(out.text)
        if not blocks:
            return episode.result(out.text)
        episode.steps += 1
        reports = []
        for code in blocks:
            result = await asyncio.to_thread(sandbox.run, code)
            episode.tool_errors += not result.ok
            reports.append(result.to_text())
        episode.transcript.append(Message(role="user", content="Output:\n" + "\n\n".join(reports)))
    episode.transcript.append(Message(role="user", content=texts.final_ask.format(n=max_steps)))
    out = await episode.ask(())
    return episode.result(out.text)


async def _execute_call(call: ToolCall, sandbox: Sandbox, tool: str) -> tuple[str, bool]:
    """Run one tool call of the tool named ``tool``; returns the tool message text and whether it failed."""
    if call.name != tool:
        return f"error: unknown tool {call.name!r}; the only tool is {tool!r}", True
    code = _parse_code(call.arguments)
    if isinstance(code, _BadArguments):
        return f"error: invalid arguments for {tool!r}: {code.reason}", True
    result: ExecResult = await asyncio.to_thread(sandbox.run, code)
    return result.to_text(), not result.ok


@dataclass(frozen=True)
class _BadArguments:
    reason: str


def _parse_code(arguments: str) -> str | _BadArguments:
    """The ``code`` string from a tool call's JSON arguments."""
    try:
        parsed = json.loads(arguments) if arguments.strip() else {}
    except ValueError as exc:
        return _BadArguments(f'not valid JSON ({exc}); send {{"code": "..."}}')
    if not isinstance(parsed, dict) or not isinstance(parsed.get("code"), str):
        return _BadArguments('expected a JSON object with a string field "code"')
    code: str = parsed["code"]
    return code


def _add(total: _N | None, value: _N | None) -> _N | None:
    """Sum that stays None until a value is reported."""
    return total if value is None else (value if total is None else total + value)
