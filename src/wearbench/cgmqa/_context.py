"""What the model is shown for a CGM item: a day window of one patient's readings and events.

A benchmark record is at most :data:`WINDOW_DAYS` days: a longer record (real data runs for
months) is cut to the 30 consecutive whole days holding the most CGM readings, the earliest such
window on a tie; a record of 30 days or fewer is kept whole. A template with ``context_days``
shorter than that record is asked about, and shown, the record's last ``context_days`` days.
Truth and context are computed on the same window, renumbered from day 1 00:00 = minute 0.

Each window is written as two CSV files (deterministic bytes; floats in shortest round-trip form,
a missing reading as an empty cell):

- ``<key>.readings.csv``: ``minute,day,time,glucose_mgdl[,insulin_mu_per_min]``, one row per
  5-minute point (``insulin_mu_per_min`` only when the record has insulin per point);
- ``<key>.events.csv``: ``minute,day,time,kind,type,amount,unit,duration_min``, one row per meal
  (``amount`` carbohydrate, g), carbs eaten to treat a low (``kind`` ``treatment``, ``type``
  ``hypo_treatment``, g; not a meal), bolus (insulin, U) and exercise session (speed, km/h, for running;
  power, W, for cycling; ``duration_min``), in time order, meals before boluses before sessions at
  the same minute.

A prediction item is shown only the past: its window carries ``until``, the minute "now" from
the window's start (:meth:`Template.context_end`), and its files (``<key>_until<minute>``) hold
the readings at times ``t <= now``, the insulin samples that end by now (a sample at ``t`` is the
mean rate over ``[t, t + 5)``, so the one at ``t = now`` is left empty) and the events that start
before now. Nothing later is written.

Fault and hazard labels are never shown: they are what the AD templates ask about.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from wearbench.cgmqa._record import PatientRecord
from wearbench.cgmqa._series import DAY_MIN, POINTS_PER_DAY, STEP_MIN
from wearbench.cgmqa._template import Template

#: Longest record a benchmark item is asked about, days.
WINDOW_DAYS = 30
_UNITS = {"running": "km/h", "cycling": "W"}


@dataclass(frozen=True)
class Window:
    """Days ``first_day`` … ``first_day + days − 1`` (1-based, of the record in the data folder).

    Attributes:
        subject: Subject id.
        first_day: First day, 1-based.
        days: Whole days.
        until: Where the context shown ends ("now" of a prediction item), minutes from the
            window's start; None: the whole window is shown. The truth is computed on the whole
            window either way.
    """

    subject: str
    first_day: int
    days: int
    until: int | None = None

    @property
    def last_day(self) -> int:
        """Last day, 1-based."""
        return self.first_day + self.days - 1

    @property
    def key(self) -> str:
        """File stem of the window's context: the subject made file-safe, then the days."""
        safe = re.sub(r"[^A-Za-z0-9_.-]", "_", self.subject)
        stem = f"{safe}_d{self.first_day}-{self.last_day}"
        return stem if self.until is None else f"{stem}_until{self.until}"

    def ending(self, until: int | None) -> Window:
        """This window with its context ending at minute ``until`` (None: the whole window)."""
        return replace(self, until=until)

    def cut(self, record: PatientRecord) -> PatientRecord:
        """``record`` (the whole one of the data folder) cut to this window, renumbered from day 1."""
        if self.first_day == 1 and self.days == record.days:
            return record
        return record.window(self.first_day, self.days)


def record_window(record: PatientRecord, days: int = WINDOW_DAYS) -> Window:
    """The benchmark window of a whole record: the ``days`` consecutive days with the most readings.

    The earliest window wins a tie; a record of ``days`` days or fewer is kept whole.
    """
    if record.days <= days:
        return Window(record.subject, 1, record.days)
    per_day = np.isfinite(record.bg).reshape(record.days, POINTS_PER_DAY).sum(axis=1)
    sums = np.convolve(per_day, np.ones(days, dtype=np.int64), mode="valid")
    return Window(record.subject, int(np.argmax(sums)) + 1, days)


def item_window(base: Window, t: Template) -> Window:
    """The window of one item: the last ``t.context_days`` days of ``base`` (``base`` if shorter)."""
    if t.context_days >= base.days:
        return base
    return Window(base.subject, base.last_day - t.context_days + 1, t.context_days)


def _num(value: float) -> str:
    """Shortest round-trip text of a number; an integral value without ``.0``; NaN as empty."""
    if not math.isfinite(value):
        return ""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def _clock(minute: float) -> tuple[int, str]:
    """(1-based day, ``HH:MM``) of a minute from the start."""
    m = int(minute)
    return m // DAY_MIN + 1, f"{m % DAY_MIN // 60:02d}:{m % 60:02d}"


def readings_csv(record: PatientRecord, until: int | None = None) -> bytes:
    """The readings file of a (cut) record, up to minute ``until`` if given (module docstring)."""
    header = "minute,day,time,glucose_mgdl" + (",insulin_mu_per_min" if record.insulin is not None else "")
    lines = [header]
    n = len(record.bg) if until is None else min(len(record.bg), until // STEP_MIN + 1)
    bg = record.bg[:n].tolist()
    ins = None if record.insulin is None else record.insulin[:n].tolist()
    for i, value in enumerate(bg):
        day, clock = _clock(i * STEP_MIN)
        row = f"{i * STEP_MIN},{day},{clock},{_num(value)}"
        if ins is not None:
            shown = until is None or (i + 1) * STEP_MIN <= until
            row = f"{row},{_num(ins[i]) if shown else ''}"
        lines.append(row)
    return ("\n".join(lines) + "\n").encode("utf-8")


def _event_rows(record: PatientRecord) -> list[tuple[float, int, list[str]]]:
    rows = [
        (m.minute, 0, ["meal" if m.is_meal else "treatment", m.meal_type, _num(m.carbs), "g", ""])
        for m in record.meals or ()
    ]
    rows += [(b.minute, 1, ["bolus", b.insulin_type, _num(b.dosage), "U", ""]) for b in record.boluses or ()]
    for s in record.exercise or ():
        unit = _UNITS.get(s.exercise_type, "")
        rows.append((s.minute, 2, ["exercise", s.exercise_type, _num(s.magnitude), unit, _num(s.duration)]))
    return sorted(rows, key=lambda r: (r[0], r[1]))


def _cell(text: str) -> str:
    """A CSV cell: quoted when it holds a comma, quote or line break."""
    if any(c in text for c in ',"\n\r'):
        return '"' + text.replace('"', '""') + '"'
    return text


def events_csv(record: PatientRecord, until: int | None = None) -> bytes:
    """The events file of a (cut) record: the events starting before minute ``until`` if given."""
    lines = ["minute,day,time,kind,type,amount,unit,duration_min"]
    for minute, _, cells in _event_rows(record):
        if until is not None and minute >= until:
            break
        day, clock = _clock(minute)
        lines.append(",".join([_num(minute), str(day), clock, *(_cell(c) for c in cells)]))
    return ("\n".join(lines) + "\n").encode("utf-8")


def context_files(record: PatientRecord, window: Window, folder: str) -> dict[str, bytes]:
    """``{relative path: bytes}`` of one window's context files (under ``folder``).

    Args:
        record: The whole record of the data folder.
        window: The window shown.
        folder: Folder of the context files inside the benchmark (``contexts``).
    """
    cut = window.cut(record)
    return {
        f"{folder}/{window.key}.readings.csv": readings_csv(cut, window.until),
        f"{folder}/{window.key}.events.csv": events_csv(cut, window.until),
    }


def context_ref(window: Window, folder: str) -> dict[str, Any]:
    """An item's ``context``: its files and the window shown.

    A prediction item's window ends at "now": the reference then carries ``until_minute`` (minutes
    from the window's start), and its files hold nothing later.
    """
    ref: dict[str, Any] = {
        "readings": f"{folder}/{window.key}.readings.csv",
        "events": f"{folder}/{window.key}.events.csv",
        "first_day": window.first_day,
        "days": window.days,
    }
    if window.until is not None:
        ref["until_minute"] = window.until
    return ref
