"""`wearbench eval`: run a solver over a benchmark into the run store, resumably and concurrently."""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from wearbench._errors import WearbenchError
from wearbench.bench._artifact import load_context, read_items
from wearbench.models import GenerateConfig
from wearbench.questions import Item, UserContext
from wearbench.runner._records import ResultRow, RunInfo, Setting
from wearbench.runner._solvers import Answer, Sample, Solver, baseline_solver
from wearbench.runner._store import RunStore

__all__ = ["EvalSummary", "evaluate", "make_solver", "run_solver", "select_items"]

Progress = Callable[[int, int], None]


def select_items(items: Sequence[Item], limit: int | None, seed: int = 0) -> list[Item]:
    """The items a run covers: all, or ``limit`` of them in a seeded order spread over types.

    The result is sorted by item id, so a run's coverage never depends on the order of the file.
    """
    if limit is None or limit >= len(items):
        return sorted(items, key=lambda i: i.id)
    order = sorted(items, key=lambda i: hashlib.sha256(f"{seed}|{i.id}".encode()).hexdigest())
    return sorted(order[:limit], key=lambda i: i.id)


def make_solver(spec: str, items: Sequence[Item], store: RunStore | None, config: GenerateConfig) -> Solver:
    """A solver from a model spec: ``baseline:NAME`` or any chat-model spec (``openai:…`` …).

    Raises:
        WearbenchError: For a malformed spec (with the accepted forms).
        UnknownNameError: For an unknown baseline or adapter (with close matches).
    """
    scheme, sep, rest = spec.partition(":")
    if not sep or not rest:
        raise WearbenchError(
            f"model spec {spec!r}: expected baseline:NAME, openai:MODEL[@URL], anthropic:MODEL or gguf:PATH"
        )
    if scheme == "baseline":
        return baseline_solver(rest, items, seed=config.seed or 0)
    from wearbench.models import load_model
    from wearbench.runner._chat import ChatSolver

    return ChatSolver(load_model(spec), store, config)


def _row(info: RunInfo, item: Item, answer: Answer, latency_s: float) -> ResultRow:
    parse_failed = answer.error is None and answer.letter is None
    return ResultRow(
        run_id=info.run_id,
        item_id=item.id,
        user_id=item.user_id,
        model=info.model,
        setting=info.setting.key(),
        prompt_hash=answer.prompt_hash,
        response=answer.response,
        letter=answer.letter,
        correct=answer.letter == item.answer,
        parse_failed=parse_failed,
        prompt_tokens=answer.prompt_tokens,
        completion_tokens=answer.completion_tokens,
        cost_usd=answer.cost_usd,
        latency_s=round(latency_s, 6),
        retries=answer.retries,
        error=answer.error,
        transcript=answer.transcript,
        cached=answer.cached,
        extra=dict(answer.extra),
    )


class _Contexts:
    """Per-user contexts, loaded once each (the agent and prompts need the full record)."""

    def __init__(self, bench: Path) -> None:
        self.bench = bench
        self._cache: dict[str, UserContext] = {}
        self._lock = asyncio.Lock()

    async def get(self, user_id: str) -> UserContext:
        async with self._lock:
            if user_id not in self._cache:
                self._cache[user_id] = await asyncio.to_thread(load_context, self.bench, user_id)
            return self._cache[user_id]


async def run_solver(
    solver: Solver,
    items: Sequence[Item],
    info: RunInfo,
    store: RunStore,
    bench: Path,
    *,
    concurrency: int = 4,
    progress: Progress | None = None,
) -> int:
    """Answer every item of ``info`` not yet in the store; each answer is committed as it lands.

    Returns:
        How many items were answered in this call.
    """
    done = store.done(info.run_id)
    todo = [i for i in items if i.id not in done]
    contexts = _Contexts(bench)
    gate = asyncio.Semaphore(max(1, concurrency))
    finished = len(items) - len(todo)

    async def one(item: Item) -> None:
        nonlocal finished
        async with gate:
            started = time.perf_counter()
            answer = await solver.solve(Sample(item, await contexts.get(item.user_id)), info.setting)
            store.add(_row(info, item, answer, time.perf_counter() - started))
        finished += 1
        if progress:
            progress(finished, len(items))

    if progress:
        progress(finished, len(items))
    await asyncio.gather(*(one(i) for i in todo))
    return len(todo)


@dataclass(frozen=True)
class EvalSummary:
    """What :func:`evaluate` did.

    Attributes:
        info: The run.
        answered: Items answered in this call (0 when the run was already complete).
        retried: Errored rows of an earlier call that this call asked again.
        rundir: The run folder.
    """

    info: RunInfo
    answered: int
    retried: int
    rundir: Path


def evaluate(
    bench: str | Path,
    model: str,
    out: str | Path,
    *,
    setting: Setting | None = None,
    limit: int | None = None,
    concurrency: int = 4,
    config: GenerateConfig | None = None,
    progress: Progress | None = None,
) -> EvalSummary:
    """Evaluate a model (or baseline) on a benchmark into ``out/runs.sqlite``; resumes if interrupted.

    Args:
        bench: Benchmark folder.
        model: Model spec (``baseline:oracle``, ``openai:MODEL@URL``, ``anthropic:MODEL``, ``gguf:PATH``).
        out: Run folder (one SQLite store for any number of runs).
        setting: Representation, mode and ablations (default: CSV, direct).
        limit: Evaluate only this many items (a seeded, type-spread subset).
        concurrency: Most items in flight at once.
        config: Generation settings (max tokens, temperature, seed, timeout, retries).
        progress: Optional ``(done, total)`` callback.
    """
    bench = Path(bench)
    setting = setting or Setting()
    config = config or GenerateConfig()
    if setting.mode == "agent" and not model.startswith("baseline:"):
        from wearbench.agent import require_bwrap

        require_bwrap()  # refuse before anything is recorded: model code never runs unsandboxed
    items = select_items(read_items(bench), limit, seed=config.seed or 0)
    digest = hashlib.sha256((bench / "items.jsonl").read_bytes()).hexdigest()
    params = {**config.cache_fields(), "limit": limit}
    run_id = RunInfo.make_id(model, setting, params, digest, len(items))
    info = RunInfo(run_id, model, setting, params, str(bench), digest, len(items))
    with RunStore(out) as store:
        store.ensure_run(info)
        retried = store.drop_errors(info.run_id)
        solver = make_solver(model, items, store, config)

        async def go() -> int:
            try:
                return await run_solver(
                    solver, items, info, store, bench, concurrency=concurrency, progress=progress
                )
            finally:
                await solver.aclose()

        answered = asyncio.run(go())
    return EvalSummary(info, answered, retried, Path(out))
