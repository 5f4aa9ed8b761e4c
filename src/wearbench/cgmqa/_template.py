"""The CGM question template: metadata, a truth function and a params sampler, registered by id.

A template is data plus one small function. Decorate the truth function with :func:`template`::

    @template("pm_0", level="descriptive", abilities=("QC",), answer_type="number", metric="smape",
              unit="mg/dL", question="What was my average glucose over the whole record?")
    def mean_bg(record: PatientRecord, params: Params) -> float | None:
        \"\"\"Mean displayed CGM, mg/dL (1 dp).\"\"\"
        return rounded(mean_or_none(record.bg), 1)

The truth function returns the answer for one record (``None``: no answer on this record, so the
item is dropped and counted). The registry (kind ``cgm_template``) holds the truth function with
every other field as JSON tags, so ``wearbench list cgm_template`` shows them and an unknown id
fails with close matches; :func:`get_template` rebuilds the :class:`Template`.
"""

from __future__ import annotations

import math
import re
import string
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields
from typing import Any, Literal, cast, get_args

import numpy as np

from wearbench._errors import WearbenchError
from wearbench._registry import Entry, registry
from wearbench.cgmqa._now import NOW_KEYS, context_end, now_candidates
from wearbench.cgmqa._record import PatientRecord
from wearbench.cgmqa._series import day_of_minute

Family = Literal["ad", "pm", "pd"]
Level = Literal["descriptive", "memory", "pattern"]
AnswerType = Literal["number", "integer", "yes_no", "category", "day_list", "day_value_list", "intervals"]
Metric = Literal["accuracy", "f1", "smape", "mae", "affiliation"]
#: What a template reads beyond the CGM: meal, bolus, exercise tables, insulin per sample, fault
#: labels, a counterfactual re-simulation.
Need = Literal["meals", "boluses", "insulin", "exercise", "faults", "counterfactual"]
Answer = float | int | str | list[int] | list[list[float]] | list[dict[str, int]]
Params = Mapping[str, int | str]
Truth = Callable[[PatientRecord, Params], Answer | None]

FAMILIES: tuple[str, ...] = get_args(Family)
LEVELS: tuple[str, ...] = get_args(Level)
ANSWER_TYPES: tuple[str, ...] = get_args(AnswerType)
METRICS: tuple[str, ...] = get_args(Metric)
NEEDS: tuple[str, ...] = get_args(Need)
YES_NO = ("yes", "no")

#: Metrics that fit each answer type.
_FITS: dict[str, tuple[str, ...]] = {
    "number": ("smape", "mae"),
    "integer": ("smape", "mae", "accuracy"),
    "yes_no": ("accuracy",),
    "category": ("accuracy",),
    "day_list": ("accuracy", "f1"),
    "day_value_list": ("f1", "accuracy"),
    "intervals": ("affiliation",),
}

_FORMATS: dict[str, str] = {
    "number": 'Reply with JSON only: {{"answer": <number{unit}>}}.',
    "integer": 'Reply with JSON only: {{"answer": <whole number{unit}>}}.',
    "yes_no": 'Reply with JSON only: {{"answer": "yes"}} or {{"answer": "no"}}.',
    "category": 'Reply with JSON only: {{"answer": <one of {choices}>}}.',
    "day_list": 'Reply with JSON only: {{"answer": [<day numbers, day 1 first>]}}, e.g. '
    '{{"answer": [2, 15]}}; [] if none.',
    "day_value_list": 'Reply with JSON only: {{"answer": [[<day>, <value{unit}>], ...]}}, e.g. '
    '{{"answer": [[3, 54.2]]}}; [] if none.',
    # an interval answer is never empty (a record without such an interval has no answer, so the
    # item is dropped): the instruction does not offer [] (docs/cgm-templates.md, "Empty answers")
    "intervals": 'Reply with JSON only: {{"answer": [{{"start": <minute>, "end": <minute>}}, ...]}}, minutes '
    "from the start of the record (day 1 00:00 is minute 0), both ends included.",
}


@dataclass(frozen=True)
class Template:
    """One CGM question template.

    Attributes:
        id: Public HealthLoopQA id, ``<family>_<n>`` (``pm_14``).
        level: Cognitive level.
        abilities: Atomic abilities (``QC``, ``TR``, ``ER``, ``CA``, ``PC``, ``PR``).
        question: User-tone question; ``{name}`` placeholders are filled from the params.
        answer_type: Exactly one of :data:`ANSWER_TYPES`.
        metric: One of :data:`METRICS` that fits the answer type.
        truth: ``(record, params) -> answer | None``.
        unit: Unit of a numeric answer (``mg/dL``, ``h``, ``%``, ``min``, ``U``), shown in the instruction.
        categories: The allowed answers of a ``category`` template.
        in_headline: Whether the seed's headline tables count it.
        context_days: Days of readings and events the model is shown (30, 7 or 1).
        needs: What the record must hold beyond the CGM (:data:`NEEDS`).
        sampler: Name of the params sampler (:func:`sampler_names`; it lists the candidate params of a
            record), None for a question without placeholders.
        instruction: Answer instruction; empty: the standard one of the answer type.
    """

    id: str
    level: Level
    abilities: tuple[str, ...]
    question: str
    answer_type: AnswerType
    metric: Metric
    truth: Truth
    unit: str = ""
    categories: tuple[str, ...] = ()
    in_headline: bool = True
    context_days: int = 30
    needs: tuple[str, ...] = ()
    sampler: str | None = None
    instruction: str = ""

    def __post_init__(self) -> None:
        where = f"cgm_template {self.id!r}"
        if not re.fullmatch(r"(ad|pm|pd)_\d+", self.id):
            raise ValueError(f"{where}: id must be <ad|pm|pd>_<n>")
        for name, value, valid in (
            ("level", self.level, LEVELS),
            ("answer_type", self.answer_type, ANSWER_TYPES),
            ("metric", self.metric, METRICS),
        ):
            if value not in valid:
                raise ValueError(f"{where}: {name} {value!r}; valid: {', '.join(valid)}")
        if self.metric not in _FITS[self.answer_type]:
            raise ValueError(f"{where}: metric {self.metric!r} does not fit answer type {self.answer_type!r}")
        if (self.answer_type == "category") != bool(self.categories):
            raise ValueError(f"{where}: categories are required for, and only for, a category answer")
        bad = [n for n in self.needs if n not in NEEDS]
        if bad:
            raise ValueError(f"{where}: needs {bad}; valid: {', '.join(NEEDS)}")
        if self.context_days not in (1, 7, 30):
            raise ValueError(f"{where}: context_days {self.context_days}; valid: 1, 7, 30")
        if self.sampler and _sampler_base(self.sampler) not in _SAMPLER_KEYS:
            raise ValueError(
                f"{where}: unknown sampler {self.sampler!r}; valid: {', '.join(sampler_names())}"
            )
        keys = set(_SAMPLER_KEYS[_sampler_base(self.sampler)]) if self.sampler else set()
        if self.placeholders != keys:
            raise ValueError(
                f"{where}: question placeholders {sorted(self.placeholders)} != sampler keys {sorted(keys)}"
            )

    @property
    def family(self) -> Family:
        """``ad``, ``pm`` or ``pd``, from the id."""
        return self.id.split("_")[0]  # type: ignore[return-value]

    @property
    def number(self) -> int:
        """The number in the id (``pm_14`` → 14)."""
        return int(self.id.split("_")[1])

    @property
    def placeholders(self) -> set[str]:
        """Names of the ``{placeholders}`` in the question."""
        return {f for _, f, _, _ in string.Formatter().parse(self.question) if f}

    def text(self, params: Params) -> str:
        """The question with its placeholders filled."""
        return self.question.format(**params)

    def answer_instruction(self) -> str:
        """The instruction that fixes the answer format (``{"answer": …}``)."""
        if self.instruction:
            return self.instruction
        unit = f" in {self.unit}" if self.unit else ""
        choices = ", ".join(f'"{c}"' for c in self.categories)
        return _FORMATS[self.answer_type].format(unit=unit, choices=choices)

    def applicable(self, record: PatientRecord) -> bool:
        """Whether the record holds everything the template needs."""
        have = {
            "meals": record.meals is not None,
            "boluses": record.boluses is not None,
            "insulin": record.insulin is not None,
            "exercise": record.exercise is not None,
            "faults": record.fault is not None,
            "counterfactual": record.rerun is not None,
        }
        return all(have[n] for n in self.needs)

    def context_end(self, params: Params) -> int | None:
        """Minute from the start where the model's context ends ("now" of a PD question), or None.

        None: the context is the whole record (every AD and PM template). Otherwise the model is
        shown readings at times ``t <= now`` and events before ``now`` only (``cgmqa/_now.py``).
        """
        return context_end(self.sampler, params)

    def candidates(self, record: PatientRecord) -> list[dict[str, int | str]]:
        """Every params the question can take on ``record`` (``[{}]`` without placeholders)."""
        return [{}] if self.sampler is None else candidates(self.sampler, record)

    def draw(
        self, record: PatientRecord, rng: np.random.Generator
    ) -> tuple[dict[str, int | str], Answer] | None:
        """One item's params and answer: drawn uniformly among the candidates that have an answer.

        Returns:
            ``(params, answer)``, or None when no candidate has an answer on ``record`` (the item is
            dropped). One draw of ``rng`` per call with an answer.
        """
        found = []
        for params in self.candidates(record):
            value = self.answer(record, params)
            if value is not None:
                found.append((params, value))
        if not found:
            return None
        return found[int(rng.integers(len(found)))]

    def answer(self, record: PatientRecord, params: Params) -> Answer | None:
        """The checked ground truth, or None when the record lacks what it needs or has no answer.

        Raises:
            WearbenchError: If the truth function returns a value of the wrong type (a template bug).
        """
        if not self.applicable(record):
            return None
        value = self.truth(record, params)
        if value is not None:
            check_answer(self, value)
        return value

    def tags(self) -> dict[str, Any]:
        """Every field but ``id`` and ``truth`` (JSON values), plus the family: the registry tags."""
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name not in ("id", "truth")}
        return {"family": self.family, **out}


def check_answer(t: Template, value: Answer) -> None:
    """Raise a :class:`WearbenchError` unless ``value`` has the form of ``t``'s answer type."""
    ok: bool
    kind = t.answer_type
    if kind == "number":
        ok = isinstance(value, float | int) and not isinstance(value, bool) and math.isfinite(value)
    elif kind == "integer":
        ok = isinstance(value, int) and not isinstance(value, bool)
    elif kind == "yes_no":
        ok = value in YES_NO
    elif kind == "category":
        ok = value in t.categories
    elif kind == "day_list":
        ok = _is_day_list(value)
    elif kind == "day_value_list":
        ok = isinstance(value, list) and all(
            isinstance(p, list) and len(p) == 2 and isinstance(p[0], int) for p in value
        )
    else:  # intervals: never empty (no interval means no answer, the truth returns None)
        ok = (
            isinstance(value, list)
            and bool(value)
            and all(
                isinstance(iv, dict) and set(iv) == {"start", "end"} and iv["start"] < iv["end"]
                for iv in value
            )
        )
    if not ok:
        raise WearbenchError(f"cgm_template {t.id!r}: answer {value!r} is not a valid {kind} answer")


def _is_day_list(value: object) -> bool:
    """Whether ``value`` is a list of distinct day numbers in ascending order."""
    if not isinstance(value, list) or not all(isinstance(d, int) for d in value):
        return False
    days = cast(list[int], value)
    return days == sorted(set(days))


def template(id: str, **spec: Any) -> Callable[[Truth], Truth]:
    """Register the decorated truth function as template ``id`` (fields of :class:`Template`).

    Raises:
        ValueError: If a field is invalid, or ``id`` is registered by another function.
    """

    def decorate(fn: Truth) -> Truth:
        t = Template(id=id, truth=fn, **spec)
        registry.register("cgm_template", id, fn, **t.tags())
        return fn

    return decorate


def _from_entry(entry: Entry) -> Template:
    tags = {k: v for k, v in entry.tags.items() if k != "family"}
    return Template(id=entry.name, truth=entry.obj, **tags)


def get_template(id: str) -> Template:
    """The registered template ``id``.

    Raises:
        UnknownNameError: With close matches, for an unknown id.
    """
    return _from_entry(registry.get("cgm_template", id))


def templates(family: str | None = None, level: str | None = None) -> list[Template]:
    """Registered templates, optionally of one family and level, ordered by family then number."""
    found = [_from_entry(e) for e in registry.entries("cgm_template")]
    chosen = [t for t in found if family in (None, t.family) and level in (None, t.level)]
    return sorted(chosen, key=lambda t: (FAMILIES.index(t.family), t.number))


# --- params samplers: name -> (placeholder keys, candidates); "name:arg" passes an argument ------


def _days(record: PatientRecord) -> list[dict[str, int | str]]:
    return [{"day": d} for d in range(1, record.days + 1)]


def _week_days(record: PatientRecord) -> list[dict[str, int | str]]:
    return [{"week": (d - 1) // 7 + 1, "day": (d - 1) % 7 + 1} for d in range(1, record.days + 1)]


def _meal_days(record: PatientRecord, meal_types: str) -> list[dict[str, int | str]]:
    wanted = meal_types.split("+")
    return [{"day": d} for d in range(1, record.days + 1) if all(record.meals_of(d, m) for m in wanted)]


def _meal_week_days(record: PatientRecord, meal_types: str) -> list[dict[str, int | str]]:
    days = [int(p["day"]) for p in _meal_days(record, meal_types)]
    return [{"week": (d - 1) // 7 + 1, "day": (d - 1) % 7 + 1} for d in days]


def _exercise_days(record: PatientRecord) -> list[dict[str, int | str]]:
    pairs = sorted({(day_of_minute(s.minute), s.exercise_type) for s in record.exercise or ()})
    return [{"day": d, "exercise": k} for d, k in pairs]


_SAMPLER_KEYS: dict[str, tuple[str, ...]] = {
    "day": ("day",),
    "week_day": ("week", "day"),
    "meal_day": ("day",),
    "meal_week_day": ("week", "day"),
    "exercise_day": ("day", "exercise"),
    **NOW_KEYS,
}


def _sampler_base(name: str) -> str:
    return name.split(":")[0]


def candidates(name: str, record: PatientRecord) -> list[dict[str, int | str]]:
    """Every params of sampler ``name`` on ``record``, in a fixed order (days ascending)."""
    base, _, arg = name.partition(":")
    if base in NOW_KEYS:
        return now_candidates(name, record)
    if base == "meal_day":
        return _meal_days(record, arg)
    if base == "meal_week_day":
        return _meal_week_days(record, arg)
    return {"day": _days, "week_day": _week_days, "exercise_day": _exercise_days}[base](record)


def sampler_names() -> list[str]:
    """Sampler names.

    ``meal_day`` and ``meal_week_day`` take ``:<meal_type>[+<meal_type>…]``, ``meal_now``
    ``:<meal_type>`` and ``now`` ``:<HHMM>[+<HHMM>…]``.
    """
    return sorted(_SAMPLER_KEYS)


def rounded(value: float | None, digits: int) -> float | None:
    """``value`` rounded to ``digits`` decimals, or None."""
    return None if value is None else round(float(value), digits)
