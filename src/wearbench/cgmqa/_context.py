"""What the model is shown for a CGM item: a day window of one patient's readings and events.

A benchmark record is at most :data:`WINDOW_DAYS` days: a longer record (real data runs for
months) is cut to the 30 consecutive whole days holding the most CGM readings, the earliest such
window on a tie; a record of 30 days or fewer is kept whole. On real data the window must end on
a complete day (at least :data:`COMPLETE_DAY_READINGS`, 80 % of 288 readings): the last day is
the future the PD templates hold out, and a partial last calendar day (a sensor removed at noon)
would drop them (:func:`record_window`). A template with ``context_days``
shorter than that record is asked about, and shown, the record's last ``context_days`` days.
Truth and context are computed on the same window, renumbered from day 1 00:00 = minute 0.

Each window is written as two xz-compressed CSV files (:data:`CONTEXT_SUFFIX`; deterministic
bytes; a missing reading as an empty cell). Values are written at the precision a prompt shows
(:data:`DECIMALS`: glucose to 0.1 mg/dL, the insulin rate to 0.01 mU/min, event amounts to 0.01,
trailing zeros dropped; minutes and durations in shortest round-trip form). The answers are
computed from the unrounded data folder, never from these files. Read them with
:func:`open_context` (or ``pandas.read_csv``, which infers the compression from the suffix):

- ``<key>.readings.csv.xz``: ``minute,day,time,glucose_mgdl[,insulin_mu_per_min]``, one row per
  5-minute point (``insulin_mu_per_min`` only when the record has insulin per point);
- ``<key>.events.csv.xz``: ``minute,day,time,kind,type,amount,unit,duration_min``, one row per meal
  (``amount`` carbohydrate, g), carbs eaten to treat a low (``kind`` ``treatment``, ``type``
  ``hypo_treatment``, g; not a meal), bolus (insulin, U) and exercise session (speed, km/h, for running;
  power, W, for cycling; ``duration_min``), in time order, meals before boluses before sessions at
  the same minute.

A prediction item is shown only the past: its window carries ``until``, the minute "now" from
the window's start (:meth:`Template.context_end`), and its files (``<key>_until<minute>``, shared by
the items of a patient with the same window and now) hold
the readings at times ``t <= now``, the insulin samples that end by now (a sample at ``t`` is the
mean rate over ``[t, t + 5)``, so the one at ``t = now`` is left empty) and the events that start
before now. Nothing later is written.

Fault and hazard labels are never shown: they are what the AD templates ask about.
"""

from __future__ import annotations

import io
import lzma
import math
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from wearbench._errors import WearbenchError
from wearbench.cgmqa._record import PatientRecord
from wearbench.cgmqa._series import DAY_MIN, POINTS_PER_DAY, STEP_MIN
from wearbench.cgmqa._template import Template

#: Longest record a benchmark item is asked about, days.
WINDOW_DAYS = 30
_UNITS = {"running": "km/h", "cycling": "W"}
#: Least readings of a complete day (80 % of 288): a real record's window ends on one.
COMPLETE_DAY_READINGS = math.ceil(0.8 * POINTS_PER_DAY)
#: Suffix of a context file: CSV, xz-compressed.
CONTEXT_SUFFIX = ".csv.xz"
#: Decimals a context file keeps per column (the precision a prompt shows; trailing zeros dropped).
DECIMALS: dict[str, int] = {"glucose_mgdl": 1, "insulin_mu_per_min": 2, "amount": 2}
#: xz preset of the context files (6, the xz default: a third smaller than gzip on these files).
XZ_PRESET = 6


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


def day_readings(record: PatientRecord) -> np.ndarray:
    """Readings per day of a record (``int`` array of ``record.days``; at most 288 a day)."""
    counts: np.ndarray = np.isfinite(record.bg).reshape(record.days, POINTS_PER_DAY).sum(axis=1)
    return counts


def record_window(record: PatientRecord, days: int = WINDOW_DAYS, *, complete_end: bool = False) -> Window:
    """The benchmark window of a whole record: the ``days`` consecutive days with the most readings.

    The earliest window wins a tie; a record of ``days`` days or fewer is kept whole. With
    ``complete_end`` (real data, whose last day is the held-out future of the PD templates) the
    window must end on a complete day (:data:`COMPLETE_DAY_READINGS` readings or more): the
    windows considered are, for each complete day ``e``, days ``max(1, e − days + 1)`` … ``e``, and
    the one with the most readings wins (the earliest on a tie). So a short record whose last
    calendar day is partial ends on its last complete day instead. A record with no complete day
    is treated as without ``complete_end``.
    """
    per_day = [int(n) for n in day_readings(record)]
    complete = [d for d, n in enumerate(per_day, start=1) if n >= COMPLETE_DAY_READINGS]
    if complete_end and complete:
        totals = [sum(per_day[max(0, e - days) : e]) for e in complete]
        end = complete[totals.index(max(totals))]  # the earliest on a tie
        first = max(1, end - days + 1)
        return Window(record.subject, first, end - first + 1)
    if record.days <= days:
        return Window(record.subject, 1, record.days)
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


def _fixed(value: float, column: str) -> str:
    """``value`` to :data:`DECIMALS` of ``column``, trailing zeros dropped; NaN as empty; no ``-0``."""
    if not math.isfinite(value):
        return ""
    text = f"{value:.{DECIMALS[column]}f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


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
        row = f"{i * STEP_MIN},{day},{clock},{_fixed(value, 'glucose_mgdl')}"
        if ins is not None:
            shown = until is None or (i + 1) * STEP_MIN <= until
            row = f"{row},{_fixed(ins[i], 'insulin_mu_per_min') if shown else ''}"
        lines.append(row)
    return ("\n".join(lines) + "\n").encode("utf-8")


def _event_rows(record: PatientRecord) -> list[tuple[float, int, list[str]]]:
    rows = [
        (m.minute, 0, ["meal" if m.is_meal else "treatment", m.meal_type, _fixed(m.carbs, "amount"), "g", ""])
        for m in record.meals or ()
    ]
    rows += [
        (b.minute, 1, ["bolus", b.insulin_type, _fixed(b.dosage, "amount"), "U", ""])
        for b in record.boluses or ()
    ]
    for s in record.exercise or ():
        unit = _UNITS.get(s.exercise_type, "")
        amount = _fixed(s.magnitude, "amount")
        rows.append((s.minute, 2, ["exercise", s.exercise_type, amount, unit, _num(s.duration)]))
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


def context_texts(record: PatientRecord, window: Window, folder: str) -> dict[str, bytes]:
    """``{relative path: uncompressed CSV bytes}`` of one window's context files (under ``folder``).

    Args:
        record: The whole record of the data folder.
        window: The window shown.
        folder: Folder of the context files inside the benchmark (``contexts``).
    """
    cut = window.cut(record)
    ref = context_ref(window, folder)
    return {ref["readings"]: readings_csv(cut, window.until), ref["events"]: events_csv(cut, window.until)}


def compress_context(data: bytes) -> bytes:
    """The bytes of a context file: ``data`` xz-compressed (:data:`XZ_PRESET`; deterministic)."""
    return lzma.compress(data, format=lzma.FORMAT_XZ, preset=XZ_PRESET)


def context_files(record: PatientRecord, window: Window, folder: str) -> dict[str, bytes]:
    """``{relative path: bytes}`` of one window's context files, compressed, as the artifact holds them.

    Args:
        record: The whole record of the data folder.
        window: The window shown.
        folder: Folder of the context files inside the benchmark (``contexts``).
    """
    return {name: compress_context(data) for name, data in context_texts(record, window, folder).items()}


def read_context_bytes(path: Path) -> bytes:
    """The uncompressed CSV bytes of a context file (``.csv.xz``; a plain ``.csv`` as it is).

    Raises:
        WearbenchError: If the file is missing or not valid xz, naming it.
    """
    try:
        data = path.read_bytes()
        return lzma.decompress(data) if path.name.endswith(".xz") else data
    except (OSError, lzma.LZMAError) as e:
        raise WearbenchError(f"{path}: cannot read the context ({e})") from e


def open_context(path: Path) -> TextIO:
    """A context file opened as UTF-8 text for :mod:`csv` (``newline=""``), decompressed.

    Raises:
        WearbenchError: If the file is missing or not valid xz, naming it.
    """
    return io.StringIO(read_context_bytes(path).decode("utf-8"), newline="")


def context_ref(window: Window, folder: str) -> dict[str, Any]:
    """An item's ``context``: its files and the window shown.

    A prediction item's window ends at "now": the reference then carries ``until_minute`` (minutes
    from the window's start), and its files hold nothing later.
    """
    ref: dict[str, Any] = {
        "readings": f"{folder}/{window.key}.readings{CONTEXT_SUFFIX}",
        "events": f"{folder}/{window.key}.events{CONTEXT_SUFFIX}",
        "first_day": window.first_day,
        "days": window.days,
    }
    if window.until is not None:
        ref["until_minute"] = window.until
    return ref
