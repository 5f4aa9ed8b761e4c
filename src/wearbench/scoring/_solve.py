"""Score a registered baseline on a benchmark: ``evaluate(bench, "baseline:NAME")``, no run folder kept."""

from __future__ import annotations

import tempfile
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from wearbench._stats import Accuracy, accuracy
from wearbench.models import GenerateConfig
from wearbench.questions import Item
from wearbench.runner import RunStore, evaluate


@dataclass(frozen=True)
class SolveResult:
    """Accuracy of one baseline on one benchmark.

    Attributes:
        solver: Baseline name (``wearbench list baseline``).
        overall: Accuracy over every scored item.
        by_type: Accuracy per question type.
        n_skipped: Items the baseline could not answer (the oracle on imported items: no
            graph to replay); not scored.
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


def solve_benchmark(bench: str | Path, solver: str = "random", *, seed: int = 0) -> SolveResult:
    """Run the baseline ``solver`` with :func:`~wearbench.runner.evaluate` and score it.

    The same letters as ``wearbench eval --model baseline:NAME --seed SEED`` (one code path);
    the run store goes to a temporary folder and is deleted.

    Args:
        bench: Benchmark folder.
        solver: A registered baseline (``random``, ``oracle``, ``prior``, …).
        seed: Seed of the baseline (``random``, ``text-only``, ``prior``).

    Raises:
        UnknownNameError: If ``solver`` is not a registered baseline (with close matches).
    """
    with tempfile.TemporaryDirectory(prefix="wearbench-solve-") as tmp:
        summary = evaluate(bench, f"baseline:{solver}", tmp, config=GenerateConfig(seed=seed))
        with RunStore(tmp) as store:
            rows = store.rows(summary.info.run_id) if summary.recorded else []
    answers = {r.item_id: r.letter or "" for r in rows if r.error is None}
    items = [i for i in summary.items if i.id in answers]
    overall, by_type = score_answers(items, answers)
    return SolveResult(solver, overall, by_type, len(summary.items) - len(items))
