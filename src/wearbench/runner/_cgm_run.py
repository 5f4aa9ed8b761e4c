"""`wearbench eval` on a HealthLoopQA benchmark: free-text answers into the same run store.

The loop mirrors :func:`~wearbench.runner.run_solver` (resumable, one commit per model answer or
per 1,000 baseline answers, the same circuit breaker). A HealthLoopQA row stores the response
text; its ``letter`` is None and ``correct`` and ``parse_failed`` are False: the answer is read
and scored by ``wearbench score`` (``wearbench.scoring.score_cgm_run``), which owns the parser.
``extra`` holds ``{"kind": "healthloopqa"}``.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from wearbench._errors import WearbenchError
from wearbench.cgmqa import KIND
from wearbench.models import GenerateConfig, redact
from wearbench.prompts import Setting
from wearbench.runner._cgm import CGMItem, CGMSolver, cgm_baseline_solver, open_cgm_bench
from wearbench.runner._recorder import RunStopped, _batch, _Breaker, _Recorder
from wearbench.runner._records import ResultRow, RunInfo
from wearbench.runner._solvers import Answer
from wearbench.runner._store import RunStore

Progress = Callable[[int, int], None]


def make_cgm_solver(spec: str, items: Sequence[CGMItem], config: GenerateConfig) -> CGMSolver:
    """A solver for HealthLoopQA items from a model spec (``baseline:NAME`` so far).

    Raises:
        WearbenchError: For a malformed spec, a WearableQA-only baseline, or a chat model
            (HealthLoopQA prompts are not built yet).
        UnknownNameError: For an unknown baseline.
    """
    scheme, sep, rest = spec.partition(":")
    if scheme == "baseline" and sep and rest:
        return cgm_baseline_solver(rest, items, seed=config.seed or 0)
    raise WearbenchError(
        f"model spec {spec!r}: a HealthLoopQA benchmark is answered by baselines only so far "
        "(baseline:oracle, baseline:naive-…); chat-model prompts for CGM items are not built yet"
    )


def select_cgm_items(items: Sequence[CGMItem], limit: int | None, seed: int = 0) -> list[CGMItem]:
    """All items, or ``limit`` of them in a seeded hash order; sorted by id (as for WearableQA)."""
    if limit is None or limit >= len(items):
        return sorted(items, key=lambda i: i.id)
    order = sorted(items, key=lambda i: hashlib.sha256(f"{seed}|{i.id}".encode()).hexdigest())
    return sorted(order[:limit], key=lambda i: i.id)


def cgm_run_items(info: RunInfo, items: Sequence[CGMItem]) -> list[CGMItem]:
    """The items a HealthLoopQA run covers: those its solver covers, then its ``limit`` subset.

    Raises:
        WearbenchError: If the run's model cannot be rebuilt (see :func:`make_cgm_solver`).
    """
    seed = int(info.params.get("seed") or 0)
    solver = make_cgm_solver(info.model, items, GenerateConfig(seed=seed))
    limit = info.params.get("limit")
    return select_cgm_items(
        [i for i in items if solver.covers(i)], None if limit is None else int(limit), seed
    )


def _row(info: RunInfo, item: CGMItem, answer: Answer, latency_s: float) -> ResultRow:
    return ResultRow(
        run_id=info.run_id,
        item_id=item.id,
        user_id=item.user_id,
        model=info.model,
        setting=info.setting.key(),
        prompt_hash=answer.prompt_hash,
        response=answer.response,
        letter=None,
        correct=False,
        parse_failed=False,
        prompt_tokens=answer.prompt_tokens,
        completion_tokens=answer.completion_tokens,
        cost_usd=answer.cost_usd,
        latency_s=round(latency_s, 6),
        retries=answer.retries,
        error=None if answer.error is None else redact(answer.error),
        transcript=answer.transcript,
        cached=answer.cached,
        extra={**answer.extra, "kind": KIND},
    )


async def run_cgm_solver(
    solver: CGMSolver,
    items: Sequence[CGMItem],
    info: RunInfo,
    recorder: _Recorder,
    *,
    concurrency: int = 4,
    progress: Progress | None = None,
    max_permanent_failures: int = 5,
) -> int:
    """Answer every item of the run not yet in the store; returns how many were asked.

    Raises:
        RunStopped: When the circuit breaker tripped.
    """
    done = recorder.store.done(info.run_id)
    todo = [i for i in items if i.id not in done]
    gate = asyncio.Semaphore(max(1, concurrency))
    breaker = _Breaker(max_permanent_failures)
    finished = len(items) - len(todo)

    async def one(item: CGMItem) -> None:
        nonlocal finished
        async with gate:
            if breaker.tripped:
                return
            started = time.perf_counter()
            answer = await solver.solve(item)
            recorder.add(_row(info, item, answer, time.perf_counter() - started))
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


def plan_cgm_run(
    bench: Path, model: str, setting: Setting, config: GenerateConfig, limit: int | None
) -> tuple[RunInfo, CGMSolver, list[CGMItem]]:
    """Open the benchmark, build the solver, pick the items and name the run.

    The run's ``params`` carry ``bench_kind: healthloopqa`` beside the generation settings, so a
    HealthLoopQA run never shares an id with a WearableQA one.
    """
    items, digest = open_cgm_bench(bench)
    solver = make_cgm_solver(model, items, config)
    chosen = select_cgm_items([i for i in items if solver.covers(i)], limit, seed=config.seed or 0)
    if not chosen:
        raise WearbenchError(f"{solver.name} covers no item of {bench}")
    params: dict[str, Any] = {**config.cache_fields(), "limit": limit, "bench_kind": KIND}
    run_id = RunInfo.make_id(model, setting, params, digest, len(chosen))
    return RunInfo(run_id, model, setting, params, str(bench), digest, len(chosen)), solver, chosen


def run_cgm(
    store: RunStore,
    plan: tuple[RunInfo, CGMSolver, list[CGMItem]],
    concurrency: int,
    progress: Progress | None,
    max_permanent_failures: int,
) -> tuple[int, _Recorder]:
    """Run a planned HealthLoopQA evaluation into ``store``; returns (errored rows retried, recorder)."""
    info, solver, items = plan
    retried = store.drop_errors(info.run_id)
    recorder = _Recorder(store, info, batch=_batch(solver))

    async def go() -> int:
        try:
            return await run_cgm_solver(
                solver, items, info, recorder, concurrency=concurrency, progress=progress,
                max_permanent_failures=max_permanent_failures,
            )  # fmt: skip
        finally:
            await solver.aclose()

    asyncio.run(go())
    return retried, recorder
