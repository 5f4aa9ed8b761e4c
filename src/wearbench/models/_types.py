"""What every chat model adapter speaks: messages in, one output (text, tool calls, usage) out.

Adapters translate these plain dataclasses to and from a provider SDK; nothing above the
adapters imports an SDK. Errors are mapped to :class:`TransientModelError` (retry: timeouts,
HTTP 429 and 5xx, dropped connections, garbage bodies) or :class:`ModelError` (do not retry:
bad request, authentication, unknown model).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from wearbench._errors import WearbenchError

Role = Literal["system", "user", "assistant", "tool"]


class ModelError(WearbenchError):
    """A model call failed in a way retrying will not fix (bad request, auth, unknown model)."""


class PermanentModelError(ModelError):
    """A failure that will repeat for every call: HTTP 401, 403, 404 or a refused connection.

    The runner counts these in a row and stops the run (circuit breaker) instead of paying
    the same failure for every item.
    """


class TransientModelError(ModelError):
    """A model call failed in a way worth retrying (timeout, 429, 5xx, connection, garbage body).

    Attributes:
        retry_after_s: Server-suggested wait (``Retry-After``), if any.
    """

    def __init__(self, message: str, retry_after_s: float | None = None) -> None:
        super().__init__(message)
        self.retry_after_s = retry_after_s


@dataclass(frozen=True)
class TextPart:
    """Plain text content."""

    text: str


@dataclass(frozen=True)
class ImagePart:
    """A PNG image (for vision-capable models); ``alt`` is its text description."""

    png: bytes
    alt: str = ""


@dataclass(frozen=True)
class ToolCall:
    """A tool call requested by the model; ``arguments`` is the raw JSON string it sent."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class ToolSpec:
    """A tool offered to the model: name, description and JSON-schema parameters."""

    name: str
    description: str
    parameters: Mapping[str, Any]


@dataclass(frozen=True)
class Message:
    """One chat message.

    Attributes:
        role: ``system``, ``user``, ``assistant`` or ``tool``.
        content: Text, or a sequence of text and image parts (user messages only).
        tool_calls: Tool calls an assistant message made.
        tool_call_id: For ``tool`` messages: the call this answers.
    """

    role: Role
    content: str | tuple[TextPart | ImagePart, ...]
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None

    @property
    def text(self) -> str:
        """The text of the message (image parts contribute their ``alt`` text)."""
        if isinstance(self.content, str):
            return self.content
        return "\n".join(p.text if isinstance(p, TextPart) else p.alt for p in self.content)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form; images become their sha256 and size (for hashing and transcripts)."""
        if isinstance(self.content, str):
            content: Any = self.content
        else:
            content = [
                {"text": p.text}
                if isinstance(p, TextPart)
                else {"png_sha256": hashlib.sha256(p.png).hexdigest(), "bytes": len(p.png), "alt": p.alt}
                for p in self.content
            ]
        out: dict[str, Any] = {"role": self.role, "content": content}
        if self.tool_calls:
            out["tool_calls"] = [asdict(c) for c in self.tool_calls]
        if self.tool_call_id is not None:
            out["tool_call_id"] = self.tool_call_id
        return out


@dataclass(frozen=True)
class GenerateConfig:
    """Generation and call settings.

    Attributes:
        max_tokens: Most completion tokens.
        temperature: Sampling temperature (0: greedy where the provider honours it).
        seed: Sampling seed where the provider supports one.
        timeout_s: Per-call timeout, seconds.
        max_retries: Retries of transient failures (timeouts, 429, 5xx), with exponential backoff.
        backoff_s: First backoff, seconds; doubles per retry (with jitter), capped at 60 s.
    """

    max_tokens: int = 1024
    temperature: float = 0.0
    seed: int | None = 0
    timeout_s: float = 120.0
    max_retries: int = 5
    backoff_s: float = 1.0

    def cache_fields(self) -> dict[str, Any]:
        """The fields that change a model's answer (part of the response-cache key)."""
        return {"max_tokens": self.max_tokens, "temperature": self.temperature, "seed": self.seed}


@dataclass(frozen=True)
class ModelOutput:
    """One model response.

    Attributes:
        text: Response text ("" when the model only called tools).
        tool_calls: Tool calls requested.
        prompt_tokens: Prompt tokens, as reported by the provider (None: not reported).
        completion_tokens: Completion tokens, as reported (None: not reported).
        cost_usd: Cost from a known price table (None: unknown price or no usage).
        latency_s: Wall time of the successful call, seconds.
        retries: Transient failures retried before it.
        stop_reason: Provider stop reason (``stop``, ``length``, ``tool_calls`` …), if any.
        model: Model name the provider reports, if any.
    """

    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost_usd: float | None = None
    latency_s: float = 0.0
    retries: int = 0
    stop_reason: str | None = None
    model: str | None = None
    extra: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (the response cache stores this)."""
        out = asdict(self)
        out["tool_calls"] = [asdict(c) for c in self.tool_calls]
        out["extra"] = dict(self.extra)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ModelOutput:
        """Rebuild from :meth:`to_dict`."""
        fields = dict(data)
        fields["tool_calls"] = tuple(ToolCall(**c) for c in fields.get("tool_calls", ()))
        return cls(**fields)


@runtime_checkable
class ChatModel(Protocol):
    """A chat model adapter.

    Attributes:
        name: Canonical model spec, e.g. ``openai:gpt-4o-mini@https://api.openai.com/v1``; it
            is part of the response-cache key and of every result row.
        vision: Whether image parts are accepted.
        tools: Whether tool calling is supported.
    """

    name: str
    vision: bool
    tools: bool

    async def generate(
        self, messages: Sequence[Message], config: GenerateConfig, tools: Sequence[ToolSpec] = ()
    ) -> ModelOutput:
        """One completion; retries transient failures per ``config``.

        Raises:
            ModelError: A permanent failure, or a transient one that outlived its retries.
        """
        ...

    async def aclose(self) -> None:
        """Release clients, connections and processes."""
        ...


def prompt_hash(model: str, messages: Sequence[Message], params: Mapping[str, Any]) -> str:
    """sha256 of (model, messages, params): the response-cache key and the stored prompt hash."""
    payload = {"model": model, "messages": [m.to_dict() for m in messages], "params": dict(params)}
    blob = json.dumps(payload, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()
