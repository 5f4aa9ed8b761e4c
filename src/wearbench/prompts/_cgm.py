"""The seed's *structured* prompt for HealthLoopQA items: readings, then events, in sections.

One system message and one user message. The user message has a ``## CGM readings`` section (the
item's context readings file, as CSV), a ``## Events`` section with one sub-section per kind of
event (meals, boluses, exercise, hypo treatments; ``none`` where there is none), and the question
with its answer instruction. The 30-, 7- and 1-day variants show the last 30, 7 or 1 days of the
item's context; a prediction item's context ends at its "now" (``until_minute``), so a variant
shows the days up to now. Values are rounded for the prompt (:data:`PROMPT_DECIMALS`: glucose to
0.1 mg/dL, the insulin rate to 0.01 mU/min, event amounts to 0.01), the precision the context
files are stored at (``cgmqa._context.DECIMALS``). The answers are computed
from the unrounded values, so a count against a threshold can differ from the shown values when a
reading lies within 0.05 mg/dL of it. ``docs/cgm-eval.md`` shows an example.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wearbench.cgmqa import DAY_MIN, open_context
from wearbench.models import Message

#: The structured prompt's variants: days of context shown.
CGM_CONTEXT_DAYS: tuple[int, ...] = (30, 7, 1)

CGM_SYSTEM = (
    "You are a careful analyst of continuous glucose monitor (CGM) data from a person with type 1 "
    "diabetes. Answer the question from the data shown. Reply with JSON only, exactly in the format "
    "the instruction gives."
)

#: Event sections in order: (kind in the events file, heading, what ``amount`` means).
_EVENT_SECTIONS: tuple[tuple[str, str, str], ...] = (
    ("meal", "Meals", "carbohydrate eaten"),
    ("bolus", "Insulin boluses", "insulin delivered"),
    ("exercise", "Exercise", "speed (running) or power (cycling), held for duration_min minutes"),
    ("treatment", "Hypoglycaemia treatments", "fast carbohydrate taken to treat a low"),
)
_EVENT_COLUMNS = ("minute", "day", "time", "type", "amount", "unit", "duration_min")
#: Decimals a prompt shows per context column (other columns are shown as stored).
PROMPT_DECIMALS: dict[str, int] = {"glucose_mgdl": 1, "insulin_mu_per_min": 2, "amount": 2}


def read_context_csv(path: Path) -> tuple[list[str], list[dict[str, str]]]:
    """Header and rows of a context CSV file (``.csv.xz``, decompressed; ``cgmqa.open_context``).

    Raises:
        WearbenchError: If the file cannot be read.
    """
    reader = csv.DictReader(open_context(path))
    rows = list(reader)
    return list(reader.fieldnames or ()), rows


def _shown(rows: Sequence[Mapping[str, str]], start: int, end: int) -> list[Mapping[str, str]]:
    """Rows with ``start <= minute < end`` (an event's minute may be fractional on real data)."""
    return [r for r in rows if start <= float(r["minute"]) < end]


def shown_minutes(item: Mapping[str, Any], days: int | None) -> tuple[int, int]:
    """``[start, end)`` in minutes of what a variant shows of the item's context.

    The context ends at the window's end, or just after ``until_minute`` for a prediction item;
    ``days`` (None: all of it) counts back from there, never before minute 0.
    """
    ctx = item["context"]
    end = int(ctx["until_minute"]) + 1 if "until_minute" in ctx else DAY_MIN * int(ctx["days"])
    return (0 if days is None else max(0, end - DAY_MIN * days)), end


def prompt_value(column: str, value: str | None) -> str:
    """A context value as the prompt shows it (rounded per :data:`PROMPT_DECIMALS`; "" stays "")."""
    if not value or column not in PROMPT_DECIMALS:
        return value or ""
    digits = PROMPT_DECIMALS[column]
    return f"{float(value):.{digits}f}".rstrip("0").rstrip(".")


def _table(columns: Sequence[str], rows: Sequence[Mapping[str, str]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    writer.writerows([prompt_value(c, r.get(c)) for c in columns] for r in rows)
    return out.getvalue().rstrip("\n")


def _readings_section(header: Sequence[str], rows: Sequence[Mapping[str, str]]) -> list[str]:
    lines = [
        "## CGM readings",
        "",
        "One row per 5 minutes. minute: minutes from day 1 00:00 (minute 0); glucose_mgdl: sensor "
        "glucose in mg/dL (an empty cell is a missing reading)"
        + ("; insulin_mu_per_min: insulin delivered by the pump, mean rate in mU/min over the 5 minutes"
           if "insulin_mu_per_min" in header else "")
        + ".",
        "",
        _table(header, rows),
    ]  # fmt: skip
    return lines


def _events_section(rows: Sequence[Mapping[str, str]]) -> list[str]:
    lines = ["## Events", ""]
    for kind, heading, amount in _EVENT_SECTIONS:
        mine = [r for r in rows if r["kind"] == kind]
        lines += [f"### {heading}", ""]
        lines += [f"amount: {amount}.", "", _table(_EVENT_COLUMNS, mine)] if mine else ["none"]
        lines.append("")
    return lines


#: A cache of read context files: path → header and rows.
ContextFiles = dict[Path, tuple[list[str], list[dict[str, str]]]]


@dataclass(frozen=True)
class ShownContext:
    """What a variant shows of an item's context: ``[start, end)`` in minutes and its rows.

    Attributes:
        start: First minute shown.
        end: Minute just after the last one shown.
        header: Columns of the readings file.
        readings: Reading rows with ``start <= minute < end``.
        events: Event rows with ``start <= minute < end``.
        events_header: Columns of the events file.
    """

    start: int
    end: int
    header: list[str]
    readings: list[Mapping[str, str]]
    events: list[Mapping[str, str]]
    events_header: list[str]


def shown_context(
    item: Mapping[str, Any], bench: Path, days: int | None, files: ContextFiles | None = None
) -> ShownContext:
    """The readings and events a variant shows (see :func:`shown_minutes`).

    Raises:
        WearbenchError: If a context file cannot be read.
    """
    cache = {} if files is None else files

    def read(which: str) -> tuple[list[str], list[dict[str, str]]]:
        path = bench / str(item["context"][which])
        if path not in cache:
            cache[path] = read_context_csv(path)
        return cache[path]

    start, end = shown_minutes(item, days)
    header, readings = read("readings")
    events_header, events = read("events")
    return ShownContext(
        start, end, header, _shown(readings, start, end), _shown(events, start, end), events_header
    )


def chat_messages(item: Mapping[str, Any], shown: ShownContext, data: Sequence[str]) -> list[Message]:
    """The system message and a user message: the days shown, ``data`` lines, then the question."""
    first, last = shown.start // DAY_MIN + 1, (shown.end - 1) // DAY_MIN + 1
    body = [
        f"Data of days {first}-{last} (day 1 starts at minute 0).",
        "",
        *data,
        "## Question",
        "",
        str(item["question"]),
        "",
        str(item["instruction"]),
    ]
    return [Message("system", CGM_SYSTEM), Message("user", "\n".join(body))]


def cgm_messages(
    item: Mapping[str, Any],
    bench: Path,
    days: int | None = None,
    *,
    files: ContextFiles | None = None,
) -> list[Message]:
    """The structured prompt of one HealthLoopQA item.

    Args:
        item: The item as stored in ``items.jsonl`` (``context``, ``question``, ``instruction``).
        bench: The benchmark folder (context paths are relative to it).
        days: Days of context shown, counted back from the context's end (30, 7, 1; None: all).
        files: A cache of read context files (path → header and rows), filled as files are read.

    Returns:
        A system and a user message.

    Raises:
        WearbenchError: If a context file cannot be read.
    """
    shown = shown_context(item, bench, days, files)
    data = [*_readings_section(shown.header, shown.readings), "", *_events_section(shown.events)]
    return chat_messages(item, shown, data)
