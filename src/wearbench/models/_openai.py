"""OpenAI-compatible chat-completions adapter (OpenAI, llama.cpp server, vLLM, …).

The ``openai`` SDK is imported in the constructor, never at module import. SDK retries are
off; :func:`~wearbench.models._retry.call_with_retries` retries and counts them.
"""

from __future__ import annotations

import base64
import dataclasses
import email.utils
import ipaddress
import json
import os
import time
from collections.abc import Mapping, Sequence
from typing import Any
from urllib.parse import urlsplit

from wearbench.models._pricing import cost_usd
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

__all__ = ["DEFAULT_OPENAI_BASE_URL", "OpenAIChat", "is_loopback", "parse_chat_completion", "retry_after_s"]

DEFAULT_OPENAI_BASE_URL = "https://api.openai.com/v1"
LLM_INSTALL_HINT = "pip install 'wearbench[llm]'"
_NO_KEY = "sk-no-key-required"


def is_loopback(url: str) -> bool:
    """Whether ``url`` points at this machine (``localhost``, 127.0.0.0/8 or ``::1``)."""
    host = urlsplit(url).hostname or ""
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def retry_after_s(headers: Mapping[str, str] | None) -> float | None:
    """Server-suggested wait from ``retry-after-ms`` or ``retry-after`` headers, in seconds."""
    if headers is None:
        return None
    for header, per_s in (("retry-after-ms", 1000.0), ("retry-after", 1.0)):
        value = headers.get(header)
        if value is None:
            continue
        try:
            return max(float(value) / per_s, 0.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if value:
        try:
            when = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        return max(when.timestamp() - time.time(), 0.0)
    return None


async def response_text(raw: Any) -> str:
    """The body of an SDK raw response as text (works for eager and lazy raw-response types)."""
    response = raw.http_response
    await response.aread()
    return str(response.text)


def json_object(body: str, name: str) -> dict[str, Any]:
    """Parse a response body that must be a JSON object; anything else is a transient failure.

    Raises:
        TransientModelError: For a non-JSON or non-object body (garbage from a proxy or an
            overloaded server), so the call is retried.
    """
    try:
        data = json.loads(body)
    except ValueError as e:
        raise TransientModelError(f"{name}: response is not JSON: {body[:80]!r}") from e
    if not isinstance(data, dict):
        raise TransientModelError(f"{name}: response is not a JSON object: {body[:80]!r}")
    return data


def _part(p: TextPart | ImagePart) -> dict[str, Any]:
    if isinstance(p, TextPart):
        return {"type": "text", "text": p.text}
    url = "data:image/png;base64," + base64.b64encode(p.png).decode("ascii")
    return {"type": "image_url", "image_url": {"url": url}}


def _message(m: Message) -> dict[str, Any]:
    if m.role == "tool":
        if m.tool_call_id is None:
            raise ModelError("a 'tool' message needs tool_call_id (the call it answers)")
        return {"role": "tool", "tool_call_id": m.tool_call_id, "content": m.text}
    content: Any
    if isinstance(m.content, str):
        content = m.content
    elif m.role == "user":
        content = [_part(p) for p in m.content]
    elif any(isinstance(p, ImagePart) for p in m.content):
        raise ModelError(f"image parts are only allowed in user messages, not {m.role!r}")
    else:
        content = m.text
    out: dict[str, Any] = {"role": m.role, "content": content}
    if m.tool_calls:
        out["content"] = content or None
        out["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}
            for c in m.tool_calls
        ]
    return out


def _tool(t: ToolSpec) -> dict[str, Any]:
    return {
        "type": "function",
        "function": {"name": t.name, "description": t.description, "parameters": dict(t.parameters)},
    }


def _int_or_none(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def parse_chat_completion(data: Any, what: str) -> ModelOutput:
    """Read a chat-completions JSON object into a :class:`ModelOutput` (usage, no cost/latency).

    Raises:
        TransientModelError: If ``data`` lacks a well-formed ``choices[0].message`` (garbage).
    """
    try:
        choice = data["choices"][0]
        message = choice["message"]
        calls = tuple(
            ToolCall(
                id=str(c["id"]), name=str(c["function"]["name"]), arguments=str(c["function"]["arguments"])
            )
            for c in message.get("tool_calls") or ()
        )
        text = message.get("content") or ""
    except (KeyError, IndexError, TypeError, AttributeError) as e:
        raise TransientModelError(f"{what}: malformed response, no choices[0].message ({e!r})") from e
    if not isinstance(text, str):
        raise TransientModelError(f"{what}: malformed response, message content is {type(text).__name__}")
    usage = data.get("usage") if isinstance(data.get("usage"), dict) else {}
    model = data.get("model")
    reason = choice.get("finish_reason")
    return ModelOutput(
        text=text,
        tool_calls=calls,
        prompt_tokens=_int_or_none(usage.get("prompt_tokens")),
        completion_tokens=_int_or_none(usage.get("completion_tokens")),
        stop_reason=reason if isinstance(reason, str) else None,
        model=model if isinstance(model, str) else None,
    )


class OpenAIChat:
    """A model behind an OpenAI-compatible ``/chat/completions`` endpoint.

    Attributes:
        name: ``openai:{model}@{base_url}``.
        vision: True (the server decides whether it accepts images).
        tools: True.
        base_url: API root, e.g. ``https://api.openai.com/v1``.
    """

    vision: bool = True
    tools: bool = True

    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None) -> None:
        """Build the client (no request is made).

        Args:
            model: Model id sent in every request.
            base_url: API root; default: env ``OPENAI_BASE_URL``, else the OpenAI API.
            api_key: Key; default: env ``OPENAI_API_KEY``. Loopback servers need none.

        Raises:
            ModelError: If the SDK is missing, or a non-loopback URL has no key.
        """
        try:
            import openai
        except ImportError as e:
            raise ModelError(f"the OpenAI adapter needs the openai SDK: {LLM_INSTALL_HINT}") from e
        base_url = (base_url or os.environ.get("OPENAI_BASE_URL") or DEFAULT_OPENAI_BASE_URL).rstrip("/")
        api_key = api_key or os.environ.get("OPENAI_API_KEY")
        if not api_key:
            if not is_loopback(base_url):
                raise ModelError(f"openai:{model}@{base_url}: no API key; set OPENAI_API_KEY")
            api_key = _NO_KEY
        self.model = model
        self.base_url = base_url
        self.name = f"openai:{model}@{base_url}"
        self._local = is_loopback(base_url)
        self._sdk: Any = openai
        self._client: Any = openai.AsyncOpenAI(
            base_url=base_url, api_key=api_key, max_retries=0, timeout=None
        )

    def _request(
        self, messages: Sequence[Message], config: GenerateConfig, tools: Sequence[ToolSpec]
    ) -> dict[str, Any]:
        kwargs: dict[str, Any] = {
            "model": self.model,
            "messages": [_message(m) for m in messages],
            "max_tokens": config.max_tokens,
            "temperature": config.temperature,
        }
        if config.seed is not None:
            kwargs["seed"] = config.seed
        if tools:
            kwargs["tools"] = [_tool(t) for t in tools]
        return kwargs

    def _map_error(self, e: Exception) -> ModelError:
        sdk = self._sdk
        if isinstance(e, sdk.RateLimitError):
            return TransientModelError(
                f"{self.name}: HTTP 429 rate limited", retry_after_s(e.response.headers)
            )
        if isinstance(e, sdk.APITimeoutError):
            return TransientModelError(f"{self.name}: request timed out")
        if isinstance(e, sdk.APIConnectionError):
            return TransientModelError(f"{self.name}: connection failed ({e})")
        if isinstance(e, sdk.APIStatusError):
            if e.status_code >= 500:
                return TransientModelError(
                    f"{self.name}: HTTP {e.status_code}: {e.message}", retry_after_s(e.response.headers)
                )
            return ModelError(f"{self.name}: HTTP {e.status_code}: {e.message}")
        if isinstance(e, sdk.APIResponseValidationError):
            return TransientModelError(f"{self.name}: malformed response ({e})")
        return ModelError(f"{self.name}: {type(e).__name__}: {e}")

    async def _once(self, kwargs: dict[str, Any]) -> tuple[ModelOutput, float]:
        start = time.perf_counter()
        try:
            raw = await self._client.chat.completions.with_raw_response.create(**kwargs)
            body = await response_text(raw)
        except self._sdk.OpenAIError as e:
            raise self._map_error(e) from e
        latency = time.perf_counter() - start
        return parse_chat_completion(json_object(body, self.name), self.name), latency

    async def generate(
        self, messages: Sequence[Message], config: GenerateConfig, tools: Sequence[ToolSpec] = ()
    ) -> ModelOutput:
        """One chat completion, retrying transient failures per ``config``.

        Args:
            messages: The conversation.
            config: Generation settings; ``timeout_s`` and ``backoff_s`` in seconds.
            tools: Tools offered to the model.

        Returns:
            Text, tool calls, provider-reported tokens, cost in USD (None for loopback servers
            and unpriced models), ``latency_s`` of the successful call in seconds, retries.

        Raises:
            ModelError: A permanent failure (HTTP 4xx other than 429), or retries exhausted.
        """
        kwargs = self._request(messages, config, tools)
        (out, latency), retries = await call_with_retries(lambda: self._once(kwargs), config, what=self.name)
        model = out.model or self.model
        cost = None if self._local else cost_usd(model, out.prompt_tokens, out.completion_tokens)
        return dataclasses.replace(out, cost_usd=cost, latency_s=latency, retries=retries)

    async def aclose(self) -> None:
        """Close the HTTP client."""
        await self._client.close()

    def __repr__(self) -> str:
        return f"OpenAIChat({self.name!r})"
