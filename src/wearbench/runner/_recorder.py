"""Bookkeeping shared by the evaluation loops: the recorder, the circuit breaker, store cleanup."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Protocol, TypeVar

from wearbench._errors import WearbenchError
from wearbench.models import redact
from wearbench.runner._records import ResultRow, RunInfo
from wearbench.runner._solvers import Answer
from wearbench.runner._store import STORE_NAME, RunStore

#: Consecutive permanent failures (HTTP 401/403/404, connection refused) that stop a run.
MAX_PERMANENT_FAILURES = 5


class RunStopped(WearbenchError):
    """The circuit breaker stopped a run: the same permanent failure kept coming back."""


class _Recorder:
    """Writes rows, recording the run itself only with its first answer (no phantom runs).

    Errored rows that come before any answer are held back; they are written with the run
    when an answer lands, and dropped with it when none does. Rows are committed one by one
    (``batch`` 1, model calls: a kill loses at most the calls in flight) or in batches (free
    baselines, whose answers cost nothing to recompute).
    """

    def __init__(self, store: RunStore, info: RunInfo, batch: int = 1) -> None:
        self.store, self.info, self.batch = store, info, max(1, batch)
        self.recorded = any(r.run_id == info.run_id for r in store.runs())
        self.pending: list[ResultRow] = []
        self.answered = 0
        self.first_error: str | None = None

    @property
    def held(self) -> list[ResultRow]:
        """Errored rows not written because no answer has landed yet."""
        return [] if self.recorded else self.pending

    def add(self, row: ResultRow) -> None:
        self.answered += row.error is None
        if self.first_error is None and row.error is not None:
            self.first_error = row.error
        self.pending.append(row)
        if len(self.pending) >= self.batch:
            self.flush()

    def flush(self) -> None:
        """Write what is pending (held errors stay held until an answer comes with them)."""
        if not self.pending or not (self.recorded or any(r.error is None for r in self.pending)):
            return
        self.store.add_many(self.pending, run=None if self.recorded else self.info)
        self.recorded = True
        self.pending.clear()


def _batch(solver: object) -> int:
    """Rows per commit: 1 for solvers that call a model, 1,000 for free table baselines."""
    return 1 if getattr(solver, "needs_context", True) else 1000


class _Breaker:
    """Counts permanent failures in a row; trips at ``limit`` (0 or less: never)."""

    def __init__(self, limit: int) -> None:
        self.limit, self.streak, self.last = limit, 0, ""

    @property
    def tripped(self) -> bool:
        return 0 < self.limit <= self.streak

    def see(self, answer: Answer) -> None:
        if answer.error is None:
            self.streak = 0
        elif answer.extra.get("error_type") == "PermanentModelError":
            self.streak += 1
            self.last = redact(answer.error)


def _remove_store(out: Path, new_dir: bool) -> None:
    """Delete a store this call created and never recorded a run in (and ``out`` if it made it)."""
    for suffix in ("", "-wal", "-shm"):
        (out / f"{STORE_NAME}{suffix}").unlink(missing_ok=True)
    if new_dir:
        with contextlib.suppress(OSError):  # something else was written there meanwhile
            out.rmdir()


class _HasId(Protocol):
    @property
    def id(self) -> str: ...


T = TypeVar("T", bound=_HasId)


async def answer_items(
    items: Sequence[T],
    ask: Callable[[T], Awaitable[Answer]],
    row: Callable[[T, Answer, float], ResultRow],
    recorder: _Recorder,
    *,
    concurrency: int,
    progress: Callable[[int, int], None] | None,
    max_permanent_failures: int,
) -> int:
    """Ask every item not yet in the store, ``concurrency`` at a time; each row is recorded as it lands.

    Shared by the WearableQA and HealthLoopQA runs: ``ask`` answers one item, ``row`` turns the
    answer and its latency (s) into the stored row. After ``max_permanent_failures`` permanent
    failures in a row no new item is started.

    Returns:
        How many items were asked in this call.

    Raises:
        RunStopped: When the circuit breaker tripped (one line: the count and the last error).
    """
    done = recorder.store.done(recorder.info.run_id)
    todo = [i for i in items if i.id not in done]
    gate = asyncio.Semaphore(max(1, concurrency))
    breaker = _Breaker(max_permanent_failures)
    finished = len(items) - len(todo)

    async def one(item: T) -> None:
        nonlocal finished
        async with gate:
            if breaker.tripped:
                return
            started = time.perf_counter()
            answer = await ask(item)
            recorder.add(row(item, answer, time.perf_counter() - started))
            breaker.see(answer)
        finished += 1
        if progress:
            progress(finished, len(items))

    if progress:
        progress(finished, len(items))
    try:
        await asyncio.gather(*(one(i) for i in todo))
    finally:
        recorder.flush()
    if breaker.tripped:
        raise RunStopped(
            f"eval stopped: {breaker.streak} permanent failures in a row (limit {breaker.limit}); "
            f"last: {breaker.last}"
        )
    return len(todo)
