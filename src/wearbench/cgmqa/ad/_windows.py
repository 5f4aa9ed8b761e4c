"""AD templates answered by fault-label intervals inside windows set by events or the record's end.

Each row: the labels (None: any fault label) and a window function that marks the points the
question asks about (None: the record lacks them). The answer is the runs of (label in set) ∧
window, clipped at the window's edges; a record without one has no answer.

- ad_24: day 27 from its (first) lunch to 18:00, points ``lunch ≤ t < 18:00``; from 12:00 when day
  27 has no lunch (or the record no meal table).
- ad_39: the record's last 7 days, 12:00–14:00.
- ad_46: each exercise session and the hour after it, points ``start ≤ t ≤ end + 60`` (the meta
  text's reading, see ``docs/cgm-templates.md``); ``bias_basal`` = {positive_basal, negative_basal}.
- ad_55: each session, points ``start ≤ t ≤ end``.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from wearbench.cgmqa._record import PatientRecord
from wearbench.cgmqa._series import DAY_MIN, STEP_MIN, clock_mask, points_between, runs, to_intervals
from wearbench.cgmqa._template import Params, template
from wearbench.cgmqa.ad._episodes import in_days, last_days

Window = Callable[[PatientRecord], np.ndarray | None]
_H = 60


def lunch_to_evening(record: PatientRecord) -> np.ndarray | None:
    """Day 27 from its first lunch (else 12:00) to 18:00 (exclusive); None under 27 days."""
    if record.days < 27:
        return None
    lunches = record.meals_of(27, "lunch")
    start = lunches[0].minute if lunches else 26 * DAY_MIN + 12 * _H
    m = np.zeros(len(record.bg), dtype=bool)
    m[math.ceil(start / STEP_MIN) : (26 * DAY_MIN + 18 * _H) // STEP_MIN] = True
    return m


def last_week_lunchtime(record: PatientRecord) -> np.ndarray | None:
    """The last 7 days' 12:00–14:00; None under 7 days."""
    days = last_days(record, 7)
    if days is None:
        return None
    return in_days(clock_mask(len(record.bg), 12 * _H, 14 * _H), days)


def exercise_window(after: float) -> Window:
    """Points of every session from its start to ``after`` minutes past its end (inclusive)."""

    def window(record: PatientRecord) -> np.ndarray | None:
        if record.exercise is None:
            return None
        m = np.zeros(len(record.bg), dtype=bool)
        for s in record.exercise:
            m[points_between(s.minute, s.end + after)] = True
        return m

    window.__doc__ = f"every exercise session from its start to {after:g} min after its end"
    return window


@dataclass(frozen=True)
class WindowRule:
    """One label-in-window template (see the module docstring)."""

    id: str
    abilities: tuple[str, ...]
    labels: frozenset[str] | None
    window: Window
    question: str
    needs: tuple[str, ...] = ("faults",)


RULES: tuple[WindowRule, ...] = (
    WindowRule("ad_24", ("ER", "PC"), frozenset({"positive_spike"}), lunch_to_evening,
               "On day 27, between lunch and 6 pm, when did my readings spike up?"),
    WindowRule("ad_39", ("TR", "ER", "PR"), None, last_week_lunchtime,
               "In the last week, between 12 pm and 2 pm, when did my sensor or pump show any fault?"),
    WindowRule("ad_46", ("ER", "PC"),
               frozenset({"positive_basal", "negative_basal", "max_basal", "false_bolus"}),
               exercise_window(60.0),
               "During my exercise or in the hour after it, when did my pump deliver wrong or extra insulin?",
               needs=("faults", "exercise")),
    WindowRule("ad_55", ("ER", "PC"), frozenset({"positive_spike", "negative_spike"}), exercise_window(0.0),
               "During my exercise sessions, when did my readings spike up or down?",
               needs=("faults", "exercise")),
)  # fmt: skip


def _truth(rule: WindowRule) -> Callable[[PatientRecord, Params], list[dict[str, int]] | None]:
    def truth(record: PatientRecord, params: Params) -> list[dict[str, int]] | None:
        window = rule.window(record)
        if window is None or record.fault is None:
            return None
        labelled = record.fault != "" if rule.labels is None else np.isin(record.fault, list(rule.labels))
        return to_intervals(runs(labelled & window)) or None

    what = "any fault label" if rule.labels is None else ", ".join(sorted(rule.labels))
    truth.__doc__ = f"Intervals of {what} inside the window ({(rule.window.__doc__ or '').strip()})"
    truth.__qualname__ = f"window_intervals_{rule.id}"
    return truth


for _rule in RULES:
    template(
        _rule.id,
        level="pattern",
        abilities=_rule.abilities,
        answer_type="intervals",
        metric="affiliation",
        needs=_rule.needs,
        question=_rule.question,
    )(_truth(_rule))
