"""Reference solvers: random guessing and an oracle that runs the primitives."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from wearbench.bench._artifact import load_context
from wearbench.bench._generate import stable_rng
from wearbench.bench._verify import judge_options
from wearbench.questions import LETTERS, Item, run_graph

__all__ = ["oracle_answers", "random_answers"]


def random_answers(items: Sequence[Item], seed: int = 0) -> dict[str, str]:
    """A uniformly random letter per item (seeded per item id)."""
    return {i.id: LETTERS[int(stable_rng(seed, "random-solver", i.id).integers(len(LETTERS)))] for i in items}


def oracle_answers(items: Sequence[Item], bench: str | Path) -> dict[str, str]:
    """Answer by replaying each item's graph on the stored context and judging all options.

    Items where not exactly one option holds get ``""`` (counted wrong).
    """
    out: dict[str, str] = {}
    cache = {}
    for item in items:
        if item.user_id not in cache:
            cache[item.user_id] = load_context(Path(bench), item.user_id)
        holds = judge_options(item, run_graph(item.graph, cache[item.user_id]))
        out[item.id] = holds[0] if len(holds) == 1 else ""
    return out
