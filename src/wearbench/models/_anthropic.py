"""Anthropic Messages API adapter.

The ``anthropic`` SDK is imported in the constructor, never at module import. SDK retries
are off; :func:`~wearbench.models._retry.call_with_retries` retries and counts them.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import os
import time
from collections.abc import Sequence
from typing import Any

from wearbench.models._openai import (
    LLM_INSTALL_HINT,
    int_or_none,
    json_object,
    map_sdk_error,
    resolve_api_key,
    response_text,
)
from wearbench.models._pricing import cost_usd
from wearbench.models._redact import register_secret
from wearbench.models._retry import call_with_retries
from wearbench.models._types import (
    GenerateConfig,
    ImagePart,
    Message,
    ModelError,
    ModelOutput,
    TextPart,
    ToolCall,
    ToolSpec,
    TransientModelError,
)

DEFAULT_ANTHROPIC_BASE_URL = "https://api.anthropic.com"


def _block(p: TextPart | ImagePart) -> dict[str, Any]:
    if isinstance(p, TextPart):
        return {"type": "text", "text": p.text}
    data = base64.b64encode(p.png).decode("ascii")
    return {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}}


def _tool_use(c: ToolCall) -> dict[str, Any]:
    try:
        args = json.loads(c.arguments) if c.arguments.strip() else {}
    except ValueError as e:
        raise ModelError(
            f"tool call {c.id!r} ({c.name}): arguments are not JSON: {c.arguments[:80]!r}"
        ) from e
    return {"type": "tool_use", "id": c.id, "name": c.name, "input": args}


def _blocks(m: Message) -> list[dict[str, Any]]:
    if m.role == "tool":
        if m.tool_call_id is None:
            raise ModelError("a 'tool' message needs tool_call_id (the call it answers)")
        return [{"type": "tool_result", "tool_use_id": m.tool_call_id, "content": m.text}]
    if isinstance(m.content, str):
        blocks = [{"type": "text", "text": m.content}] if m.content else []
    elif m.role != "user" and any(isinstance(p, ImagePart) for p in m.content):
        raise ModelError(f"image parts are only allowed in user messages, not {m.role!r}")
    else:
        blocks = [_block(p) for p in m.content]
    return blocks + [_tool_use(c) for c in m.tool_calls]


def to_anthropic(messages: Sequence[Message]) -> tuple[str | None, list[dict[str, Any]]]:
    """Split ``messages`` into the ``system`` text and Messages-API turns.

    System messages are joined into ``system``; ``tool`` messages become ``tool_result``
    blocks of a user turn; consecutive turns of one role are merged (the API alternates).
    """
    system = [m.text for m in messages if m.role == "system"]
    turns: list[dict[str, Any]] = []
    for m in messages:
        if m.role == "system":
            continue
        role = "assistant" if m.role == "assistant" else "user"
        blocks = _blocks(m)
        if turns and turns[-1]["role"] == role:
            turns[-1]["content"].extend(blocks)
        else:
            turns.append({"role": role, "content": blocks})
    return ("\n\n".join(system) if system else None), turns


def parse_message(data: Any, what: str) -> ModelOutput:
    """Read a Messages-API JSON response into a :class:`ModelOutput` (usage, no cost/latency).

    Raises:
        TransientModelError: If ``data`` has no list of ``content`` blocks (garbage).
    """
    try:
        blocks = list(data["content"])
        texts = [str(b["text"]) for b in blocks if b.get("type") == "text"]
        calls = tuple(
            ToolCall(id=str(b["id"]), name=str(b["name"]), arguments=json.dumps(b.get("input", {})))
            for b in blocks
            if b.get("type") == "tool_use"
        )
    except (KeyError, TypeError, AttributeError) as e:
        raise TransientModelError(f"{what}: malformed response, no content blocks ({e!r})") from e
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    model, reason = data.get("model"), data.get("stop_reason")
    return ModelOutput(
        text="".join(texts),
        tool_calls=calls,
        prompt_tokens=int_or_none(usage.get("input_tokens")),
        completion_tokens=int_or_none(usage.get("output_tokens")),
        stop_reason=reason if isinstance(reason, str) else None,
        model=model if isinstance(model, str) else None,
    )


class AnthropicChat:
    """A Claude model behind the Anthropic Messages API.

    Attributes:
        name: ``anthropic:{model}``, with ``@{base_url}`` appended for a non-default API root.
        vision: True.
        tools: True.
    """

    vision: bool = True
    tools: bool = True

    def __init__(
        self,
        model: str,
        api_key: str | None = None,
        base_url: str | None = None,
        *,
        api_key_env: str | None = None,
    ) -> None:
        """Build the client (no request is made).

        Args:
            model: Model id, e.g. ``claude-sonnet-4-20250514``.
            api_key: Key to send to ``base_url`` whatever it is (programmatic use).
            base_url: API root; default: env ``ANTHROPIC_BASE_URL``, else the Anthropic API.
            api_key_env: Environment variable holding the key for ``base_url``. Without it and
                ``api_key``, env ``ANTHROPIC_API_KEY`` is sent only to ``https://api.anthropic.com``.

        Raises:
            ModelError: If the SDK or the key is missing, ``api_key_env`` names an unset
                variable, or another URL is named without ``api_key_env``.
        """
        try:
            import anthropic
        except ImportError as e:
            raise ModelError(f"the Anthropic adapter needs the anthropic SDK: {LLM_INSTALL_HINT}") from e
        base_url = (base_url or os.environ.get("ANTHROPIC_BASE_URL") or DEFAULT_ANTHROPIC_BASE_URL).rstrip(
            "/"
        )
        at = "" if base_url == DEFAULT_ANTHROPIC_BASE_URL else f"@{base_url}"
        self.name = f"anthropic:{model}{at}"
        if api_key:
            register_secret(api_key)
        else:
            host, env = "api.anthropic.com", "ANTHROPIC_API_KEY"
            api_key = resolve_api_key(self.name, base_url, host, env, api_key_env)
        if not api_key:
            raise ModelError(
                f"{self.name}: ANTHROPIC_API_KEY is sent only to https://api.anthropic.com; "
                f"name the key for {base_url} with --api-key-env VAR"
            )
        self.model = model
        self.base_url = base_url
        self._sdk: Any = anthropic
        self._client: Any = anthropic.AsyncAnthropic(
            api_key=api_key, base_url=base_url, max_retries=0, timeout=None
        )

    async def _once(self, kwargs: dict[str, Any]) -> tuple[ModelOutput, float]:
        start = time.perf_counter()
        try:
            raw = await self._client.messages.with_raw_response.create(**kwargs)
            body = await response_text(raw)
        except self._sdk.AnthropicError as e:
            raise map_sdk_error(self._sdk, e, self.name) from e
        latency = time.perf_counter() - start
        return parse_message(json_object(body, self.name), self.name), latency

    async def generate(
        self, messages: Sequence[Message], config: GenerateConfig, tools: Sequence[ToolSpec] = ()
    ) -> ModelOutput:
        """One Messages-API call, retrying transient failures per ``config``.

        ``config.seed`` is ignored (the API has none). ``config.temperature`` is sent in the
        body; Claude models that reject sampling parameters answer HTTP 400 (permanent).

        Args:
            messages: The conversation; system messages go to ``system``.
            config: Generation settings; ``timeout_s`` and ``backoff_s`` in seconds.
            tools: Tools offered to the model.

        Returns:
            Text, tool calls (arguments as JSON strings), provider-reported tokens, cost in USD
            (None for unpriced models), ``latency_s`` of the successful call in seconds, retries.

        Raises:
            ModelError: A permanent failure (HTTP 4xx other than 429), or retries exhausted.
        """
        system, turns = to_anthropic(messages)
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": turns,
            "max_tokens": config.max_tokens,
            # anthropic SDK >= 1.0 dropped the ``temperature`` keyword; the API still takes it.
            "extra_body": {"temperature": config.temperature},
        }
        if system is not None:
            kwargs["system"] = system
        if tools:
            kwargs["tools"] = [
                {"name": t.name, "description": t.description, "input_schema": dict(t.parameters)}
                for t in tools
            ]
        (out, latency), retries = await call_with_retries(lambda: self._once(kwargs), config, what=self.name)
        cost = cost_usd(out.model or self.model, out.prompt_tokens, out.completion_tokens)
        return dataclasses.replace(out, cost_usd=cost, latency_s=latency, retries=retries)

    async def aclose(self) -> None:
        """Close the HTTP client."""
        await self._client.close()

    def __repr__(self) -> str:
        return f"AnthropicChat({self.name!r})"
