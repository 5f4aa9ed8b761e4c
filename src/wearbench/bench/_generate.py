"""Per-user generation: run every question type on one user's context (one executor task)."""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from wearbench._errors import WearbenchError
from wearbench._registry import registry
from wearbench.questions import (
    HISTORY_DAYS,
    CohortPool,
    Draft,
    Drop,
    QuestionType,
    UserContext,
    item_id,
    question_type,
)


def stable_rng(seed: int, *keys: str) -> np.random.Generator:
    """A generator fixed by ``seed`` and string keys, independent of processing order."""
    words = [int.from_bytes(hashlib.sha256(k.encode("utf-8")).digest()[:4], "little") for k in keys]
    return np.random.default_rng(np.random.SeedSequence([seed, *words]))


@dataclass(frozen=True)
class Pending:
    """An item before answer letters are assigned (plain data, picklable)."""

    id: str
    type: str
    type_version: int
    labels: Mapping[str, str]
    user_id: str
    end_date: str
    history_days: int
    window_days: int
    metrics: tuple[str, ...]
    question: str
    correct: tuple[str, Mapping[str, Any]]
    distractors: tuple[tuple[str, Mapping[str, Any]], ...]
    graph: Mapping[str, Any]
    evidence: Mapping[str, Any]
    grounding_ref: str | None
    pair_kind: str | None
    gates: Mapping[str, Any] | None


@dataclass(frozen=True)
class UserTask:
    """Everything one worker needs for one user (``types``: instances, or names for the defaults)."""

    ctx: UserContext
    types: tuple[str | QuestionType, ...]
    seed: int
    pool: CohortPool


@dataclass
class UserResult:
    """Pending items and drop reasons (``type: reason`` → count) of one user."""

    user_id: str
    items: list[Pending] = field(default_factory=list)
    drops: Counter[str] = field(default_factory=Counter)


def _pending(qt: QuestionType, ctx: UserContext, draft: Draft, end: int) -> Pending:
    options = [draft.correct, *draft.distractors]
    if len(options) != 10 or len({o.text for o in options}) != 10:
        raise Drop("options are not ten distinct texts")
    evidence = draft.graph.evidence()
    holds = [qt.check(o.claim, evidence) for o in options]
    if holds.count(True) != 1 or not holds[0]:
        raise Drop(f"{holds.count(True)} options satisfy the evidence (need exactly the answer)")
    end_date = str(ctx.dates[end])
    return Pending(
        id=item_id(qt.name, ctx.user_id, end_date, draft.variant),
        type=qt.name,
        type_version=qt.version,
        labels=qt.labels.to_dict(),
        user_id=ctx.user_id,
        end_date=end_date,
        history_days=min(HISTORY_DAYS, end + 1),
        window_days=qt.window_days,
        metrics=draft.metrics,
        question=draft.question,
        correct=(draft.correct.text, dict(draft.correct.claim)),
        distractors=tuple((o.text, dict(o.claim)) for o in draft.distractors),
        graph=draft.graph.to_json(),
        evidence=evidence,
        grounding_ref=draft.grounding_ref,
        pair_kind=draft.pair_kind,
        gates=None if draft.gates is None else dict(draft.gates),
    )


def _one_type(qt: QuestionType, task: UserTask, result: UserResult) -> None:
    kept = 0
    ends = qt.end_dates(task.ctx)
    if not ends:
        n, need = task.ctx.n_days, qt.min_history
        why = f"user has {n} days, fewer than the {need} the type needs" if n < need else "no usable window"
        result.drops[f"{qt.name}: {why} (no candidate end date)"] += 1
    for end in ends:
        if kept >= qt.max_per_user:
            break
        rng = stable_rng(task.seed, qt.name, task.ctx.user_id, str(end))
        try:
            result.items.append(_pending(qt, task.ctx, qt.make(task.ctx, end, rng, task.pool), end))
            kept += 1
        except Drop as d:
            result.drops[f"{qt.name}: {d.reason}"] += 1


def generate_user(task: UserTask) -> UserResult:
    """Run the requested types on one user; deterministic in (seed, type, user, end date)."""
    result = UserResult(task.ctx.user_id)
    for qt in task.types:
        _one_type(instantiate(qt), task, result)
    return result


def instantiate(qt: str | QuestionType) -> QuestionType:
    """``qt`` itself, or the registered type called ``qt`` with its default parameters."""
    return qt if isinstance(qt, QuestionType) else question_type(qt)()


def type_instances(requested: Sequence[str | QuestionType] | None) -> tuple[QuestionType, ...]:
    """Validated question types sorted by name (every registered type, defaults, when None).

    Raises:
        WearbenchError: Two requested types share a name (item ids would collide).
    """
    if not requested:
        return tuple(question_type(n)() for n in registry.names("question"))
    named = {
        instantiate(registry.get("question", t).name if isinstance(t, str) else t).name: t for t in requested
    }
    if len(named) != len(requested):
        raise WearbenchError(f"question types requested twice: {sorted(named)} from {len(requested)} entries")
    return tuple(instantiate(named[n]) for n in sorted(named))


def type_names(requested: Sequence[str] | None) -> tuple[str, ...]:
    """Validated, sorted type names (all registered types when ``requested`` is None)."""
    if not requested:
        return tuple(registry.names("question"))
    return tuple(sorted({registry.get("question", n).name for n in requested}))
