"""`wearbench cgm judge`: an LLM judge grading the stored answers of HealthLoopQA runs.

For each answered row of a HealthLoopQA run the judge model is shown the item's question, its
answer instruction, the true answer and the model's response (never the CGM data: the prompt
stays a few hundred tokens). It replies with one JSON object: three 1-5 grades (instruction
following, reasoning quality, format compliance), the failure types of the seed that apply
(reluctance to calculate, temporal misalignment, unsupported assumption, guessing over
uncertainty, formatting, other) and a one-line rationale. ``docs/cgm-judge.md`` has the rubric.

The item's 0-100 score is not in the prompt: the runner sits below ``scoring`` (which owns the
answer parser and the metrics) and must not import it, and the judge grades how the answer was
reached and written, with the true answer beside it to tell right from wrong.

A reply that is not a valid judgement (no JSON object, a grade outside 1-5 or not a whole
number, an unknown failure type, a missing field) is stored raw with ``parse_failed`` set and
its reason; nothing is clamped or guessed. A model failure is stored with ``error`` set and
retried on the next call; judged rows are skipped, so a second call judges nothing new.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wearbench._errors import WearbenchError
from wearbench.cgmqa import KIND
from wearbench.models import (
    ChatModel,
    GenerateConfig,
    ModelError,
    PermanentModelError,
    load_model,
    redact,
)
from wearbench.runner._cgm import CGMItem, open_cgm_bench
from wearbench.runner._cgm_judge_prompt import (
    FAILURE_TYPES,
    JUDGE_PROMPT_VERSION,
    JUDGE_SCORES,
    MAX_RESPONSE_CHARS,
    judge_messages,
    parse_judgement,
)
from wearbench.runner._chat import CachedModel
from wearbench.runner._recorder import MAX_PERMANENT_FAILURES, RunStopped
from wearbench.runner._records import Judgement, ResultRow, RunInfo
from wearbench.runner._store import STORE_NAME, RunStore


def is_cgm_run(info: RunInfo) -> bool:
    """Whether a run was made on a HealthLoopQA benchmark (its params carry ``bench_kind``)."""
    return info.params.get("bench_kind") == KIND


@dataclass(frozen=True)
class _Task:
    run: RunInfo
    item: CGMItem
    row: ResultRow

    @property
    def id(self) -> str:
        return self.item.id


def _hash_order(rows: Sequence[ResultRow], limit: int | None) -> list[ResultRow]:
    """All rows, or ``limit`` of them in a fixed hash order (spread over templates); by item id."""
    if limit is None or limit >= len(rows):
        return list(rows)
    order = sorted(rows, key=lambda r: hashlib.sha256(f"judge|{r.item_id}".encode()).hexdigest())
    return sorted(order[:limit], key=lambda r: r.item_id)


def _runs_to_judge(store: RunStore, run_id: str | None) -> tuple[list[RunInfo], list[str]]:
    """The HealthLoopQA runs to judge and the ids of the WearableQA runs left aside.

    Raises:
        WearbenchError: If ``run_id`` names a WearableQA run, matches no run, or the store holds
            no HealthLoopQA run.
    """
    if run_id is not None:
        info = store.run(run_id)
        if not is_cgm_run(info):
            raise WearbenchError(
                f"run {info.run_id} is a WearableQA run: `cgm judge` grades HealthLoopQA runs only"
            )
        return [info], []
    runs = store.runs()
    cgm = [r for r in runs if is_cgm_run(r)]
    if not cgm:
        raise WearbenchError(
            f"{store.path}: no HealthLoopQA run to judge ({len(runs)} WearableQA run(s)); "
            "`cgm judge` grades HealthLoopQA runs only"
        )
    return cgm, [r.run_id for r in runs if not is_cgm_run(r)]


def _tasks(store: RunStore, info: RunInfo, bench: Path | None, limit: int | None) -> list[_Task]:
    """The run's answered rows (``limit`` of them, hash order) with their items.

    Raises:
        WearbenchError: If the benchmark is missing, altered, or lacks an answered item.
    """
    path = Path(info.bench) if bench is None else Path(bench)
    if not (path / "items.jsonl").is_file():
        raise WearbenchError(
            f"run {info.run_id}: benchmark {path} not found (pass --bench with where it is now)"
        )
    items, digest = open_cgm_bench(path)
    if digest != info.bench_hash:
        raise WearbenchError(
            f"run {info.run_id}: {path / 'items.jsonl'} is not the benchmark the run answered (hash differs)"
        )
    by_id = {i.id: i for i in items}
    rows = _hash_order([r for r in store.rows(info.run_id) if r.error is None], limit)
    missing = [r.item_id for r in rows if r.item_id not in by_id]
    if missing:
        raise WearbenchError(f"run {info.run_id}: item {missing[0]} is not in {path / 'items.jsonl'}")
    return [_Task(info, by_id[r.item_id], r) for r in rows]


class _Judge:
    """Asks the judge model about one answer, through the run store's response cache."""

    def __init__(self, model: ChatModel, store: RunStore, config: GenerateConfig, max_chars: int) -> None:
        self.model = CachedModel(model, store)
        self.name = model.name
        self.config = config
        self.max_chars = max_chars

    async def judge(self, task: _Task) -> tuple[Judgement, bool]:
        """The judgement of one answer, and whether the call failed permanently."""
        messages = judge_messages(task.item, task.row.response, self.max_chars)
        started = time.perf_counter()
        key: dict[str, Any] = {
            "run_id": task.run.run_id, "item_id": task.item.id, "user_id": task.item.user_id,
            "judge": self.name, "prompt_version": JUDGE_PROMPT_VERSION,
            "prompt_hash": self.model.key(messages, self.config),
        }  # fmt: skip
        none: dict[str, Any] = dict.fromkeys(JUDGE_SCORES)
        try:
            out = await self.model.generate(messages, self.config)
        except ModelError as e:
            failed = Judgement(
                **key, **none, failure_types=(), rationale="", parse_failed=False, parse_error=None,
                response="", error=redact(str(e)), latency_s=round(time.perf_counter() - started, 6),
            )  # fmt: skip
            return failed, isinstance(e, PermanentModelError)
        parsed = parse_judgement(out.text)
        judgement = Judgement(
            **key, **(parsed.scores or none), failure_types=parsed.failure_types,
            rationale=parsed.rationale, parse_failed=parsed.scores is None, parse_error=parsed.error,
            response=out.text, prompt_tokens=out.prompt_tokens, completion_tokens=out.completion_tokens,
            cost_usd=out.cost_usd, latency_s=round(time.perf_counter() - started, 6),
            cached=bool(out.extra.get("cached")),
        )  # fmt: skip
        return judgement, False


async def _judge_all(
    judge: _Judge,
    tasks: Sequence[_Task],
    store: RunStore,
    concurrency: int,
    progress: Callable[[int, int], None] | None,
    max_permanent_failures: int,
) -> None:
    """Judge every task, ``concurrency`` at a time, committing each judgement as it lands.

    Raises:
        RunStopped: After ``max_permanent_failures`` permanent failures in a row (0: never).
    """
    gate = asyncio.Semaphore(max(1, concurrency))
    streak, last, finished = 0, "", 0

    def tripped() -> bool:
        return 0 < max_permanent_failures <= streak

    async def one(task: _Task) -> None:
        nonlocal streak, last, finished
        async with gate:
            if tripped():
                return
            judgement, permanent = await judge.judge(task)
            store.add_judgement(judgement)
            streak = 0 if judgement.error is None else streak + permanent
            last = judgement.error or last
        finished += 1
        if progress:
            progress(finished, len(tasks))

    if progress:
        progress(0, len(tasks))
    await asyncio.gather(*(one(t) for t in tasks))
    if tripped():
        raise RunStopped(
            f"cgm judge stopped: {streak} permanent failures in a row "
            f"(limit {max_permanent_failures}); last: {last}"
        )


@dataclass(frozen=True)
class JudgeOutcome:
    """What :func:`judge_cgm_runs` did.

    Attributes:
        judge: Canonical spec of the judge model.
        judged: Answers sent to the judge in this call (0 when every one was already judged).
        retried: Errored judgements of an earlier call asked again.
        errored: Judgements still errored at the end (run the command again to retry them).
        skipped_runs: WearableQA runs of the store that were left aside.
        summaries: :func:`judge_summary` of each judged run, for this judge only.
    """

    judge: str
    judged: int
    retried: int
    errored: int
    skipped_runs: tuple[str, ...] = ()
    summaries: tuple[dict[str, Any], ...] = field(default_factory=tuple)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"judge": self.judge, "prompt_version": JUDGE_PROMPT_VERSION, "judged": self.judged,
                "retried": self.retried, "errored": self.errored,
                "skipped_runs": list(self.skipped_runs), "runs": list(self.summaries)}  # fmt: skip

    def to_text(self) -> str:
        """A few lines per run: counts, mean grades and failure-type counts."""
        lines = [f"{self.judge} ({JUDGE_PROMPT_VERSION}): {self.judged} answer(s) judged now"
                 + (f", {self.retried} errored judgement(s) retried" if self.retried else "")]  # fmt: skip
        lines += [
            f"left out WearableQA run {r} (`cgm judge` grades HealthLoopQA runs only)"
            for r in self.skipped_runs
        ]
        for summary in self.summaries:
            for group in summary["judges"]:
                lines += _group_lines(summary, group)
        return "\n".join(lines)


def _group_lines(summary: dict[str, Any], group: dict[str, Any]) -> list[str]:
    means = group["means"]
    grades = ", ".join(
        f"{k.replace('_', ' ')} {'-' if means[k] is None else f'{means[k]:.2f}'}" for k in JUDGE_SCORES
    )
    failures = ", ".join(f"{t} {n}" for t, n in group["failure_types"].items() if n) or "-"
    return [
        f"{summary['run_id']} ({summary['model']}): {group['n']} judged, {group['parse_failures']} "
        f"parse failure(s), {group['errors']} error(s), {group['patients']} patient(s)",
        f"  mean grade (1-5) over {group['parsed']} parsed: {grades}",
        f"  failure types: {failures}; none named: {group['no_failure']}",
    ]


def judge_cgm_runs(
    rundir: str | Path,
    model: str | ChatModel,
    *,
    run_id: str | None = None,
    limit: int | None = None,
    concurrency: int = 4,
    config: GenerateConfig | None = None,
    progress: Callable[[int, int], None] | None = None,
    api_key_env: str | None = None,
    bench: str | Path | None = None,
    max_permanent_failures: int = MAX_PERMANENT_FAILURES,
    max_response_chars: int = MAX_RESPONSE_CHARS,
) -> JudgeOutcome:
    """Grade the answers of the HealthLoopQA runs in ``rundir/runs.sqlite`` with an LLM judge.

    Each answered row (errored rows have no answer) is judged once per judge spec and prompt
    version; a second call judges only what is missing or errored. Judgements go to the
    store's ``judgements`` table, beside the answers.

    Args:
        rundir: Run folder holding ``runs.sqlite``.
        model: Judge model spec (any chat-model form of ``wearbench list adapter``), or an adapter.
        run_id: Judge only this run (id or unique prefix); default every HealthLoopQA run.
        limit: Judge at most this many answers per run (a fixed hash order, spread over templates).
        concurrency: Most judge calls in flight at once.
        config: Generation settings (default: greedy, 512 tokens).
        progress: Optional ``(done, total)`` callback over every answer to judge.
        api_key_env: Environment variable holding the key for the judge's URL.
        bench: Where the runs' benchmark is now, if it moved since the runs (its hash must match).
        max_permanent_failures: Permanent failures in a row that stop judging (0: never stop).
        max_response_chars: Most characters of a response shown to the judge.

    Raises:
        WearbenchError: No store in ``rundir``; a WearableQA run named by ``run_id``, or no
            HealthLoopQA run; a missing or altered benchmark; a judge that cannot be built.
        RunStopped: When the circuit breaker stopped judging.
    """
    if not (Path(rundir) / STORE_NAME).is_file():
        raise WearbenchError(f"{rundir}: no run store ({STORE_NAME}) to judge")
    config = config or GenerateConfig(max_tokens=512, temperature=0.0)
    with RunStore(rundir) as store:
        runs, skipped = _runs_to_judge(store, run_id)
        tasks = [
            t for info in runs for t in _tasks(store, info, None if bench is None else Path(bench), limit)
        ]
        chat = load_model(model, api_key_env=api_key_env) if isinstance(model, str) else model
        judge = _Judge(chat, store, config, max_response_chars)
        retried = sum(store.drop_judgement_errors(r.run_id, judge.name, JUDGE_PROMPT_VERSION) for r in runs)
        done = {r.run_id: store.judged(r.run_id, judge.name, JUDGE_PROMPT_VERSION) for r in runs}
        todo = [t for t in tasks if t.item.id not in done[t.run.run_id]]

        async def go() -> None:
            try:
                await _judge_all(judge, todo, store, concurrency, progress, max_permanent_failures)
            finally:
                await chat.aclose()

        asyncio.run(go())
        summaries = tuple(_summary(store, r.run_id, judge.name) for r in runs)
    errored = sum(g["errors"] for s in summaries for g in s["judges"])
    return JudgeOutcome(judge.name, len(todo), retried, errored, tuple(skipped), summaries)


def judge_summary(
    store_or_path: RunStore | str | Path, run_id: str, judge: str | None = None
) -> dict[str, Any]:
    """The judgements of one run, per judge and prompt version: counts, mean grades, failure types.

    Means are plain means over the parsed judgements (a parse failure has no grades; it is
    counted, not scored); the patient-clustered bootstrap lives in ``scoring``, above the runner.

    Args:
        store_or_path: An open run store, a run folder, or its ``runs.sqlite``.
        run_id: Run id or unique prefix.
        judge: Only this judge spec (default: every judge that graded the run).

    Returns:
        ``{"run_id", "model", "judges": [{"judge", "prompt_version", "n", "parsed",
        "parse_failures", "errors", "patients", "means": {grade: mean or None},
        "failure_types": {type: count}, "no_failure"}]}``.

    Raises:
        WearbenchError: If there is no store, or no run (or several) match ``run_id``.
    """
    if isinstance(store_or_path, RunStore):
        return _summary(store_or_path, run_id, judge)
    path = Path(store_or_path)
    path = path.parent if path.name == STORE_NAME else path
    if not (path / STORE_NAME).is_file():
        raise WearbenchError(f"{path}: no run store ({STORE_NAME})")
    with RunStore(path) as store:
        return _summary(store, run_id, judge)


def _summary(store: RunStore, run_id: str, judge: str | None) -> dict[str, Any]:
    info = store.run(run_id)
    groups: dict[tuple[str, str], list[Judgement]] = {}
    for j in store.judgements(info.run_id, judge):
        groups.setdefault((j.judge, j.prompt_version), []).append(j)
    return {"run_id": info.run_id, "model": info.model,
            "judges": [_group(name, version, rows) for (name, version), rows in groups.items()]}  # fmt: skip


def _group(judge: str, version: str, rows: Sequence[Judgement]) -> dict[str, Any]:
    answered = [r for r in rows if r.error is None]
    parsed = [r for r in answered if not r.parse_failed]

    def mean(key: str) -> float | None:
        values = [getattr(r, key) for r in parsed]
        return sum(values) / len(values) if values else None

    return {
        "judge": judge,
        "prompt_version": version,
        "n": len(answered),
        "parsed": len(parsed),
        "parse_failures": len(answered) - len(parsed),
        "errors": len(rows) - len(answered),
        "patients": len({r.user_id for r in answered}),
        "means": {k: mean(k) for k in JUDGE_SCORES},
        "failure_types": {t: sum(t in r.failure_types for r in parsed) for t in FAILURE_TYPES},
        "no_failure": sum(not r.failure_types for r in parsed),
    }
