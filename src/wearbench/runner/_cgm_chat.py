"""A chat model answering HealthLoopQA items with the structured or timelined prompt (``prompts.cgm_prompt``).

One call per item (mode ``direct``) through the run store's response cache; the response text is
stored as is and read by ``wearbench score``. A model failure becomes an errored row (retried on
resume), as for WearableQA.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path

from wearbench.models import ChatModel, GenerateConfig, Message, ModelError
from wearbench.prompts import cgm_prompt
from wearbench.runner._cgm import CGMItem
from wearbench.runner._chat import CachedModel
from wearbench.runner._solvers import Answer
from wearbench.runner._store import RunStore

#: Context files a chat solver keeps parsed (a 30-day file is ~8,640 rows; keeping every file of
#: a full benchmark would hold gigabytes, and re-reading one costs tens of milliseconds).
RECENT_FILES = 16

_Table = tuple[list[str], list[dict[str, str]]]


class _RecentFiles(dict[Path, _Table]):
    """A dict that keeps only the ``size`` entries set last (thread-safe inserts)."""

    def __init__(self, size: int) -> None:
        super().__init__()
        self.size = size
        self._lock = threading.Lock()

    def __setitem__(self, key: Path, value: _Table) -> None:
        with self._lock:
            while len(self) >= self.size:
                del self[next(iter(self))]
            super().__setitem__(key, value)


class CGMChatSolver:
    """Answers HealthLoopQA items with a chat model.

    Args:
        model: The adapter.
        store: Run store for the response cache (None: no cache).
        config: Generation settings.
        context_days: Days of context shown (30, 7, 1; None: the item's whole context).
        prompt: ``structured`` or ``timelined`` (:data:`~wearbench.prompts.CGM_PROMPTS`).

    Raises:
        WearbenchError: For an unknown prompt.
    """

    needs_context = True

    def __init__(
        self,
        model: ChatModel,
        store: RunStore | None,
        config: GenerateConfig,
        context_days: int | None,
        prompt: str = "structured",
    ) -> None:
        self.messages = cgm_prompt(prompt)
        self.prompt = prompt
        self.model = CachedModel(model, store)
        self.name = model.name
        self.config = config
        self.context_days = context_days
        self._files = _RecentFiles(RECENT_FILES)

    def covers(self, item: CGMItem) -> bool:
        """Every item."""
        return True

    async def solve(self, item: CGMItem) -> Answer:
        """Answer one item; a model failure becomes an :class:`Answer` with ``error`` set."""
        started = time.perf_counter()
        messages = await asyncio.to_thread(
            self.messages, item.data, item.bench, self.context_days, files=self._files
        )
        key = self.model.key(messages, self.config)
        extra: dict[str, object] = {"context_days": self.context_days, "prompt": self.prompt}
        try:
            out = await self.model.generate(messages, self.config)
        except ModelError as e:
            extra |= {"error_type": type(e).__name__, "latency_s": time.perf_counter() - started}
            return Answer(
                "", None, key, error=str(e), transcript=_transcript(messages, item, self.prompt), extra=extra
            )
        return Answer(
            response=out.text,
            letter=None,
            prompt_hash=key,
            prompt_tokens=out.prompt_tokens,
            completion_tokens=out.completion_tokens,
            cost_usd=out.cost_usd,
            retries=out.retries,
            transcript=_transcript([*messages, Message("assistant", out.text)], item, self.prompt),
            cached=bool(out.extra.get("cached")),
            extra={**extra, "latency_s": time.perf_counter() - started},
        )

    async def aclose(self) -> None:
        """Close the model."""
        await self.model.aclose()


def _transcript(messages: list[Message], item: CGMItem, prompt: str) -> str:
    """The messages as JSON, the data part of the user message replaced by a one-line note.

    A 30-day prompt is ~400 kB; the run store keeps the question, the files it came from and
    the prompt's name and size (the prompt itself is re-rendered from the benchmark by
    ``cgm_prompt(prompt)``).
    """
    out = []
    for m in messages:
        d = m.to_dict()
        if m.role == "user" and isinstance(m.content, str):
            _, sep, question = m.content.partition("## Question")
            note = f"[{prompt} prompt from {item.data['context']['readings']}: {len(m.content)} characters]"
            d["content"] = note + ("\n\n" + sep + question if sep else "")
        out.append(d)
    return json.dumps(out, ensure_ascii=False)
