"""PD templates whose truth is the recorded future after "now" (pd_0, 1, 2, 4, 10, 12, 18, 20).

They need no re-simulation, so they work on real CGM records too: "now" lies in the last two
days, and the model is shown only the data up to it (:meth:`Template.context_end`). A window of
the future needs at least :data:`MIN_COVERAGE` of its readings (or insulin samples) to have an
answer; statistics use its valid readings. Glucose is rounded to 1 decimal (mg/dL), percentages
and insulin to 2.
"""

from __future__ import annotations

import math

import numpy as np

from wearbench.cgmqa._now import minute_of
from wearbench.cgmqa._record import PatientRecord
from wearbench.cgmqa._series import (
    HYPER_MGDL,
    HYPO_MGDL,
    POINTS_PER_DAY,
    STEP_MIN,
    day_points,
    days_points,
    first_argmax,
    valid,
)
from wearbench.cgmqa._template import Params, template

#: Least share of a future window's points that must hold a reading (or insulin sample).
MIN_COVERAGE = 0.7
#: Part of the day (name, first hour, end hour) of pd_0.
PARTS = (("night", 0, 6), ("morning", 6, 12), ("afternoon", 12, 18), ("evening", 18, 24))
_P = {"level": "pattern"}


def covered(values: np.ndarray) -> np.ndarray | None:
    """The valid values of a window, or None when fewer than :data:`MIN_COVERAGE` of them are valid."""
    v = valid(values)
    return v if len(values) and v.size >= MIN_COVERAGE * len(values) else None


def daily_insulin(record: PatientRecord, first: int, last: int) -> float | None:
    """Insulin of days ``first`` … ``last`` (U): the shown rate (mU/min) × 5 min over 1000, summed.

    None without insulin, or when fewer than :data:`MIN_COVERAGE` of the samples hold a value.
    """
    if record.insulin is None or last > record.days:
        return None
    v = covered(record.insulin[days_points(first, last)])
    return None if v is None else float(v.sum()) * STEP_MIN / 1000.0


@template(
    "pd_0",
    **_P,
    abilities=("PR", "QC", "PC"),
    answer_type="category",
    metric="accuracy",
    categories=tuple(p[0] for p in PARTS),
    sampler="next_day",
    question="Looking at my past days, in which part of tomorrow (day {day}) will my glucose most "
    "likely reach its highest value: night (00-06), morning (06-12), afternoon (12-18) or evening "
    "(18-24)?",
)
def peak_part(record: PatientRecord, params: Params) -> str | None:
    """Part of the day holding the day's maximum (first maximum), from the recorded day."""
    bg = record.bg[day_points(int(params["day"]))]
    if covered(bg) is None:
        return None
    i = first_argmax(bg)
    hour = 0 if i is None else i * STEP_MIN // 60
    return next(name for name, lo, hi in PARTS if lo <= hour < hi)


@template(
    "pd_1",
    **_P,
    abilities=("PR", "QC", "PC"),
    answer_type="number",
    metric="smape",
    unit="mg/dL",
    sampler="now:0000+0300+0600+0900+1200+1500+1800+2100",
    question="It is {time} on day {day}. What will my glucose be in 30 minutes?",
)
def glucose_in_30(record: PatientRecord, params: Params) -> float | None:
    """Displayed CGM at now + 30 min (1 dp); needs a reading now and one then."""
    i = minute_of(int(params["day"]), str(params["time"])) // STEP_MIN
    j = i + 30 // STEP_MIN
    if j >= len(record.bg) or math.isnan(record.bg[i]) or math.isnan(record.bg[j]):
        return None
    return round(float(record.bg[j]), 1)


@template(
    "pd_2",
    **_P,
    abilities=("PC", "QC"),
    answer_type="number",
    metric="smape",
    unit="U",
    needs=("insulin",),
    sampler="next_monday",
    question="Based on my previous Mondays, how much insulin will I take in total next Monday (day {day})?",
)
def monday_insulin(record: PatientRecord, params: Params) -> float | None:
    """Total insulin shown by the pump on that Monday, U (2 dp)."""
    day = int(params["day"])
    total = daily_insulin(record, day, day)
    return None if total is None else round(total, 2)


@template(
    "pd_4",
    **_P,
    abilities=("QC",),
    answer_type="number",
    metric="smape",
    unit="%",
    sampler="next_day",
    question="What percentage of tomorrow (day {day}) will my glucose spend between 70 and 180 mg/dL?",
)
def tir_tomorrow(record: PatientRecord, params: Params) -> float | None:
    """Share of the day's valid readings with 70 ≤ BG ≤ 180, % (2 dp)."""
    v = covered(record.bg[day_points(int(params["day"]))])
    if v is None:
        return None
    return round(float(((v >= HYPO_MGDL) & (v <= HYPER_MGDL)).mean() * 100.0), 2)


@template(
    "pd_10",
    **_P,
    abilities=("PC", "QC"),
    answer_type="yes_no",
    metric="accuracy",
    sampler="now:0600+0900+1200+1500+1800+2100",
    question="It is {time} on day {day}. Will my glucose stay between 70 and 180 mg/dL for the rest "
    "of the day?",
)
def in_range_rest_of_day(record: PatientRecord, params: Params) -> str | None:
    """``yes`` when every valid reading after now, to midnight, lies in 70–180 mg/dL."""
    day = int(params["day"])
    now = minute_of(day, str(params["time"]))
    v = covered(record.bg[now // STEP_MIN + 1 : day * POINTS_PER_DAY])
    if v is None:
        return None
    return "yes" if bool(((v >= HYPO_MGDL) & (v <= HYPER_MGDL)).all()) else "no"


@template(
    "pd_12",
    **_P,
    abilities=("CA", "QC", "PR"),
    answer_type="yes_no",
    metric="accuracy",
    sampler="next_day",
    question="Today is over. Will my average glucose tomorrow (day {day}) be lower than today's?",
)
def lower_mean_tomorrow(record: PatientRecord, params: Params) -> str | None:
    """``yes`` when the mean of day − 1 exceeds the mean of ``day`` (means rounded to 1 dp)."""
    day = int(params["day"])
    today, tomorrow = covered(record.bg[day_points(day - 1)]), covered(record.bg[day_points(day)])
    if today is None or tomorrow is None:
        return None
    return "yes" if round(float(today.mean()), 1) > round(float(tomorrow.mean()), 1) else "no"


@template(
    "pd_18",
    **_P,
    abilities=("QC", "CA", "PR"),
    answer_type="category",
    metric="accuracy",
    categories=("more", "less"),
    needs=("insulin",),
    sampler="next_week",
    question="Will I use more or less insulin next week (week {week}) than my average week so far?",
)
def next_week_insulin(record: PatientRecord, params: Params) -> str | None:
    """``more`` when week ``w``'s total exceeds the mean weekly total of the weeks before it."""
    week = int(params["week"])
    weeks = [daily_insulin(record, 7 * w + 1, 7 * w + 7) for w in range(week)]
    if any(w is None for w in weeks):
        return None
    past = [float(w) for w in weeks[:-1] if w is not None]
    nxt = weeks[-1]
    return "more" if nxt is not None and round(nxt, 2) > round(sum(past) / len(past), 2) else "less"


@template(
    "pd_20",
    **_P,
    abilities=("QC", "ER", "PR"),
    answer_type="integer",
    metric="smape",
    unit="hours",
    sampler="next_day",
    question="Tonight, between midnight and 6 am (day {day}), how many whole hours will my glucose "
    "spend between 70 and 180 mg/dL?",
)
def night_hours_in_range(record: PatientRecord, params: Params) -> int | None:
    """Whole hours (floored) of valid readings in 70–180 mg/dL during 00:00–06:00 of ``day``."""
    first = (int(params["day"]) - 1) * POINTS_PER_DAY
    v = covered(record.bg[first : first + 6 * 60 // STEP_MIN])
    if v is None:
        return None
    return int(((v >= HYPO_MGDL) & (v <= HYPER_MGDL)).sum()) * STEP_MIN // 60
