"""The seed's *timelined* prompt for HealthLoopQA items: the events under each timestamp.

Where the structured prompt (``prompts/_cgm.py``) lists the readings, then each kind of event in
its own section, the timelined prompt is one chronological listing under a ``## Timeline``
heading: one line per timestamp, ``day D HH:MM (minute M):``, then what was recorded at that
minute: the 5-minute reading (``glucose`` in mg/dL, ``missing`` for a missing reading, and the
pump's ``insulin`` rate in mU/min where the record has it), then that minute's events (``meal``
with its type and grams, ``bolus`` units, ``exercise`` kind, speed or power and duration,
``hypo treatment`` grams), separated by ``; ``. An event between two readings gets its own line
at its own minute. Everything else is shared with the structured prompt: the system message,
the question, the 30-, 7- and 1-day variants and the cut at a prediction item's "now"
(:func:`~wearbench.prompts.shown_minutes`), and the rounding (:data:`PROMPT_DECIMALS`).
``docs/cgm-eval.md`` shows an example.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from wearbench._errors import WearbenchError
from wearbench.models import Message
from wearbench.prompts._cgm import ContextFiles, cgm_messages, chat_messages, prompt_value, shown_context

#: The HealthLoopQA chat prompts, by name (``wearbench eval --prompt``).
CGM_PROMPTS: tuple[str, ...] = ("structured", "timelined")

#: How an event kind is named on the timeline (the events file's ``kind``; others as stored).
_EVENT_NAMES: dict[str, str] = {"treatment": "hypo treatment"}

_LEGEND = (
    "One line per timestamp, in time order: day, time of day and minute from day 1 00:00 "
    "(minute 0), then what was recorded at that minute. Every 5 minutes a reading: glucose, the "
    "sensor glucose in mg/dL (missing: no reading){insulin}. Events at the minute they started: "
    "meal (type, carbohydrate eaten), bolus (insulin delivered), exercise (kind, speed for running "
    "or power for cycling, and how long it was held), hypo treatment (fast carbohydrate taken to "
    "treat a low)."
)
_INSULIN = "; insulin, the insulin delivered by the pump, mean rate in mU/min over the 5 minutes"


def _reading(row: Mapping[str, str]) -> str:
    glucose = prompt_value("glucose_mgdl", row.get("glucose_mgdl"))
    parts = [f"glucose {glucose or 'missing'}"]
    insulin = prompt_value("insulin_mu_per_min", row.get("insulin_mu_per_min"))
    if insulin:
        parts.append(f"insulin {insulin}")
    return ", ".join(parts)


def _event(row: Mapping[str, str]) -> str:
    """One event as the timeline shows it, e.g. ``exercise running 7.8 km/h for 43 min``."""
    name = _EVENT_NAMES.get(row["kind"], row["kind"])
    kind = row.get("type", "")
    words = [name]
    if kind and kind.replace("_", " ") != name:
        words.append(kind)
    amount = prompt_value("amount", row.get("amount"))
    if amount:
        words.append(f"{amount} {row.get('unit', '')}".rstrip())
    if row.get("duration_min"):
        words.append(f"for {row['duration_min']} min")
    return " ".join(words)


def _stamp(row: Mapping[str, str]) -> str:
    return f"day {row['day']} {row['time']} (minute {row['minute']}):"


def timeline_lines(readings: Sequence[Mapping[str, str]], events: Sequence[Mapping[str, str]]) -> list[str]:
    """One line per timestamp, in time order: its reading (if any), then its events.

    At one minute the events keep their file order (meals before boluses before exercise).
    """
    entries = sorted(
        [(float(r["minute"]), 0, r) for r in readings] + [(float(e["minute"]), 1, e) for e in events],
        key=lambda entry: entry[:2],
    )  # a stable sort: events at one minute stay in file order
    lines = []
    for _, group in itertools.groupby(entries, key=lambda entry: entry[0]):
        at = list(group)
        parts = [_reading(row) if is_event == 0 else _event(row) for _, is_event, row in at]
        lines.append(f"{_stamp(at[0][2])} " + "; ".join(parts))
    return lines


def cgm_timeline_messages(
    item: Mapping[str, Any],
    bench: Path,
    days: int | None = None,
    *,
    files: ContextFiles | None = None,
) -> list[Message]:
    """The timelined prompt of one HealthLoopQA item: arguments, result and errors as :func:`cgm_messages`."""
    shown = shown_context(item, bench, days, files)
    legend = _LEGEND.format(insulin=_INSULIN if "insulin_mu_per_min" in shown.header else "")
    data = ["## Timeline", "", legend, "", *timeline_lines(shown.readings, shown.events), ""]
    return chat_messages(item, shown, data)


def cgm_prompt(name: str) -> Callable[..., list[Message]]:
    """The message function of a HealthLoopQA prompt (:data:`CGM_PROMPTS`).

    Raises:
        WearbenchError: For an unknown prompt name.
    """
    if name == "structured":
        return cgm_messages
    if name == "timelined":
        return cgm_timeline_messages
    raise WearbenchError(f"prompt {name!r}: expected one of {', '.join(CGM_PROMPTS)}")
