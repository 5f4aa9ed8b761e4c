"""`wearbench verify`: re-derive every answer from the stored graph and context."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wearbench._errors import WearbenchError
from wearbench._registry import registry
from wearbench.bench._artifact import load_context, read_items
from wearbench.executors import Executor, LocalExecutor
from wearbench.questions import Item, UserContext, question_type, run_graph

#: ``grounding_ref`` of items imported from an official release: they carry no graph.
IMPORTED_REF = "official"


def is_imported(item: Item) -> bool:
    """Whether ``item`` was imported without a computation graph (not re-derivable)."""
    return not item.graph and item.grounding_ref == IMPORTED_REF


@dataclass(frozen=True)
class VerifyReport:
    """Outcome of :func:`verify_benchmark`.

    Attributes:
        n_items: Items checked.
        failures: ``(item id, reason)`` for every item that did not re-derive.
        imported: Ids of imported items without a graph (not re-derivable, not failures).
    """

    n_items: int
    failures: tuple[tuple[str, str], ...]
    imported: tuple[str, ...] = ()

    @property
    def n_checked(self) -> int:
        """Items with a graph, i.e. re-derivable ones."""
        return self.n_items - len(self.imported)

    @property
    def agreement(self) -> float:
        """Share of re-derivable items that re-derived (1.0 when there are none)."""
        return 1.0 - len(self.failures) / self.n_checked if self.n_checked else 1.0


def _close(a: Any, b: Any) -> bool:
    if isinstance(a, float) and isinstance(b, float | int):
        return math.isclose(a, float(b), rel_tol=1e-9, abs_tol=1e-12)
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def judge_options(item: Item, evidence: Mapping[str, Any]) -> list[str]:
    """Letters whose claims hold on ``evidence`` under the item type's check."""
    qt = question_type(item.type)
    return [letter for letter, claim in sorted(item.claims.items()) if qt.check(claim, evidence)]


def _verify_item(item: Item, ctx: UserContext) -> str | None:
    qt = question_type(item.type)
    if qt.version != item.type_version:
        return f"type version {item.type_version} != registered {qt.version}"
    if qt.labels.to_dict() != {
        k: getattr(item, k) for k in ("reasoning", "signals", "grounding", "dependency")
    }:
        return "labels differ from the type's"
    try:
        evidence = run_graph(item.graph, ctx)
    except (WearbenchError, ValueError, TypeError) as e:
        return f"graph failed: {e}"
    if not _close(evidence, dict(item.evidence)):
        return "re-derived evidence differs from the stored evidence"
    holds = judge_options(item, evidence)
    if holds != [item.answer]:
        return f"options satisfied: {holds or 'none'}; answer {item.answer}"
    return None


#: Items per executor task of :func:`verify_benchmark` (and of the oracle's eval chunks).
CHUNK_ITEMS = 64


def preload_types() -> None:
    """Import every question type and primitive now (~2 s), before an executor forks its workers.

    Forked local workers then inherit them instead of each importing them again on its first
    task (measured: a 2-process pool's first tasks 4.3 s → 0.5 s). Serial runs need them anyway.
    """
    registry.names("question")
    registry.names("primitive")


def user_chunks(user_ids: Sequence[str], size: int = CHUNK_ITEMS) -> list[list[int]]:
    """Item positions in chunks of at most ``size``, grouped by user, so a chunk loads each context once.

    Users come in order of first appearance and each user's positions in order; the chunking
    depends only on ``user_ids`` and ``size``, never on an executor.

    Args:
        user_ids: The user of each item, in item order.
        size: Most items per chunk (>= 1).

    Raises:
        ValueError: If ``size`` is below 1.
    """
    if size < 1:
        raise ValueError(f"chunk size must be >= 1, got {size}")
    by_user: dict[str, list[int]] = {}
    for n, user in enumerate(user_ids):
        by_user.setdefault(user, []).append(n)
    order = [n for positions in by_user.values() for n in positions]
    return [order[k : k + size] for k in range(0, len(order), size)]


def _verify_chunk(task: tuple[str, tuple[Item, ...]]) -> list[tuple[bool, str | None]]:
    """``(imported, failure reason)`` for each item of one chunk (an executor task)."""
    bench, items = Path(task[0]), task[1]
    contexts: dict[str, UserContext] = {}
    out: list[tuple[bool, str | None]] = []
    for item in items:
        if is_imported(item):
            out.append((True, None))
            continue
        if item.user_id not in contexts:
            contexts[item.user_id] = load_context(bench, item.user_id)
        out.append((False, _verify_item(item, contexts[item.user_id])))
    return out


def verify_benchmark(
    bench: str | Path,
    progress: Callable[[int, int], None] | None = None,
    executor: Executor | None = None,
    chunk: int = CHUNK_ITEMS,
) -> VerifyReport:
    """Re-execute every item's graph on its stored context and check answer, uniqueness and labels.

    Items run in tasks of at most ``chunk`` items, grouped by user (each task loads each of
    its contexts once), on ``executor`` (serial in this process by default). The report lists
    failures in item order and is the same on every executor and for every chunk size.

    Args:
        bench: Benchmark folder.
        progress: Optional ``(done, total)`` callback, called as each task's results land.
        executor: Where the tasks run (:func:`~wearbench.executors.executor_from_spec`).
        chunk: Most items per task.
    """
    bench = Path(bench)
    items = read_items(bench)
    preload_types()
    chunks = user_chunks([i.user_id for i in items], chunk)
    tasks = ((str(bench), tuple(items[n] for n in c)) for c in chunks)
    results: list[tuple[bool, str | None]] = [(False, None)] * len(items)
    done = 0
    answered = (executor or LocalExecutor(1)).map(_verify_chunk, tasks)
    for positions, outcomes in zip(chunks, answered, strict=True):
        for n, outcome in zip(positions, outcomes, strict=True):
            results[n] = outcome
        done += len(positions)
        if progress:
            progress(done, len(items))
    failures = tuple((i.id, r) for i, (_, r) in zip(items, results, strict=True) if r)
    imported = tuple(i.id for i, (imp, _) in zip(items, results, strict=True) if imp)
    return VerifyReport(len(items), failures, imported)
