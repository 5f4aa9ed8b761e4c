"""`wearbench eval` on a HealthLoopQA benchmark: free-text answers into the same run store.

The solver is a baseline (``runner/_cgm.py``), a chat model shown the seed's structured or
timelined prompt (``runner/_cgm_chat.py``, ``prompts.cgm_prompt``) in mode ``direct``, or, in mode
``agent``, a chat model running Python in the sandbox over the item's CSV files
(``runner/_cgm_agent.py``).

The loop mirrors :func:`~wearbench.runner.run_solver` (resumable, one commit per model answer or
per 1,000 baseline answers, the same circuit breaker). A HealthLoopQA row stores the response
text; its ``letter`` is None and ``correct`` and ``parse_failed`` are False: the answer is read
and scored by ``wearbench score`` (``wearbench.scoring.score_cgm_run``), which owns the parser.
``extra`` holds ``{"kind": "healthloopqa"}``.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wearbench._errors import WearbenchError
from wearbench.agent import require_bwrap
from wearbench.cgmqa import KIND
from wearbench.models import GenerateConfig, load_model, redact
from wearbench.prompts import CGM_CONTEXT_DAYS, CGM_PROMPTS, Setting
from wearbench.runner._cgm import CGMItem, CGMSolver, cgm_baseline_solver, open_cgm_bench
from wearbench.runner._cgm_agent import CGMAgentSolver
from wearbench.runner._cgm_chat import CGMChatSolver
from wearbench.runner._recorder import _batch, _Recorder, answer_items
from wearbench.runner._records import ResultRow, RunInfo
from wearbench.runner._solvers import Answer
from wearbench.runner._store import RunStore

Progress = Callable[[int, int], None]


def cgm_baseline(spec: str, items: Sequence[CGMItem], seed: int) -> CGMSolver | None:
    """The baseline solver of a ``baseline:NAME`` spec, or None for a chat-model spec.

    Raises:
        WearbenchError: For a malformed spec or a WearableQA-only baseline.
        UnknownNameError: For an unknown baseline.
    """
    scheme, sep, rest = spec.partition(":")
    if not sep or not rest:
        raise WearbenchError(f"model spec {spec!r}: expected baseline:NAME or a chat-model spec")
    return cgm_baseline_solver(rest, items, seed=seed) if scheme == "baseline" else None


def make_cgm_solver(
    spec: str,
    items: Sequence[CGMItem],
    config: GenerateConfig,
    *,
    store: RunStore | None = None,
    context_days: int | None = None,
    api_key_env: str | None = None,
    mode: str = "direct",
    prompt: str = "structured",
) -> CGMSolver:
    """A solver for HealthLoopQA items: a baseline, or a chat model in mode ``direct`` or ``agent``.

    ``direct`` shows ``prompt`` (structured or timelined); ``agent`` gives the sandboxed Python
    tool over the item's CSV files (``runner/_cgm_agent.py``) and ignores ``prompt``.

    Raises:
        WearbenchError: For a malformed spec, a WearableQA-only baseline, an unknown prompt,
            or a model that cannot be built.
        UnknownNameError: For an unknown baseline or adapter.
    """
    solver = cgm_baseline(spec, items, config.seed or 0)
    if solver is not None:
        return solver
    model = load_model(spec, api_key_env=api_key_env)
    if mode == "agent":
        return CGMAgentSolver(model, store, config, context_days)
    return CGMChatSolver(model, store, config, context_days, prompt)


def select_cgm_items(items: Sequence[CGMItem], limit: int | None, seed: int = 0) -> list[CGMItem]:
    """All items, or ``limit`` of them in a seeded hash order; sorted by id (as for WearableQA)."""
    if limit is None or limit >= len(items):
        return sorted(items, key=lambda i: i.id)
    order = sorted(items, key=lambda i: hashlib.sha256(f"{seed}|{i.id}".encode()).hexdigest())
    return sorted(order[:limit], key=lambda i: i.id)


def cgm_run_items(info: RunInfo, items: Sequence[CGMItem]) -> list[CGMItem]:
    """The items a HealthLoopQA run covers: those its solver covers, then its ``limit`` subset.

    A chat model covers every item (no model is loaded here); a baseline is rebuilt.

    Raises:
        WearbenchError: If the run's baseline cannot be rebuilt.
    """
    seed = int(info.params.get("seed") or 0)
    baseline = cgm_baseline(info.model, items, seed)
    limit = info.params.get("limit")
    covered = [i for i in items if baseline is None or baseline.covers(i)]
    return select_cgm_items(covered, None if limit is None else int(limit), seed)


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
    return await answer_items(
        items, solver.solve, lambda item, answer, latency: _row(info, item, answer, latency), recorder,
        concurrency=concurrency, progress=progress, max_permanent_failures=max_permanent_failures,
    )  # fmt: skip


@dataclass(frozen=True)
class CGMPlan:
    """A HealthLoopQA run before it starts: the run, its items, and its baseline (None: a chat model).

    Attributes:
        info: The run.
        items: The items it covers, sorted by id.
        baseline: The baseline solver, or None when the model is a chat model.
        context_days: Days of context a chat model is shown (None: the whole context).
        prompt: The prompt a chat model is shown (``structured`` or ``timelined``).
    """

    info: RunInfo
    items: list[CGMItem]
    baseline: CGMSolver | None
    context_days: int | None = None
    prompt: str = "structured"


def plan_cgm_run(
    bench: Path,
    model: str,
    setting: Setting,
    config: GenerateConfig,
    limit: int | None,
    context_days: int | None = None,
    prompt: str = "structured",
) -> CGMPlan:
    """Open the benchmark, pick the items and name the run (no model is loaded yet).

    The run's ``params`` carry ``bench_kind: healthloopqa`` beside the generation settings, so a
    HealthLoopQA run never shares an id with a WearableQA one, and for a chat model the
    ``context_days`` and the ``prompt`` it is shown (each variant is a run of its own). A
    baseline reads no prompt: both are ignored for it.

    Raises:
        WearbenchError: On an altered benchmark, a bad spec, a mode other than ``direct`` or
            ``agent`` for a chat model, ``context_days`` not in 30/7/1, a prompt not in
            :data:`~wearbench.prompts.CGM_PROMPTS`, or a baseline covering no item.
        SandboxError: Mode ``agent`` for a chat model without a working bubblewrap (model code
            never runs unsandboxed; nothing is recorded).
    """
    if prompt not in CGM_PROMPTS:
        raise WearbenchError(f"prompt {prompt!r}: expected one of {', '.join(CGM_PROMPTS)}")
    items, digest = open_cgm_bench(bench)
    baseline = cgm_baseline(model, items, config.seed or 0)
    params: dict[str, Any] = {**config.cache_fields(), "limit": limit, "bench_kind": KIND}
    if baseline is None:
        if setting.mode not in ("direct", "agent"):
            raise WearbenchError(
                f"mode {setting.mode!r} is not built for HealthLoopQA benchmarks (direct and agent only)"
            )
        if setting.mode == "agent":
            require_bwrap()
            if prompt != "structured":
                raise WearbenchError(f"prompt {prompt!r} applies to mode direct (the agent reads CSV files)")
        if context_days is not None and context_days not in CGM_CONTEXT_DAYS:
            raise WearbenchError(f"context_days {context_days}: expected one of {CGM_CONTEXT_DAYS}")
        params["context_days"] = context_days
        if setting.mode == "direct":
            params["prompt"] = prompt
    covered = [i for i in items if baseline is None or baseline.covers(i)]
    chosen = select_cgm_items(covered, limit, seed=config.seed or 0)
    if not chosen:
        raise WearbenchError(f"{model} covers no item of {bench}")
    run_id = RunInfo.make_id(model, setting, params, digest, len(chosen))
    info = RunInfo(run_id, model, setting, params, str(bench), digest, len(chosen))
    return CGMPlan(info, chosen, baseline, context_days, prompt)


def run_cgm(
    store: RunStore,
    plan: CGMPlan,
    config: GenerateConfig,
    concurrency: int,
    progress: Progress | None,
    max_permanent_failures: int,
    api_key_env: str | None = None,
) -> tuple[int, _Recorder]:
    """Run a planned HealthLoopQA evaluation into ``store``; returns (errored rows retried, recorder).

    Raises:
        WearbenchError: If the chat model cannot be built.
        RunStopped: When the circuit breaker stopped the run.
    """
    info, items = plan.info, plan.items
    solver = plan.baseline or make_cgm_solver(
        info.model, items, config, store=store, context_days=plan.context_days, api_key_env=api_key_env,
        mode=info.setting.mode, prompt=plan.prompt,
    )  # fmt: skip
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
