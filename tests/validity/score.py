"""Run the prompt-only solver over a benchmark folder and tally per-type accuracy."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from tests.validity.prompt import parse_prompt, prompt_text
from tests.validity.solvers import SOLVERS, Unsolvable

from wearbench.bench import read_items
from wearbench.questions import Item

__all__ = ["Tally", "solve_bench", "solve_item"]


@dataclass
class Tally:
    """Per-type counts and the ids (with reasons) of items the solver got wrong."""

    right: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    total: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    wrong: dict[str, list[tuple[str, str]]] = field(default_factory=lambda: defaultdict(list))

    def accuracy(self, qtype: str) -> float:
        """Share of ``qtype`` items solved (NaN when none)."""
        n = self.total[qtype]
        return self.right[qtype] / n if n else float("nan")


def solve_item(item: Item, bench: Path) -> tuple[str | None, str]:
    """(letter or None, reason) of the solver for one item; it reads only the prompt text."""
    solver = SOLVERS.get(item.type)
    if solver is None:
        return None, "no solver for this type"
    try:
        return solver(parse_prompt(prompt_text(item, bench))), ""
    except Unsolvable as e:
        return None, str(e)


def solve_bench(bench: Path, types: Iterable[str] | None = None) -> Tally:
    """Solve every item (of ``types``, default all) of a benchmark and tally against the key."""
    wanted = None if types is None else set(types)
    tally = Tally()
    for item in read_items(bench):
        if wanted is not None and item.type not in wanted:
            continue
        letter, reason = solve_item(item, bench)
        tally.total[item.type] += 1
        if letter == item.answer:
            tally.right[item.type] += 1
        else:
            tally.wrong[item.type].append((item.id, reason or f"solver {letter}, key {item.answer}"))
    return tally
