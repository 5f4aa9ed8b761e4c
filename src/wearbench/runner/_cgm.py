"""HealthLoopQA (CGM) items for the runner, and the reference baselines that answer them.

A HealthLoopQA benchmark (``wearbench cgm build``, manifest ``kind`` ``healthloopqa``) holds
free-form questions, not multiple choice: a solver returns text, and the answer is read from it
and scored by ``wearbench score`` (``wearbench.scoring``), never by the runner. The baselines
answer as a model would, with ``{"answer": …}`` text, so their answers pass through the same
parser. Each baseline *covers* the items of some answer types and a run of it holds exactly
those items (``docs/cgm-eval.md``):

- ``oracle``: every item; the stored true answer (scores 100 by construction).
- ``naive-last``: ``number``/``integer`` items in mg/dL; the last CGM reading of the item's
  context (a prediction item's context ends at its "now": the persistence forecast).
- ``naive-mean``: every ``number``/``integer`` item; the mean true answer of the item's template
  over the benchmark (integers rounded half to even). ``day_value_list`` items: every day of the
  item's window, each paired with the mean value over all (day, value) pairs of the template.
- ``naive-majority``: ``yes_no``, ``category`` and ``day_list`` items; the most common true
  answer of the item's template over the benchmark (ties: the first in JSON text order).
- ``naive-empty``: ``intervals`` and ``day_value_list`` items; ``[]``.
- ``naive-allday``: ``intervals`` items; one interval over the whole window,
  ``{"start": 0, "end": 1440 * days - 5}`` (minutes, both ends included: every reading).
"""

from __future__ import annotations

import csv
import hashlib
import json
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from wearbench._errors import WearbenchError
from wearbench._registry import registered, registry
from wearbench.cgmqa import DAY_MIN, STEP_MIN, open_context
from wearbench.runner._bench import checked_items_bytes
from wearbench.runner._solvers import Answer

baseline = registered("baseline")

_NUMBERS = frozenset({"number", "integer"})
_MAJORITY = frozenset({"yes_no", "category", "day_list"})
_EMPTY = frozenset({"intervals", "day_value_list"})


@dataclass(frozen=True)
class CGMItem:
    """One HealthLoopQA item as the runner sees it.

    Attributes:
        id: Item id (``pm_14-adult#003``).
        user_id: The patient (items of one patient share a record; the bootstrap clusters on it).
        template: Public template id (``pm_14``).
        family: ``ad``, ``pm`` or ``pd``.
        level: Cognitive level.
        abilities: Atomic abilities.
        answer_type: The answer type (``number`` … ``intervals``).
        metric: The template's metric.
        unit: Unit of a numeric answer (``mg/dL`` …), or "".
        answer: The true answer (JSON value).
        bench: The benchmark folder (context paths are relative to it).
        data: The whole item as stored in ``items.jsonl``.
    """

    id: str
    user_id: str
    template: str
    family: str
    level: str
    abilities: tuple[str, ...]
    answer_type: str
    metric: str
    unit: str
    answer: Any
    bench: Path
    data: Mapping[str, Any]

    @classmethod
    def from_dict(cls, data: Mapping[str, Any], bench: Path) -> CGMItem:
        """An item from its ``items.jsonl`` object.

        Raises:
            KeyError: If a required field is missing.
        """
        return cls(
            id=str(data["id"]),
            user_id=str(data["patient"]),
            template=str(data["template"]),
            family=str(data["family"]),
            level=str(data["level"]),
            abilities=tuple(str(a) for a in data.get("abilities", ())),
            answer_type=str(data["answer_type"]),
            metric=str(data["metric"]),
            unit=str(data.get("unit", "")),
            answer=data["answer"],
            bench=bench,
            data=data,
        )

    @property
    def window_minutes(self) -> int:
        """Length of the item's window in minutes (``1440 * days``)."""
        return DAY_MIN * int(self.data["context"]["days"])

    def context_file(self, which: str) -> Path:
        """Path of the item's ``readings`` or ``events`` context file.

        The file is xz-compressed CSV: read it with ``wearbench.cgmqa.open_context`` or
        ``pandas.read_csv``.
        """
        return self.bench / str(self.data["context"][which])


def open_cgm_bench(bench: str | Path) -> tuple[list[CGMItem], str]:
    """The items of a HealthLoopQA benchmark after checking every file its manifest lists.

    Returns:
        The items in file order and the SHA-256 of ``items.jsonl`` (the run's ``bench_hash``).

    Raises:
        WearbenchError: On a missing or altered file (as :func:`~wearbench.runner.open_bench`),
            or a malformed item (naming its line).
    """
    bench = Path(bench)
    data, digest = checked_items_bytes(bench)
    items = []
    for n, line in enumerate(data.decode("utf-8").splitlines(), start=1):
        try:
            items.append(CGMItem.from_dict(json.loads(line), bench))
        except (ValueError, TypeError, KeyError) as e:
            raise WearbenchError(f"{bench / 'items.jsonl'}:{n}: malformed HealthLoopQA item ({e!r})") from e
    return items, digest


class CGMSolver(Protocol):
    """Answers HealthLoopQA items with free text. ``name`` is the model spec stored with every row."""

    name: str

    def covers(self, item: CGMItem) -> bool:
        """Whether the solver answers this item (a run holds only the items it covers)."""
        ...

    async def solve(self, item: CGMItem) -> Answer:
        """Answer one item."""
        ...

    async def aclose(self) -> None:
        """Release resources."""
        ...


def answer_text(value: Any) -> str:
    """``{"answer": value}`` as the instruction asks for it (JSON, UTF-8 kept)."""
    return json.dumps({"answer": value}, ensure_ascii=False)


class _CGMTableSolver:
    """A baseline with one answer per covered item, computed up front; no model call."""

    needs_context = False

    def __init__(self, name: str, answers: Mapping[str, Any]) -> None:
        self.name = name
        self._answers = dict(answers)

    def covers(self, item: CGMItem) -> bool:
        return item.id in self._answers

    async def solve(self, item: CGMItem) -> Answer:
        if item.id not in self._answers:
            return Answer("", None, _hash(self.name, item.id), error=f"{self.name} does not cover {item.id}")
        return Answer(answer_text(self._answers[item.id]), None, _hash(self.name, item.id))

    async def aclose(self) -> None:
        return None


def _hash(*parts: str) -> str:
    return hashlib.sha256("|".join(parts).encode("utf-8")).hexdigest()


def _cgm_items(items: Sequence[Any], name: str) -> list[CGMItem]:
    if not all(isinstance(i, CGMItem) for i in items):
        raise WearbenchError(f"baseline {name} answers HealthLoopQA (CGM) benchmarks only")
    return list(items)


def last_reading(path: Path) -> float | None:
    """The last non-empty ``glucose_mgdl`` of a context readings file (mg/dL), None if none.

    Raises:
        WearbenchError: If the file is missing or has no ``glucose_mgdl`` column.
    """
    rows = csv.DictReader(open_context(path))
    if "glucose_mgdl" not in (rows.fieldnames or ()):
        raise WearbenchError(f"{path}: no glucose_mgdl column")
    last = None
    for row in rows:
        last = row["glucose_mgdl"] or last
    return None if last is None else float(last)


def _number(value: float, answer_type: str) -> float | int:
    return round(value) if answer_type == "integer" else round(value, 6)


def naive_last_answers(items: Sequence[CGMItem]) -> dict[str, float | int]:
    """``naive-last``: the last CGM reading of the context, for numeric mg/dL items (mg/dL)."""
    cache: dict[Path, float | None] = {}
    out: dict[str, float | int] = {}
    for item in items:
        if item.answer_type not in _NUMBERS or item.unit != "mg/dL":
            continue
        path = item.context_file("readings")
        if path not in cache:
            cache[path] = last_reading(path)
        value = cache[path]
        if value is not None:
            out[item.id] = _number(value, item.answer_type)
    return out


def naive_mean_answers(items: Sequence[CGMItem]) -> dict[str, Any]:
    """``naive-mean``: the template's mean true answer, for numeric and (day, value) list items.

    A numeric item gets the mean of its template's answers (integers rounded half to even). A
    ``day_value_list`` item gets every day of its window (``first_day`` … ``first_day + days - 1``),
    each paired with the mean value over all (day, value) pairs of its template (in the
    template's unit, 6 decimals); ``[]`` when no item of the template has a pair.
    """
    by_template: dict[str, list[float]] = defaultdict(list)
    numeric = [i for i in items if i.answer_type in _NUMBERS and isinstance(i.answer, int | float)]
    for item in numeric:
        by_template[item.template].append(float(item.answer))
    means = {t: sum(v) / len(v) for t, v in by_template.items()}
    out: dict[str, Any] = {i.id: _number(means[i.template], i.answer_type) for i in numeric}
    out.update(_day_value_means(items))
    return out


def _day_value_means(items: Sequence[CGMItem]) -> dict[str, list[list[float | int]]]:
    """Every day of each ``day_value_list`` item's window with its template's mean pair value."""
    chosen = [i for i in items if i.answer_type == "day_value_list"]
    values: dict[str, list[float]] = defaultdict(list)
    for item in chosen:
        values[item.template] += [float(v) for _, v in item.answer or ()]
    out: dict[str, list[list[float | int]]] = {}
    for item in chosen:
        pool = values[item.template]
        if not pool:
            out[item.id] = []
            continue
        mean = round(sum(pool) / len(pool), 6)
        first = int(item.data["context"].get("first_day", 1))
        days = int(item.data["context"]["days"])
        out[item.id] = [[day, mean] for day in range(first, first + days)]
    return out


def naive_majority_answers(items: Sequence[CGMItem]) -> dict[str, Any]:
    """``naive-majority``: the template's most common true answer, for yes/no, category, day list.

    Ties go to the answer first in JSON text order (``"no"`` before ``"yes"``, ``[]`` before ``[1]``).
    """
    chosen = [i for i in items if i.answer_type in _MAJORITY]
    counts: dict[str, Counter[str]] = defaultdict(Counter)
    for item in chosen:
        counts[item.template][json.dumps(item.answer, sort_keys=True)] += 1
    best = {t: min(c, key=lambda k: (-c[k], k)) for t, c in counts.items()}
    return {i.id: json.loads(best[i.template]) for i in chosen}


def naive_empty_answers(items: Sequence[CGMItem]) -> dict[str, list[Any]]:
    """``naive-empty``: ``[]``, for interval and (day, value) list items."""
    return {i.id: [] for i in items if i.answer_type in _EMPTY}


def naive_allday_answers(items: Sequence[CGMItem]) -> dict[str, list[dict[str, int]]]:
    """``naive-allday``: one interval over the item's whole window (minutes, ends included)."""
    return {
        i.id: [{"start": 0, "end": i.window_minutes - STEP_MIN}]
        for i in items
        if i.answer_type == "intervals"
    }


@baseline("naive-last", benchmark="healthloopqa")
def _naive_last(items: Sequence[Any], seed: int) -> CGMSolver:
    """HealthLoopQA: the last CGM reading of the context, for numeric mg/dL answers."""
    return _CGMTableSolver("baseline:naive-last", naive_last_answers(_cgm_items(items, "naive-last")))


@baseline("naive-mean", benchmark="healthloopqa")
def _naive_mean(items: Sequence[Any], seed: int) -> CGMSolver:
    """HealthLoopQA: the template's mean true answer, for numeric and (day, value) list answers."""
    return _CGMTableSolver("baseline:naive-mean", naive_mean_answers(_cgm_items(items, "naive-mean")))


@baseline("naive-majority", benchmark="healthloopqa")
def _naive_majority(items: Sequence[Any], seed: int) -> CGMSolver:
    """HealthLoopQA: the template's most common answer, for yes/no, category and day-list answers."""
    return _CGMTableSolver(
        "baseline:naive-majority", naive_majority_answers(_cgm_items(items, "naive-majority"))
    )


@baseline("naive-empty", benchmark="healthloopqa")
def _naive_empty(items: Sequence[Any], seed: int) -> CGMSolver:
    """HealthLoopQA: an empty list, for interval and (day, value) list answers."""
    return _CGMTableSolver("baseline:naive-empty", naive_empty_answers(_cgm_items(items, "naive-empty")))


@baseline("naive-allday", benchmark="healthloopqa")
def _naive_allday(items: Sequence[Any], seed: int) -> CGMSolver:
    """HealthLoopQA: one interval over the whole window, for interval answers."""
    return _CGMTableSolver("baseline:naive-allday", naive_allday_answers(_cgm_items(items, "naive-allday")))


def cgm_oracle(items: Sequence[CGMItem]) -> CGMSolver:
    """The HealthLoopQA oracle: every item's stored true answer (``baseline:oracle``)."""
    return _CGMTableSolver("baseline:oracle", {i.id: i.answer for i in items})


def cgm_baseline_solver(name: str, items: Sequence[CGMItem], seed: int = 0) -> CGMSolver:
    """The baseline ``name`` for a HealthLoopQA benchmark: ``oracle`` or a ``naive-*`` one.

    Raises:
        UnknownNameError: With close matches, if no baseline has that name.
        WearbenchError: If the baseline answers WearableQA (multiple-choice) items only.
    """
    if name == "oracle":
        return cgm_oracle(items)
    entry = registry.get("baseline", name)
    if entry.tags.get("benchmark") != "healthloopqa":
        usable = ["oracle", *(e.name for e in registry.entries("baseline", benchmark="healthloopqa"))]
        raise WearbenchError(
            f"baseline {name} answers WearableQA (multiple-choice) items only; "
            f"HealthLoopQA baselines: {', '.join(usable)}"
        )
    factory: Callable[[Sequence[CGMItem], int], CGMSolver] = entry.obj
    return factory(items, seed)
