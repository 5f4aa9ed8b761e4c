"""Fault plans from CSV.

Columns: ``patient`` (optional), ``start`` (minute), ``duration`` (min), ``label``, ``description``
(optional), ``intensity`` (optional, default 0.5) and ``magnitude`` (optional: the size in the
fault's unit, empty for the intensity-based size).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from wearbench._errors import UnknownNameError, WearbenchError
from wearbench._registry import registry
from wearbench.sim.faults._plan import FaultEvent, FaultPlan

_REQUIRED = ("start", "duration", "label")


def _int(path: Path, line: int, column: str, raw: object, low: int) -> int:
    try:
        value = float(str(raw))
    except ValueError:
        value = float("nan")
    if not value == value or value != int(value) or value < low:
        raise WearbenchError(f"{path}: line {line}: column {column}: {raw!r} is not a whole number >= {low}")
    return int(value)


def _magnitude(path: Path, line: int, raw: str) -> float | None:
    if not raw or raw.lower() == "nan":
        return None
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not math.isfinite(value):
        raise WearbenchError(f"{path}: line {line}: column magnitude: {raw!r} is not a finite number")
    return value


def faults_from_csv(path: Path, patients: Sequence[str], minutes: int | None = None) -> FaultPlan:
    """Read a fault plan (see :meth:`FaultPlan.to_frame` for the format it round-trips with).

    Args:
        path: CSV file.
        patients: Patient names of the run; ``patient`` cells name one (every copy of a repeated
            name gets the fault) or give a 0-based index. Without the column each fault hits every
            patient.
        minutes: Minutes in the run, to check intervals (``None``: not checked).

    Raises:
        WearbenchError: One line naming the CSV line and column of the first problem.
    """
    try:
        table = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (OSError, ValueError) as e:
        raise WearbenchError(f"{path}: not a readable faults CSV ({e})") from e
    missing = [c for c in _REQUIRED if c not in table.columns]
    if missing:
        raise WearbenchError(f"{path}: line 1: missing column(s) {', '.join(missing)}")
    events: list[FaultEvent] = []
    for i, row in enumerate(table.to_dict("records")):
        line = i + 2
        start = _int(path, line, "start", row["start"], 0)
        duration = _int(path, line, "duration", row["duration"], 1)
        label = str(row["label"]).strip()
        try:
            entry = registry.get("fault", label)
        except UnknownNameError as e:
            raise WearbenchError(f"{path}: line {line}: column label: {e}") from None
        raw = str(row.get("intensity", "")).strip()
        try:
            intensity = float(raw) if raw else 0.5
        except ValueError:
            intensity = float("nan")
        if not 0.0 <= intensity <= 1.0:
            raise WearbenchError(f"{path}: line {line}: column intensity: {raw!r} is not in [0, 1]")
        if minutes is not None and start + duration > minutes:
            raise WearbenchError(
                f"{path}: line {line}: column duration: interval ends after minute {minutes}"
            )
        magnitude = _magnitude(path, line, str(row.get("magnitude", "")).strip())
        if magnitude is not None and "size" not in entry.tags:
            raise WearbenchError(f"{path}: line {line}: column magnitude: {label} takes no magnitude")
        who = str(row.get("patient", "")).strip()
        if not who:
            targets = list(range(len(patients)))
        elif who in patients:
            targets = [k for k, name in enumerate(patients) if name == who]
        elif who.isdigit() and int(who) < len(patients):
            targets = [int(who)]
        else:
            raise WearbenchError(f"{path}: line {line}: column patient: {who!r} is not a simulated patient")
        description = str(row.get("description", ""))
        events += [FaultEvent(p, start, duration, label, intensity, description, magnitude) for p in targets]
    plan = FaultPlan(tuple(events))
    try:
        plan.check(len(patients), minutes if minutes is not None else max((e.end for e in events), default=0))
    except WearbenchError as e:
        raise WearbenchError(f"{path}: {e}") from None
    return plan
