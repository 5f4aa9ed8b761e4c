"""Score a reference solver (random guessing or the primitive-replaying oracle) on a benchmark."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from wearbench._stats import Accuracy, accuracy
from wearbench.bench import is_imported, oracle_answers, random_answers, read_items
from wearbench.questions import Item

__all__ = ["SolveResult", "Solver", "score_answers", "solve_benchmark"]

Solver = Literal["random", "oracle"]


@dataclass(frozen=True)
class SolveResult:
    """Accuracy of one solver on one benchmark.

    Attributes:
        solver: Solver name.
        overall: Accuracy over every scored item.
        by_type: Accuracy per question type.
        n_skipped: Imported items the oracle cannot answer (no graph); not scored.
    """

    solver: str
    overall: Accuracy
    by_type: Mapping[str, Accuracy]
    n_skipped: int = 0


def score_answers(items: Sequence[Item], answers: Mapping[str, str]) -> tuple[Accuracy, dict[str, Accuracy]]:
    """Overall and per-type accuracy of ``answers`` (item id → letter; missing or ``""`` is wrong)."""
    hits: dict[str, list[bool]] = defaultdict(list)
    for item in items:
        hits[item.type].append(answers.get(item.id, "") == item.answer)
    by_type = {t: accuracy(sum(v), len(v)) for t, v in sorted(hits.items())}
    k = sum(sum(v) for v in hits.values())
    return accuracy(k, len(items)), by_type


def solve_benchmark(bench: str | Path, solver: Solver = "random", *, seed: int = 0) -> SolveResult:
    """Run a reference solver on a benchmark folder and score it.

    Args:
        bench: Benchmark folder.
        solver: ``random`` (uniform letter per item, seeded) or ``oracle`` (replays each graph).
        seed: Seed of the random solver.

    Raises:
        ValueError: If ``solver`` is unknown.
    """
    items = read_items(Path(bench))
    skipped = 0
    if solver == "random":
        answers = random_answers(items, seed)
    elif solver == "oracle":
        derivable = [i for i in items if not is_imported(i)]
        skipped = len(items) - len(derivable)
        items, answers = derivable, oracle_answers(derivable, bench)
    else:
        raise ValueError(f"unknown solver {solver!r}; valid: random, oracle")
    overall, by_type = score_answers(items, answers)
    return SolveResult(solver, overall, by_type, skipped)
