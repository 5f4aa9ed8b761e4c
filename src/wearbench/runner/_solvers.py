"""Solvers: what answers an item. Baselines are registered ``baseline``s; chat models go through prompts.

Every solver takes a :class:`Sample` (an item and its user's context) and a
:class:`~wearbench.runner.Setting`, and returns an :class:`Answer`; the runner stores it.
Baselines (registry kind ``baseline``, spec ``baseline:NAME``; ``wearbench solve`` and
``wearbench eval --model baseline:NAME`` both run them through :func:`~wearbench.runner.evaluate`):

- ``random`` — a uniformly random letter per item (seeded by item id);
- ``majority-position`` — always the letter that is most often correct in the benchmark;
- ``oracle`` — replays each item's computation graph (primitives) and judges all ten options;
- ``text-only`` — the shortcut audit's logistic regression on option text, no data, cross-fitted
  by user folds so no item's own label is ever seen;
- ``prior`` — the knowledge prior: textbook physiology (usual lags, signs, directions, seasons,
  magnitudes) and logical exclusion of contradictory options, no data.
"""

from __future__ import annotations

import hashlib
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np

from wearbench._registry import registered, registry
from wearbench.bench import stable_rng
from wearbench.prompts import Setting
from wearbench.questions import LETTERS, Item, UserContext, run_graph

baseline = registered("baseline")

#: The context an imported item (no graph, nothing to replay) is answered with.
_NO_CONTEXT = UserContext("", np.empty(0, dtype="datetime64[D]"), {}, {}, (), {})


@dataclass(frozen=True)
class Sample:
    """One item and its user's full context."""

    item: Item
    context: UserContext


@dataclass(frozen=True)
class Answer:
    """What a solver returned for one item (see :class:`~wearbench.runner.ResultRow`)."""

    response: str
    letter: str | None
    prompt_hash: str
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cost_usd: float | None = None
    retries: int = 0
    error: str | None = None
    transcript: str = "[]"
    cached: bool = False
    extra: Mapping[str, Any] = field(default_factory=dict)


class Solver(Protocol):
    """Answers items. ``name`` is the model spec stored with every row."""

    name: str

    async def solve(self, sample: Sample, setting: Setting) -> Answer:
        """Answer one item."""
        ...

    async def aclose(self) -> None:
        """Release resources."""
        ...


def _hash(*parts: str) -> str:
    return hashlib.sha256("|".join(parts).encode("utf-8")).hexdigest()


class _TableSolver:
    """A baseline whose letters are computed up front (item id → letter); reads no context."""

    needs_context = False

    def __init__(self, name: str, letters: Mapping[str, str]) -> None:
        self.name = name
        self._letters = dict(letters)

    async def solve(self, sample: Sample, setting: Setting) -> Answer:
        letter = self._letters.get(sample.item.id, "")
        return Answer(letter, letter or None, _hash(self.name, sample.item.id))

    async def aclose(self) -> None:
        return None


#: An executor task of a chunked baseline: the benchmark folder and a chunk of items.
ChunkTask = tuple[str, tuple[Item, ...]]


def _oracle_answer(item: Item, context: UserContext) -> Answer:
    """The oracle's answer to one item: the letters whose claims hold on the replayed graph."""
    from wearbench.bench import is_imported, judge_options

    name = _OracleSolver.name
    if is_imported(item):
        return Answer("", None, _hash(name, item.id), error="imported item: no graph to replay")
    holds = judge_options(item, run_graph(item.graph, context))
    letter = holds[0] if len(holds) == 1 else None
    return Answer(",".join(holds), letter, _hash(name, item.id))


def _oracle_chunk(task: ChunkTask) -> list[tuple[Answer, float]]:
    """The oracle's answers to one chunk of items, each with its seconds (an executor task).

    Each user's context is loaded once per chunk (imported items need none).
    """
    from wearbench.bench import is_imported, load_context

    bench, items = Path(task[0]), task[1]
    contexts: dict[str, UserContext] = {}
    out: list[tuple[Answer, float]] = []
    for item in items:
        started = time.perf_counter()
        if not is_imported(item) and item.user_id not in contexts:
            contexts[item.user_id] = load_context(bench, item.user_id)
        answer = _oracle_answer(item, contexts.get(item.user_id, _NO_CONTEXT))
        out.append((answer, time.perf_counter() - started))
    return out


class _OracleSolver:
    """Replays the item's graph on the user's context and judges the ten options.

    ``answer_chunk`` answers a chunk of items on an executor (``evaluate(executor=...)``):
    the same answers as :meth:`solve`, item by item.
    """

    name = "baseline:oracle"
    answer_chunk = staticmethod(_oracle_chunk)

    async def solve(self, sample: Sample, setting: Setting) -> Answer:
        return _oracle_answer(sample.item, sample.context)

    async def aclose(self) -> None:
        return None


@baseline("random")
def _random(items: Sequence[Item], seed: int) -> Solver:
    """Uniformly random letter per item (seeded by item id)."""
    n = len(LETTERS)
    return _TableSolver(
        "baseline:random",
        {i.id: LETTERS[int(stable_rng(seed, "random-solver", i.id).integers(n))] for i in items},
    )


@baseline("majority-position")
def _majority(items: Sequence[Item], seed: int) -> Solver:
    """Always the letter most often correct in the benchmark (ties: the earliest letter)."""
    counts = Counter(i.answer for i in items)
    best = max(LETTERS, key=lambda letter: (counts[letter], -LETTERS.index(letter)))
    return _TableSolver("baseline:majority-position", {i.id: best for i in items})


@baseline("oracle")
def _oracle(items: Sequence[Item], seed: int) -> Solver:
    """Replays each item's computation graph of registered primitives (scores 100% by design)."""
    return _OracleSolver()


@baseline("text-only")
def _text_only(items: Sequence[Item], seed: int) -> Solver:
    """Logistic regression on option text only (no data), cross-fitted by user folds per type."""
    from wearbench.bench import text_only_answers  # imported here: it pulls in the builder

    return _TableSolver("baseline:text-only", text_only_answers(items, seed=seed))


@baseline("prior")
def _prior(items: Sequence[Item], seed: int) -> Solver:
    """Textbook physiology and option logic only (no data); ties broken by a seeded hash of the id."""
    from wearbench.bench import prior_answers  # imported here: it pulls in the question types

    return _TableSolver("baseline:prior", prior_answers(items, seed=seed))


def baseline_solver(name: str, items: Sequence[Item], seed: int = 0) -> Solver:
    """The registered baseline ``name`` (``wearbench list baseline``) over ``items``.

    Raises:
        UnknownNameError: With close matches, if no baseline has that name.
    """
    factory: Callable[[Sequence[Item], int], Solver] = registry.get("baseline", name).obj
    return factory(items, seed)


def spec_forms() -> list[str]:
    """Every accepted model spec form, generated from the registry: baselines, then chat adapters."""
    return [f"baseline:{{{'|'.join(registry.names('baseline'))}}}"] + [
        str(e.tags["form"]) for e in registry.entries("adapter")
    ]
