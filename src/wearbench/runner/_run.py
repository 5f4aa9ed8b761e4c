"""`wearbench eval`: run a solver over a benchmark into the run store, resumably and concurrently."""

from __future__ import annotations

import asyncio
import gc
import hashlib
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from wearbench._errors import WearbenchError
from wearbench.agent import require_bwrap
from wearbench.bench import load_context, preload_types, user_chunks
from wearbench.cgmqa import KIND, is_cgm_benchmark
from wearbench.executors import Executor, LocalExecutor
from wearbench.models import GenerateConfig, load_model, redact
from wearbench.prompts import Setting
from wearbench.questions import Item, UserContext
from wearbench.runner._bench import open_bench
from wearbench.runner._cgm_run import plan_cgm_run, run_cgm
from wearbench.runner._chat import ChatSolver
from wearbench.runner._recorder import (
    MAX_PERMANENT_FAILURES,
    _batch,
    _Recorder,
    _remove_store,
    answer_items,
)
from wearbench.runner._records import ResultRow, RunInfo
from wearbench.runner._solvers import Answer, ChunkTask, Sample, Solver, baseline_solver, spec_forms
from wearbench.runner._store import STORE_NAME, RunStore

_log = logging.getLogger(__name__)

Progress = Callable[[int, int], None]

#: A chunked baseline's executor task function: a chunk of items → ``(answer, seconds)`` each.
ChunkFn = Callable[[ChunkTask], list[tuple[Answer, float]]]


def select_items(items: Sequence[Item], limit: int | None, seed: int = 0) -> list[Item]:
    """The items a run covers: all, or ``limit`` of them in a seeded order spread over types.

    The result is sorted by item id, so a run's coverage never depends on the order of the file.
    """
    if limit is None or limit >= len(items):
        return sorted(items, key=lambda i: i.id)
    order = sorted(items, key=lambda i: hashlib.sha256(f"{seed}|{i.id}".encode()).hexdigest())
    return sorted(order[:limit], key=lambda i: i.id)


def make_solver(
    spec: str,
    items: Sequence[Item],
    store: RunStore | None,
    config: GenerateConfig,
    *,
    api_key_env: str | None = None,
) -> Solver:
    """A solver from a model spec in one of the forms of :func:`~wearbench.runner.spec_forms`.

    Raises:
        WearbenchError: For a malformed spec (with the accepted forms, from the registry).
        UnknownNameError: For an unknown baseline or adapter (with close matches).
    """
    scheme, sep, rest = spec.partition(":")
    if not sep or not rest:
        raise WearbenchError(f"model spec {spec!r}: expected one of {', '.join(spec_forms())}")
    if scheme == "baseline":
        return baseline_solver(rest, items, seed=config.seed or 0)
    return ChatSolver(load_model(spec, api_key_env=api_key_env), store, config)


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
        error=None if answer.error is None else redact(answer.error),
        transcript=answer.transcript,
        cached=answer.cached,
        extra=dict(answer.extra),
    )


class _Contexts:
    """Per-user contexts, loaded once each (the agent and prompts need the full record).

    A solver whose ``needs_context`` is False (the table baselines) gets an empty context and
    nothing is read.
    """

    def __init__(self, bench: Path, needed: bool = True) -> None:
        self.bench = bench
        self.needed = needed
        self._cache: dict[str, UserContext] = {}
        self._lock = asyncio.Lock()

    async def get(self, user_id: str) -> UserContext:
        if not self.needed:
            return UserContext(user_id, np.empty(0, dtype="datetime64[D]"), {}, {}, (), {})
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
    max_permanent_failures: int = MAX_PERMANENT_FAILURES,
    recorder: _Recorder | None = None,
) -> int:
    """Answer every item of ``info`` not yet in the store; each answer is committed as it lands.

    The run is recorded in the store with its first answer. After ``max_permanent_failures``
    permanent failures in a row no new item is started.

    Returns:
        How many items were answered in this call.

    Raises:
        RunStopped: When the circuit breaker tripped (one line: the count and the last error).
    """
    contexts = _Contexts(bench, needed=getattr(solver, "needs_context", True))

    async def ask(item: Item) -> Answer:
        return await solver.solve(Sample(item, await contexts.get(item.user_id)), info.setting)

    return await answer_items(
        items, ask, lambda item, answer, latency: _row(info, item, answer, latency),
        recorder or _Recorder(store, info, batch=_batch(solver)),
        concurrency=concurrency, progress=progress, max_permanent_failures=max_permanent_failures,
    )  # fmt: skip


@dataclass(frozen=True)
class EvalSummary:
    """What :func:`evaluate` did.

    Attributes:
        info: The run.
        answered: Items answered in this call (0 when the run was already complete).
        retried: Errored rows of an earlier call that this call asked again.
        rundir: The run folder.
        items: The items the run covers (parsed once; scoring reuses them).
        errored: Items of the run still without an answer (error) at the end.
        recorded: Whether the run is in the store (False when no answer ever landed).
        first_error: One stored or held error message, if any.
        kind: ``wearableqa``, or ``healthloopqa`` for a CGM benchmark (``items`` is then empty;
            score it with ``wearbench.scoring.score_cgm_store``).
    """

    info: RunInfo
    answered: int
    retried: int
    rundir: Path
    items: tuple[Item, ...] = ()
    errored: int = 0
    recorded: bool = True
    first_error: str | None = None
    kind: str = "wearableqa"


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
    api_key_env: str | None = None,
    max_permanent_failures: int = MAX_PERMANENT_FAILURES,
    context_days: int | None = None,
    prompt: str = "structured",
    executor: Executor | None = None,
) -> EvalSummary:
    """Evaluate a model (or baseline) on a benchmark into ``out/runs.sqlite``; resumes if interrupted.

    The run is recorded with its first answer: a start that fails (missing SDK or key, closed
    port, every call failing) leaves no run, and no store file it created.

    A HealthLoopQA benchmark (manifest ``kind`` ``healthloopqa``) is run by the CGM path
    (``runner/_cgm_run.py``): baselines, a chat model shown the structured or timelined prompt
    (mode ``direct``), or a chat model running sandboxed Python over the item's CSV files (mode
    ``agent``; refused, before anything is recorded, without bubblewrap); free-text answers,
    read and scored by ``wearbench score``.

    Args:
        bench: Benchmark folder; its files must match the hashes in its ``manifest.json``.
        model: Model spec in a form of :func:`~wearbench.runner.spec_forms` (``baseline:oracle``, …).
        out: Run folder (one SQLite store for any number of runs).
        setting: Representation, mode and ablations (default: CSV, direct).
        limit: Evaluate only this many items (a seeded, type-spread subset).
        concurrency: Most items in flight at once.
        config: Generation settings (max tokens, temperature, seed, timeout, retries).
        progress: Optional ``(done, total)`` callback.
        api_key_env: Environment variable holding the key for the model's URL.
        max_permanent_failures: Permanent failures in a row that stop the run (0: never stop).
        context_days: HealthLoopQA only: days of context a chat model is shown, in the prompt or
            in the agent's files (30, 7 or 1; default the item's whole context).
        prompt: HealthLoopQA only: ``structured`` (default) or ``timelined``
            (:data:`~wearbench.prompts.CGM_PROMPTS`); mode ``direct`` only.
        executor: WearableQA baselines only. ``baseline:oracle`` replays the items' graphs in
            user-grouped chunks of 64 on it (rows written as each chunk lands, in task order;
            the same rows on every executor except ``latency_s`` and ``created``). The table
            baselines (``random``, ``majority-position``, ``text-only``, ``prior``) compute
            their answers up front in this process and leave it unused (a warning on the
            ``wearbench.runner`` logger says so). A chat model, or a
            HealthLoopQA benchmark, accepts only None or a serial executor.

    Raises:
        WearbenchError: If the benchmark's files do not match its manifest, or the model
            cannot be built.
        RunStopped: When the circuit breaker stopped the run.
    """
    bench = Path(bench)
    setting = setting or Setting()
    config = config or GenerateConfig()
    if is_cgm_benchmark(bench):
        _check_executor(model, executor, cgm=True)
        return _evaluate_cgm(bench, model, out, setting, config, limit, concurrency, progress,
                             max_permanent_failures, api_key_env, context_days, prompt)  # fmt: skip
    if context_days is not None:
        raise WearbenchError("context_days applies to HealthLoopQA (CGM) benchmarks only")
    if prompt != "structured":
        raise WearbenchError(
            f"prompt {prompt!r} applies to HealthLoopQA (CGM) benchmarks only; WearableQA prompts: --repr"
        )
    _check_executor(model, executor)
    if setting.mode == "agent" and not model.startswith("baseline:"):
        require_bwrap()  # refuse before anything is recorded: model code never runs unsandboxed
    opened = open_bench(bench)
    items = select_items(opened.items, limit, seed=config.seed or 0)
    params = {**config.cache_fields(), "limit": limit}
    run_id = RunInfo.make_id(model, setting, params, opened.digest, len(items))
    info = RunInfo(run_id, model, setting, params, str(bench), opened.digest, len(items))
    new_dir, fresh = not Path(out).exists(), not (Path(out) / STORE_NAME).exists()
    empty = False
    gc.freeze()  # the items live through the call: keep the collector from rescanning them
    try:
        with RunStore(out) as store:
            try:
                solver = make_solver(model, items, store, config, api_key_env=api_key_env)
                chunk_fn: ChunkFn | None = getattr(solver, "answer_chunk", None)
                if executor is not None and chunk_fn is not None:
                    retried, recorder = _run_chunked(chunk_fn, items, info, store, bench, executor,
                                                     progress)  # fmt: skip
                else:
                    if executor is not None and not _is_serial(executor):
                        _log.warning("%s computes its answers in this process; executor %r is not used",
                                     model, executor)  # fmt: skip
                    retried, recorder = _run_all(solver, items, info, store, bench, concurrency, progress,
                                                 max_permanent_failures)  # fmt: skip
                errored = len(recorder.held) or store.errored(info.run_id)
            finally:
                empty = not store.runs()
    finally:
        gc.unfreeze()
        if fresh and empty:
            _remove_store(Path(out), new_dir)
    return EvalSummary(
        info,
        recorder.answered,
        retried,
        Path(out),
        tuple(items),
        errored,
        recorder.recorded,
        recorder.first_error,
    )


def _evaluate_cgm(
    bench: Path,
    model: str,
    out: str | Path,
    setting: Setting,
    config: GenerateConfig,
    limit: int | None,
    concurrency: int,
    progress: Progress | None,
    max_permanent_failures: int,
    api_key_env: str | None,
    context_days: int | None,
    prompt: str,
) -> EvalSummary:
    plan = plan_cgm_run(bench, model, setting, config, limit, context_days, prompt)
    info = plan.info
    new_dir, fresh = not Path(out).exists(), not (Path(out) / STORE_NAME).exists()
    empty = False
    try:
        with RunStore(out) as store:
            try:
                retried, recorder = run_cgm(store, plan, config, concurrency, progress,
                                            max_permanent_failures, api_key_env)  # fmt: skip
                errored = len(recorder.held) or store.errored(info.run_id)
            finally:
                empty = not store.runs()
    finally:
        if fresh and empty:
            _remove_store(Path(out), new_dir)
    return EvalSummary(
        info, recorder.answered, retried, Path(out), (), errored, recorder.recorded,
        recorder.first_error, KIND,
    )  # fmt: skip


def _run_all(
    solver: Solver,
    items: Sequence[Item],
    info: RunInfo,
    store: RunStore,
    bench: Path,
    concurrency: int,
    progress: Progress | None,
    max_permanent_failures: int,
) -> tuple[int, _Recorder]:
    retried = store.drop_errors(info.run_id)
    recorder = _Recorder(store, info, batch=_batch(solver))

    async def go() -> int:
        try:
            return await run_solver(
                solver, items, info, store, bench, concurrency=concurrency, progress=progress,
                max_permanent_failures=max_permanent_failures, recorder=recorder,
            )  # fmt: skip
        finally:
            await solver.aclose()

    asyncio.run(go())
    return retried, recorder


def _is_serial(executor: Executor) -> bool:
    return isinstance(executor, LocalExecutor) and executor.workers == 1


def _check_executor(model: str, executor: Executor | None, cgm: bool = False) -> None:
    """Refuse an executor other than serial where nothing would run on it (chat models, CGM runs).

    Raises:
        WearbenchError: Naming what the executor applies to.
    """
    if executor is None or _is_serial(executor):
        return
    if cgm:
        raise WearbenchError(f"executor {executor!r}: HealthLoopQA (CGM) runs take no executor; use serial")
    if not model.startswith("baseline:"):
        raise WearbenchError(
            f"executor {executor!r}: applies to WearableQA baselines only; a chat model's calls run "
            "in this process, --concurrency at a time"
        )


def _run_chunked(
    chunk_fn: ChunkFn,
    items: Sequence[Item],
    info: RunInfo,
    store: RunStore,
    bench: Path,
    executor: Executor,
    progress: Progress | None,
) -> tuple[int, _Recorder]:
    """Answer the items not yet stored in user-grouped chunks on ``executor``; record them as chunks land.

    Rows are written in task order (deterministic: the chunks depend only on the items left),
    1,000 to a commit (a baseline's answers cost nothing to recompute after a kill).
    """
    retried = store.drop_errors(info.run_id)
    recorder = _Recorder(store, info, batch=1000)
    done = store.done(info.run_id)
    todo = [i for i in items if i.id not in done]
    chunks = user_chunks([i.user_id for i in todo])
    tasks = ((str(bench), tuple(todo[n] for n in chunk)) for chunk in chunks)
    preload_types()
    finished = len(items) - len(todo)
    if progress:
        progress(finished, len(items))
    try:
        for chunk, answers in zip(chunks, executor.map(chunk_fn, tasks), strict=True):
            for n, (answer, seconds) in zip(chunk, answers, strict=True):
                recorder.add(_row(info, todo[n], answer, seconds))
            finished += len(chunk)
            if progress:
                progress(finished, len(items))
    finally:
        recorder.flush()
    return retried, recorder
