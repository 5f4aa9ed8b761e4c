"""In-process GGUF model adapter via ``llama-cpp-python`` (text only, no tools).

``llama_cpp`` is imported in the constructor, never at module import; the constructor registers
wearbench's chat formats (``wearbench-gemma``) with it first. One ``Llama`` object is
not thread-safe, so calls are serialised: an :class:`asyncio.Lock` orders waiting callers and
a :class:`threading.Lock` guards the model even when a timed-out call's thread still runs.
"""

from __future__ import annotations

import asyncio
import importlib
import threading
import time
import weakref
from collections.abc import Sequence
from typing import Any

from wearbench.models._gemma_format import register_chat_formats
from wearbench.models._local import quiet_stderr
from wearbench.models._openai import parse_chat_completion
from wearbench.models._retry import call_with_retries
from wearbench.models._types import GenerateConfig, ImagePart, Message, ModelError, ModelOutput, ToolSpec

GGUF_INSTALL_HINT = 'CMAKE_ARGS="-DGGML_NATIVE=OFF" pip install "llama-cpp-python[server]==0.3.36"'


def _message(m: Message) -> dict[str, str]:
    if not isinstance(m.content, str) and any(isinstance(p, ImagePart) for p in m.content):
        raise ModelError("GGUF models are text-only: remove image parts (or use their alt text)")
    if m.role == "tool" or m.tool_calls:
        raise ModelError("GGUF models do not support tool calls or tool messages")
    return {"role": m.role, "content": m.text}


class GGUFChat:
    """A GGUF model file run in-process by llama.cpp.

    Attributes:
        name: ``gguf:{path}``, with ``?chat_format={chat_format}`` appended when one is given
            (the format changes the prompt, so it is part of the model's identity).
        vision: False.
        tools: False.
        n_ctx: Context window, tokens (prompt plus completion).
    """

    vision: bool = False
    tools: bool = False

    def __init__(
        self, path: str, *, chat_format: str | None = None, n_ctx: int = 4096, n_threads: int | None = None
    ) -> None:
        """Load the model once (blocking; a few hundred MB load in about a second).

        Args:
            path: The ``.gguf`` file.
            chat_format: llama-cpp-python chat format for models whose file has no chat template
                (``wearbench-gemma`` for the bundled Gemma model; llama-cpp-python's ``gemma``
                drops system messages); None: use the template in the file.
            n_ctx: Context window, tokens.
            n_threads: CPU threads (None: llama.cpp's default).

        Raises:
            ModelError: If llama-cpp-python is missing or the file cannot be loaded.
        """
        try:
            llama_cpp = importlib.import_module("llama_cpp")  # optional, untyped dependency
        except ImportError as e:
            raise ModelError(f"the GGUF adapter needs llama-cpp-python: {GGUF_INSTALL_HINT}") from e
        register_chat_formats()
        if n_ctx < 1:
            raise ModelError(f"gguf:{path}: n_ctx must be positive, got {n_ctx}")
        self.path = path
        self.chat_format = chat_format
        self.n_ctx = n_ctx
        self.name = f"gguf:{path}" + (f"?chat_format={chat_format}" if chat_format else "")
        try:
            with quiet_stderr():
                self._llama: Any = llama_cpp.Llama(
                    model_path=path, chat_format=chat_format, n_ctx=n_ctx, n_threads=n_threads,
                    verbose=False, seed=0,
                )  # fmt: skip
        except (ValueError, OSError, RuntimeError) as e:
            raise ModelError(f"{self.name}: cannot load model: {e}") from e
        self._locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
            weakref.WeakKeyDictionary()
        )
        self._thread_lock = threading.Lock()

    def _complete(self, kwargs: dict[str, Any]) -> tuple[ModelOutput, float]:
        with self._thread_lock:
            if self._llama is None:
                raise ModelError(f"{self.name}: model is closed")
            start = time.perf_counter()
            try:
                data = self._llama.create_chat_completion(**kwargs)
            except ValueError as e:
                if "context window" in str(e):
                    raise ModelError(
                        f"{self.name}: prompt is longer than the context window n_ctx={self.n_ctx} tokens "
                        f"({e}); shorten it or load with a larger n_ctx"
                    ) from e
                raise ModelError(f"{self.name}: {e}") from e
            latency = time.perf_counter() - start
        return parse_chat_completion(data, self.name), latency

    def _async_lock(self) -> asyncio.Lock:
        # One lock per event loop: an asyncio.Lock must not be shared between loops.
        loop = asyncio.get_running_loop()
        return self._locks.setdefault(loop, asyncio.Lock())

    async def _once(self, kwargs: dict[str, Any]) -> tuple[ModelOutput, float]:
        async with self._async_lock():
            return await asyncio.to_thread(self._complete, kwargs)

    async def generate(
        self, messages: Sequence[Message], config: GenerateConfig, tools: Sequence[ToolSpec] = ()
    ) -> ModelOutput:
        """One chat completion, run in a worker thread, one at a time per model.

        Args:
            messages: The conversation (text only).
            config: Generation settings; ``timeout_s`` in seconds bounds each try.
            tools: Must be empty.

        Returns:
            Text, llama.cpp-counted tokens, ``cost_usd`` None, ``latency_s`` in seconds.

        Raises:
            ModelError: For image parts, tools, a prompt longer than ``n_ctx`` tokens, or a
                failed generation.
        """
        if tools:
            raise ModelError(f"{self.name}: GGUF models do not support tools")
        kwargs: dict[str, Any] = {
            "messages": [_message(m) for m in messages],
            "max_tokens": config.max_tokens,
            "temperature": config.temperature,
        }
        if config.seed is not None:
            kwargs["seed"] = config.seed
        (out, latency), retries = await call_with_retries(lambda: self._once(kwargs), config, what=self.name)
        return ModelOutput(
            text=out.text,
            prompt_tokens=out.prompt_tokens,
            completion_tokens=out.completion_tokens,
            latency_s=latency,
            retries=retries,
            stop_reason=out.stop_reason,
            model=out.model,
        )

    async def aclose(self) -> None:
        """Free the model (waits for a running generation to finish)."""
        async with self._async_lock():
            await asyncio.to_thread(self._close)

    def _close(self) -> None:
        with self._thread_lock:
            llama, self._llama = self._llama, None
            if llama is not None and hasattr(llama, "close"):
                llama.close()

    def __repr__(self) -> str:
        return f"GGUFChat({self.name!r})"
