"""The ``wearbench-gemma`` chat format: Gemma turns that keep the system message.

llama-cpp-python's own ``gemma`` format drops ``role="system"`` messages (Gemma has no system
role), so a prompt's instructions never reach the model. Gemma 3's official chat template
instead puts the system text at the start of the first user turn, followed by a blank line;
this format does the same. Without a system message its prompt is byte-identical to the
``gemma`` format's. The model file adds the BOS token when the prompt is tokenised.

:func:`gemma_prompt` needs nothing but the messages; :func:`register_chat_formats` registers
the format with llama-cpp-python (an optional dependency, imported there), which the in-process
GGUF adapter and the llama.cpp server entry (``python -m wearbench.models._llama_server_main``)
do before loading a model.
"""

from __future__ import annotations

import importlib
from collections.abc import Mapping, Sequence
from typing import Any

#: The chat format name to use with the bundled Gemma model (``gguf:PATH?chat_format=wearbench-gemma``).
GEMMA_CHAT_FORMAT = "wearbench-gemma"
TURN_END = "<end_of_turn>\n"
_USER, _MODEL = "<start_of_turn>user\n", "<start_of_turn>model\n"
_TURN = {"user": _USER, "tool": _USER, "assistant": _MODEL}


def _text(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    if content is None or isinstance(content, str):
        return content or ""
    texts = []
    for part in content:
        if part.get("type") != "text":
            raise ValueError(f"{GEMMA_CHAT_FORMAT}: the model is text-only, got a {part.get('type')!r} part")
        texts.append(str(part.get("text", "")))
    return "\n".join(texts)


def gemma_prompt(messages: Sequence[Mapping[str, Any]]) -> str:
    r"""The Gemma prompt for OpenAI-style chat messages, ending with an open model turn.

    Each system message's text, then a blank line, starts the next user turn (one that is
    followed by no user message becomes a user turn of its own). Assistant messages become
    ``model`` turns, tool results user turns; content is not trimmed.

    Args:
        messages: Dicts with ``role`` (``system``, ``user``, ``assistant`` or ``tool``) and
            ``content`` (a string, None, or a list of ``{"type": "text", "text": ...}`` parts).

    Returns:
        ``<start_of_turn>ROLE\nTEXT<end_of_turn>\n`` per turn, then ``<start_of_turn>model\n``.

    Raises:
        ValueError: For another role or a non-text content part (llama.cpp's server answers
            the request with an error instead of silently dropping the content).
    """
    prompt, pending = "", ""
    for message in messages:
        role, text = message.get("role"), _text(message)
        if role == "system":
            pending += text + "\n\n"
            continue
        if role not in _TURN:
            raise ValueError(f"{GEMMA_CHAT_FORMAT}: unsupported message role {role!r}")
        if pending and role == "assistant":
            prompt += _USER + pending.removesuffix("\n\n") + TURN_END
        elif pending:
            text = pending + text
        pending = ""
        prompt += _TURN[role] + text + TURN_END
    if pending:
        prompt += _USER + pending.removesuffix("\n\n") + TURN_END
    return prompt + _MODEL


def register_chat_formats() -> None:
    """Register ``wearbench-gemma`` with llama-cpp-python (idempotent; stops at ``<end_of_turn>``).

    Raises:
        ImportError: If llama-cpp-python is not installed.
    """
    chat_format: Any = importlib.import_module("llama_cpp.llama_chat_format")  # optional, untyped

    def formatter(*, messages: Sequence[Mapping[str, Any]], **_: Any) -> Any:
        return chat_format.ChatFormatterResponse(prompt=gemma_prompt(messages), stop=TURN_END)

    handler = chat_format.chat_formatter_to_chat_completion_handler(formatter)
    registry = chat_format.LlamaChatCompletionHandlerRegistry()
    registry.register_chat_completion_handler(GEMMA_CHAT_FORMAT, handler, overwrite=True)
