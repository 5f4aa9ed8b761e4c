"""The chat-model solver: prompt → model (through the response cache) → parsed letter.

Modes: ``direct`` and ``cot`` are one call; ``multiview`` is two (the model first names the
representation it wants, then answers on it; an unusable choice falls back to ``csv`` and is
recorded); ``agent`` is a tool-call loop over a sandboxed Python process holding the data.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from wearbench.agent import Sandbox, run_agent
from wearbench.models import (
    ChatModel,
    GenerateConfig,
    Message,
    ModelError,
    ModelOutput,
    ToolSpec,
    prompt_hash,
)
from wearbench.prompts import (
    Setting,
    agent_frame,
    agent_messages,
    build_messages,
    multiview_followup,
    multiview_messages,
    parse_letter,
    parse_representation_choice,
    prompt_tokens,
)
from wearbench.runner._solvers import Answer, Sample
from wearbench.runner._store import RunStore

#: What a multiview run shows when the model's choice of representation cannot be parsed.
_FALLBACK_REPR = "csv"


class CachedModel:
    """A chat model behind the run store's response cache (key: model, messages, params, tools).

    A hit returns the stored output with ``extra["cached"] = True`` and no new cost.
    """

    def __init__(self, model: ChatModel, store: RunStore | None) -> None:
        self.model = model
        self.store = store
        self.name = model.name
        self.vision = model.vision
        self.tools = model.tools

    def key(self, messages: Sequence[Message], config: GenerateConfig, tools: Sequence[ToolSpec] = ()) -> str:
        """The cache key of one call."""
        params: dict[str, Any] = {**config.cache_fields(), "tools": [t.name for t in tools]}
        return prompt_hash(self.name, messages, params)

    async def generate(
        self, messages: Sequence[Message], config: GenerateConfig, tools: Sequence[ToolSpec] = ()
    ) -> ModelOutput:
        """Cached completion (see :class:`~wearbench.models.ChatModel`)."""
        key = self.key(messages, config, tools)
        if self.store is not None and (hit := self.store.cached(key)) is not None:
            return ModelOutput(**{**hit.__dict__, "extra": {**hit.extra, "cached": True}, "retries": 0})
        out = await self.model.generate(messages, config, tools)
        if self.store is not None:
            self.store.cache(key, self.name, out)
        return out

    async def aclose(self) -> None:
        """Close the wrapped model."""
        await self.model.aclose()


@dataclass
class _Usage:
    prompt: int | None = None
    completion: int | None = None
    cost: float | None = None
    retries: int = 0
    calls: int = 0
    hits: int = 0
    cost_known: bool = True

    def add(self, out: ModelOutput) -> None:
        self.calls += 1
        self.hits += bool(out.extra.get("cached"))
        self.retries += out.retries
        if out.prompt_tokens is not None:
            self.prompt = (self.prompt or 0) + out.prompt_tokens
        if out.completion_tokens is not None:
            self.completion = (self.completion or 0) + out.completion_tokens
        if out.cost_usd is None:
            self.cost_known = False
        else:
            self.cost = (self.cost or 0.0) + out.cost_usd


def _transcript(messages: Sequence[Message]) -> str:
    return json.dumps([m.to_dict() for m in messages], ensure_ascii=False)


class ChatSolver:
    """Answers items with a chat model under a setting.

    Args:
        model: The adapter.
        store: Run store for the response cache (None: no cache).
        config: Generation settings.
        agent_steps: Most tool rounds in agent mode.
    """

    def __init__(
        self, model: ChatModel, store: RunStore | None, config: GenerateConfig, *, agent_steps: int = 8
    ) -> None:
        self.model = CachedModel(model, store)
        self.name = model.name
        self.config = config
        self.agent_steps = agent_steps

    async def aclose(self) -> None:
        """Close the model."""
        await self.model.aclose()

    async def solve(self, sample: Sample, setting: Setting) -> Answer:
        """Answer one item; model failures become an :class:`Answer` with ``error`` set."""
        started = time.perf_counter()
        usage = _Usage()
        first: list[Message] = []
        try:
            text, messages, extra = await self._dispatch(sample, setting, usage, first)
        except ModelError as e:
            extra = {"error_type": type(e).__name__}
            return self._answer(first, first, "", usage, started, extra, error=str(e))
        counted = prompt_tokens(messages[:-1] if messages and messages[-1].role == "assistant" else messages)
        extra = {**extra, "prompt_tokens_counted": counted.n, "token_counter": counted.counter}
        return self._answer(first, messages, text, usage, started, extra)

    def _answer(
        self,
        first: Sequence[Message],
        messages: Sequence[Message],
        text: str,
        usage: _Usage,
        started: float,
        extra: dict[str, Any],
        error: str | None = None,
    ) -> Answer:
        letter = parse_letter(text) if error is None else None
        key = self.model.key(first, self.config)
        extra = {**extra, "latency_s": time.perf_counter() - started, "model_calls": usage.calls}
        return Answer(
            response=text,
            letter=letter,
            prompt_hash=key,
            prompt_tokens=usage.prompt if usage.prompt is not None else extra.get("prompt_tokens_counted"),
            completion_tokens=usage.completion,
            cost_usd=usage.cost if usage.cost_known and usage.calls else None,
            retries=usage.retries,
            error=error,
            transcript=_transcript(messages),
            cached=usage.calls > 0 and usage.hits == usage.calls,
            extra=extra,
        )

    async def _dispatch(
        self, sample: Sample, setting: Setting, usage: _Usage, first: list[Message]
    ) -> tuple[str, list[Message], dict[str, Any]]:
        if setting.mode == "agent":
            return await self._agent(sample, setting, usage, first)
        if setting.mode == "multiview":
            return await self._multiview(sample, setting, usage, first)

        messages = build_messages(sample.item, sample.context, setting, vision=self.model.vision)
        first.extend(messages)
        out = await self.model.generate(messages, self.config)
        usage.add(out)
        return out.text, [*messages, Message("assistant", out.text)], {}

    async def _multiview(
        self, sample: Sample, setting: Setting, usage: _Usage, first: list[Message]
    ) -> tuple[str, list[Message], dict[str, Any]]:
        ask, available = multiview_messages(sample.item, sample.context, setting, vision=self.model.vision)
        first.extend(ask)
        pick = await self.model.generate(ask, self.config)
        usage.add(pick)
        choice = parse_representation_choice(pick.text, available)
        extra: dict[str, Any] = {
            "representation_choice": choice or _FALLBACK_REPR,
            "choice_fallback": not choice,
        }
        follow = multiview_followup(
            sample.item, sample.context, choice or _FALLBACK_REPR, setting, vision=self.model.vision
        )
        messages = [*ask, Message("assistant", pick.text), *follow]
        out = await self.model.generate(messages, self.config)
        usage.add(out)
        return out.text, [*messages, Message("assistant", out.text)], extra

    async def _agent(
        self, sample: Sample, setting: Setting, usage: _Usage, first: list[Message]
    ) -> tuple[str, list[Message], dict[str, Any]]:
        messages = agent_messages(sample.item, sample.context, setting)
        first.extend(messages)
        frame = agent_frame(sample.item, sample.context, setting.ablations)
        sandbox = await asyncio.to_thread(Sandbox, frame)
        try:
            result = await run_agent(self.model, messages, sandbox, self.config, max_steps=self.agent_steps)
        finally:
            await asyncio.to_thread(sandbox.close)
        usage.calls += result.steps + 1
        usage.retries += result.retries
        usage.prompt, usage.completion = result.prompt_tokens, result.completion_tokens
        usage.cost, usage.cost_known = result.cost_usd, result.cost_usd is not None
        extra = {"agent_steps": result.steps, "tool_errors": result.tool_errors}
        return result.final_text, list(result.transcript), extra
