"""PM templates on exercise sessions (pm_28–pm_37).

The session of "my {exercise} on day {day}" is the first session of that type starting that day.
For a session from ``s`` to ``e = s + duration`` (minutes from the start):

- *pre-exercise* glucose: the last valid reading at or before ``s``, at most 30 minutes earlier;
- *during*: the points with ``s ≤ t ≤ e``;
- *N minutes after*: the points with ``e < t ≤ e + N``.

Every window must lie inside the record; a window without a valid reading has no answer.
"""

from __future__ import annotations

import math

import numpy as np

from wearbench.cgmqa._record import Exercise, PatientRecord
from wearbench.cgmqa._series import (
    STEP_MIN,
    cv_percent,
    day_of_minute,
    first_argmin,
    first_reading_from,
    last_reading_before,
    points_after,
    points_between,
    valid,
)
from wearbench.cgmqa._template import Params, template

_ABILITIES = ("ER", "TR", "QC")
_SPEC = {"level": "memory", "needs": ("exercise",), "sampler": "exercise_day"}


def session(record: PatientRecord, params: Params) -> Exercise | None:
    """The first ``params["exercise"]`` session starting on ``params["day"]``, or None."""
    found = record.sessions_of(int(params["day"]), str(params["exercise"]))
    return found[0] if found else None


def _inside(record: PatientRecord, pts: slice) -> np.ndarray | None:
    """The readings of ``pts``, or None when the window runs past the record or holds no valid reading."""
    if pts.stop > len(record.bg):
        return None
    seg = record.bg[pts]
    return seg if valid(seg).size else None


def during(record: PatientRecord, s: Exercise) -> np.ndarray | None:
    """Readings during the session (``s ≤ t ≤ e``)."""
    return _inside(record, points_between(s.minute, s.end))


def after(record: PatientRecord, s: Exercise, span: float) -> np.ndarray | None:
    """Readings of the ``span`` minutes after the session (``e < t ≤ e + span``)."""
    return _inside(record, points_after(s.end, span))


def pre_exercise(record: PatientRecord, s: Exercise) -> float | None:
    """Last valid reading at or before the start, at most 30 minutes earlier (mg/dL)."""
    i = last_reading_before(record.bg, s.minute)
    return None if i is None else float(record.bg[i])


def _stat(record: PatientRecord, params: Params, span: float | None, how: str) -> float | None:
    s = session(record, params)
    if s is None:
        return None
    seg = during(record, s) if span is None else after(record, s, span)
    if seg is None:
        return None
    v = valid(seg)
    value = v.max() if how == "max" else v.min() if how == "min" else v.mean()
    return round(float(value), 1)


@template(
    "pm_28",
    **_SPEC,
    abilities=_ABILITIES,
    answer_type="number",
    metric="smape",
    unit="mg/dL",
    question="What was my highest glucose during my {exercise} session on day {day}?",
)
def max_during(record: PatientRecord, params: Params) -> float | None:
    """Highest reading during the session, mg/dL (1 dp)."""
    return _stat(record, params, None, "max")


@template(
    "pm_29",
    **_SPEC,
    abilities=_ABILITIES,
    answer_type="number",
    metric="smape",
    unit="mg/dL",
    question="What was my lowest glucose during my {exercise} session on day {day}?",
)
def min_during(record: PatientRecord, params: Params) -> float | None:
    """Lowest reading during the session, mg/dL (1 dp)."""
    return _stat(record, params, None, "min")


@template(
    "pm_30",
    **_SPEC,
    abilities=_ABILITIES,
    answer_type="number",
    metric="smape",
    unit="mg/dL",
    question="What was my lowest glucose in the 3 hours after my {exercise} session on day {day} ended?",
)
def min_after_3h(record: PatientRecord, params: Params) -> float | None:
    """Lowest reading in the 180 min after the session, mg/dL (1 dp)."""
    return _stat(record, params, 180.0, "min")


@template(
    "pm_31",
    **_SPEC,
    abilities=_ABILITIES,
    answer_type="number",
    metric="smape",
    unit="mg/dL per minute",
    question="From just before my {exercise} session on day {day} to just after it ended, how fast did my "
    "glucose change on average?",
)
def change_rate(record: PatientRecord, params: Params) -> float | None:
    """(First reading at or after the end − pre-exercise reading) / minutes between them (2 dp)."""
    s = session(record, params)
    if s is None:
        return None
    p = last_reading_before(record.bg, s.minute)
    q = first_reading_from(record.bg, s.end)
    if p is None or q is None or q <= p:
        return None
    return round((float(record.bg[q]) - float(record.bg[p])) / ((q - p) * STEP_MIN), 2)


@template(
    "pm_32",
    **_SPEC,
    abilities=(*_ABILITIES, "TR"),
    answer_type="integer",
    metric="smape",
    unit="minutes",
    question="After my {exercise} session on day {day} ended, how many minutes did it take for my glucose "
    "to get back within 10% of where it was before I started (looking at the 2 hours after)?",
)
def back_to_pre(record: PatientRecord, params: Params) -> int | None:
    """Minutes from the end to the first reading within ±10 % of pre-exercise glucose (e ≤ t ≤ e + 120)."""
    s = session(record, params)
    pre = None if s is None else pre_exercise(record, s)
    if s is None or pre is None:
        return None
    pts = points_between(s.end, s.end + 120.0)
    for i in range(pts.start, min(pts.stop, len(record.bg))):
        if not math.isnan(record.bg[i]) and abs(record.bg[i] - pre) <= 0.1 * pre:
            return round(i * STEP_MIN - s.end)
    return None


@template(
    "pm_33",
    **_SPEC,
    abilities=_ABILITIES,
    answer_type="number",
    metric="smape",
    unit="mg/dL",
    question="What was my average glucose in the hour after my {exercise} session on day {day}?",
)
def mean_after_1h(record: PatientRecord, params: Params) -> float | None:
    """Mean reading in the 60 min after the session, mg/dL (1 dp)."""
    return _stat(record, params, 60.0, "mean")


@template(
    "pm_34",
    **_SPEC,
    abilities=_ABILITIES,
    answer_type="number",
    metric="smape",
    unit="mg/dL",
    question="What was my average glucose during my {exercise} session on day {day}?",
)
def mean_during(record: PatientRecord, params: Params) -> float | None:
    """Mean reading during the session, mg/dL (1 dp)."""
    return _stat(record, params, None, "mean")


@template(
    "pm_35",
    **_SPEC,
    abilities=_ABILITIES,
    answer_type="number",
    metric="smape",
    unit="mg/dL",
    question="How much did my glucose drop from before my {exercise} session on day {day} to its lowest "
    "point in the 2 hours after it?",
)
def drop_after(record: PatientRecord, params: Params) -> float | None:
    """Pre-exercise reading − lowest reading in the 120 min after, mg/dL (1 dp; negative if it rose)."""
    s = session(record, params)
    pre = None if s is None else pre_exercise(record, s)
    seg = None if s is None else after(record, s, 120.0)
    return None if pre is None or seg is None else round(pre - float(valid(seg).min()), 1)


@template(
    "pm_36",
    **_SPEC,
    abilities=(*_ABILITIES, "TR"),
    answer_type="integer",
    metric="smape",
    unit="minutes",
    question="How many minutes after my {exercise} session on day {day} ended did my glucose reach its "
    "lowest point of the following 2 hours?",
)
def minutes_to_nadir(record: PatientRecord, params: Params) -> int | None:
    """Minutes from the end to the first lowest reading of the 120 min after."""
    s = session(record, params)
    seg = None if s is None else after(record, s, 120.0)
    if s is None or seg is None:
        return None
    j = first_argmin(seg)
    return None if j is None else round((points_after(s.end, 120.0).start + j) * STEP_MIN - s.end)


@template(
    "pm_37",
    level="memory",
    abilities=("TR", "QC", "CA"),
    answer_type="day_list",
    metric="f1",
    needs=("exercise",),
    question="On which days that I exercised was my glucose stable in the 2 hours after exercising "
    "(coefficient of variation below 36%)?",
)
def stable_after_exercise(record: PatientRecord, params: Params) -> list[int] | None:
    """Exercise days whose first session's 120 min after have CV < 36 %; None without any session."""
    if not record.exercise:
        return None
    out = []
    for day in sorted({day_of_minute(s.minute) for s in record.exercise}):
        seg = after(record, record.sessions_of(day)[0], 120.0)
        cv = None if seg is None else cv_percent(seg)
        if cv is not None and cv < 36.0:
            out.append(day)
    return out
