"""Validation findings: one :class:`Problem` per fault, collected into a :class:`ValidationReport`.

Every message is one human line that names where the problem is (file, user, date,
column, value) and what to do about it, e.g.
``daily.parquet: user u0007, 2024-03-02, resting_hr = 400 bpm is outside the plausible
range 25–150 bpm; set missing (repair)``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Problem:
    """One validation finding.

    Attributes:
        code: Machine-readable kind, e.g. ``"missing_column"``, ``"unit_scale"``,
            ``"out_of_range"``, ``"duplicate_user_day"``, ``"unknown_user"``.
        file: File (``daily.parquet``) or in-memory table (``daily``) the problem is in.
        message: One human line naming the place, the value, the valid range and the fix.
        user_id: User concerned, if any.
        date: ISO date (``YYYY-MM-DD``) concerned, if any.
        column: Column concerned, if any.
        value: Offending value (JSON scalar), if any.
    """

    code: str
    file: str
    message: str
    user_id: str | None = None
    date: str | None = None
    column: str | None = None
    value: Any = None

    def __str__(self) -> str:
        return self.message


@dataclass(frozen=True)
class ValidationReport:
    """Outcome of validating a cohort.

    Attributes:
        errors: Problems that make the cohort unusable until fixed.
        repairs: Problems that loading repairs (e.g. an out-of-range value set missing);
            each one still means the input was not clean.
        source: What was validated (a folder path or ``"<in-memory cohort>"``).
    """

    errors: tuple[Problem, ...] = ()
    repairs: tuple[Problem, ...] = ()
    source: str = "<in-memory cohort>"

    @property
    def ok(self) -> bool:
        """True when there is nothing to report: no errors and no repairs."""
        return not self.errors and not self.repairs

    @property
    def problems(self) -> tuple[Problem, ...]:
        """Errors followed by repairs."""
        return self.errors + self.repairs

    def lines(self) -> list[str]:
        """One human line per problem, errors first."""
        return [p.message for p in self.problems]

    def codes(self) -> list[str]:
        """The problem codes, errors first (handy in tests and summaries)."""
        return [p.code for p in self.problems]


@dataclass
class Findings:
    """Mutable accumulator used while validating (internal).

    Attributes:
        errors: Error problems found so far.
        repairs: Repair problems found so far.
        masks: ``(table, column)`` → boolean row mask of values to set missing on repair.
    """

    errors: list[Problem] = field(default_factory=list)
    repairs: list[Problem] = field(default_factory=list)
    masks: dict[tuple[str, str], np.ndarray] = field(default_factory=dict)

    def error(self, code: str, file: str, message: str, *, sep: str = ", ", **where: Any) -> None:
        """Record an error; ``message`` is prefixed with the location from ``where`` and ``sep``."""
        self.errors.append(_make(code, file, message, where, sep))

    def repair(self, code: str, file: str, message: str, *, sep: str = ", ", **where: Any) -> None:
        """Record a repair; ``message`` is prefixed with the location from ``where`` and ``sep``."""
        self.repairs.append(_make(code, file, message, where, sep))

    def extend(self, other: Findings) -> None:
        """Append everything ``other`` found."""
        self.errors.extend(other.errors)
        self.repairs.extend(other.repairs)
        self.masks.update(other.masks)

    def report(self, source: str) -> ValidationReport:
        """Freeze into a :class:`ValidationReport`."""
        return ValidationReport(tuple(self.errors), tuple(self.repairs), source)


def _make(code: str, file: str, message: str, where: dict[str, Any], sep: str) -> Problem:
    user = where.get("user_id")
    date = where.get("date")
    loc = ", ".join(x for x in (f"user {user}" if user is not None else None, date) if x)
    head = f"{file}: {loc}{sep}" if loc else f"{file}: "
    return Problem(
        code=code,
        file=file,
        message=head + message,
        user_id=None if user is None else str(user),
        date=None if date is None else str(date),
        column=where.get("column"),
        value=json_scalar(where.get("value")),
    )


def json_scalar(value: Any) -> Any:
    """Convert numpy / pandas scalars to plain JSON values (NaN → ``None``)."""
    if value is None:
        return None
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None if math.isnan(value) else str(value)
    if isinstance(value, bool | int | float | str):
        return value
    return str(value)


def fmt_value(value: Any) -> str:
    """Format a value for a message: numbers compactly, strings quoted."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "NaN"
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return f"{value:.6g}"
    return repr(value)


def fmt_range(lo: float, hi: float, unit: str) -> str:
    """``"25–150 bpm"``."""
    return f"{fmt_value(float(lo))}–{fmt_value(float(hi))} {unit}".rstrip()


def iso_date(value: Any) -> str | None:
    """ISO ``YYYY-MM-DD`` of a date-like value, ``None`` for missing or unparseable."""
    if value is None:
        return None
    try:
        ts = np.datetime64(value, "D")
    except (ValueError, TypeError):
        return str(value)
    if np.isnat(ts):
        return None
    return str(ts)
