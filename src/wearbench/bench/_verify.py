"""`wearbench verify`: re-derive every answer from the stored graph and context."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wearbench._errors import WearbenchError
from wearbench.bench._artifact import load_context, read_items
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


def verify_benchmark(bench: str | Path, progress: Callable[[int, int], None] | None = None) -> VerifyReport:
    """Re-execute every item's graph on its stored context and check answer, uniqueness and labels."""
    items = read_items(Path(bench))
    contexts: dict[str, UserContext] = {}
    failures: list[tuple[str, str]] = []
    imported: list[str] = []
    for n, item in enumerate(items, start=1):
        if is_imported(item):
            imported.append(item.id)
        elif item.user_id not in contexts:
            contexts[item.user_id] = load_context(Path(bench), item.user_id)
        reason = None if is_imported(item) else _verify_item(item, contexts[item.user_id])
        if reason:
            failures.append((item.id, reason))
        if progress:
            progress(n, len(items))
    return VerifyReport(len(items), tuple(failures), tuple(imported))
