"""PM templates on meal responses (pm_21–pm_26).

A day's meal of a type is its first intake of that type (a false meal can add a second). A meal at
minute ``m`` has:

- a *baseline*: the last valid reading at or before ``m``, at most 30 minutes earlier;
- a *3-hour window*: the points with ``m < t ≤ m + 180``, which must all lie inside the record;
- a *peak*: the first highest valid reading of that window; the *rise* is peak − baseline.

A meal without a baseline or a valid reading in its window has no response (no answer).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from wearbench.cgmqa._record import Meal, PatientRecord
from wearbench.cgmqa._series import (
    STEP_MIN,
    day_of_week,
    first_argmax,
    last_reading_before,
    points_after,
)
from wearbench.cgmqa._template import Params, template

_ABILITIES = ("ER", "TR", "QC")
_MAIN = ("breakfast", "lunch", "dinner")


@dataclass(frozen=True)
class Response:
    """Glucose response to a meal: baseline and peak (mg/dL), peak point index, window end index."""

    baseline: float
    peak: float
    peak_index: int
    window_end: int

    @property
    def rise(self) -> float:
        """Peak − baseline, mg/dL."""
        return self.peak - self.baseline


def response(record: PatientRecord, meal: Meal, span: float = 180.0) -> Response | None:
    """The response to ``meal`` over ``span`` minutes, or None (see the module docstring)."""
    b = last_reading_before(record.bg, meal.minute)
    w = points_after(meal.minute, span)
    if b is None or w.stop > len(record.bg):
        return None
    j = first_argmax(record.bg[w])
    if j is None:
        return None
    return Response(float(record.bg[b]), float(record.bg[w.start + j]), w.start + j, w.stop - 1)


def first_meal(record: PatientRecord, day: int, meal_type: str) -> Meal | None:
    """The first meal of ``meal_type`` on day ``day`` (1-based), or None."""
    found = record.meals_of(day, meal_type)
    return found[0] if found else None


def _day(params: Params) -> int:
    day = int(params["day"])
    return day_of_week(int(params["week"]), day) if "week" in params else day


def _lunch_peak(record: PatientRecord, params: Params) -> float | None:
    meal = first_meal(record, _day(params), "lunch")
    r = None if meal is None else response(record, meal)
    return None if r is None else round(r.peak, 1)


@template(
    "pm_21",
    level="memory",
    abilities=_ABILITIES,
    answer_type="number",
    metric="smape",
    unit="mg/dL",
    needs=("meals",),
    sampler="meal_week_day:lunch",
    question="How high did my glucose go in the 3 hours after lunch on week {week} day {day}?",
)
def lunch_peak_week_day(record: PatientRecord, params: Params) -> float | None:
    """Peak glucose in the 3 h after lunch on week w day d, mg/dL (1 dp)."""
    return _lunch_peak(record, params)


@template(
    "pm_26",
    level="memory",
    abilities=_ABILITIES,
    answer_type="number",
    metric="smape",
    unit="mg/dL",
    needs=("meals",),
    sampler="meal_day:lunch",
    question="What was my highest glucose within 3 hours of eating lunch on day {day}?",
)
def lunch_peak_day(record: PatientRecord, params: Params) -> float | None:
    """Peak glucose in the 3 h after lunch on day d, mg/dL (1 dp)."""
    return _lunch_peak(record, params)


@template(
    "pm_22",
    level="memory",
    abilities=(*_ABILITIES, "TR"),
    answer_type="integer",
    metric="smape",
    unit="minutes",
    needs=("meals",),
    sampler="meal_day:dinner",
    question="After my dinner on day {day}, how many minutes after the glucose peak did it take to come "
    "back down to within 10% of my pre-dinner level (within 3 hours of the meal)?",
)
def dinner_recovery(record: PatientRecord, params: Params) -> int | None:
    """Minutes from the dinner peak to the first reading ≤ 1.1 × baseline in the 3-h window."""
    meal = first_meal(record, _day(params), "dinner")
    r = None if meal is None else response(record, meal)
    if r is None:
        return None
    for i in range(r.peak_index, r.window_end + 1):
        if not math.isnan(record.bg[i]) and record.bg[i] <= 1.1 * r.baseline:
            return (i - r.peak_index) * STEP_MIN
    return None


@template(
    "pm_23",
    level="memory",
    abilities=(*_ABILITIES, "CA"),
    answer_type="category",
    metric="accuracy",
    categories=_MAIN,
    needs=("meals",),
    sampler="meal_day:breakfast+lunch+dinner",
    question="On day {day}, which meal raised my glucose the most: breakfast, lunch or dinner?",
)
def largest_rise_meal(record: PatientRecord, params: Params) -> str | None:
    """Main meal with the largest 3-h rise (peak − baseline); the earliest meal on a tie at 1 dp."""
    day = _day(params)
    rises = {}
    for kind in _MAIN:
        meal = first_meal(record, day, kind)
        r = None if meal is None else response(record, meal)
        if r is None:
            return None
        rises[kind] = round(r.rise, 1)
    return max(_MAIN, key=lambda k: (rises[k], -_MAIN.index(k)))


@template(
    "pm_24",
    level="memory",
    abilities=_ABILITIES,
    answer_type="number",
    metric="smape",
    unit="mg/dL per minute",
    needs=("meals",),
    sampler="meal_day:morning_snack",
    question="How fast did my glucose rise in the first 30 minutes after my morning snack on day {day}?",
)
def snack_rise_rate(record: PatientRecord, params: Params) -> float | None:
    """(Reading at the first point at or after snack + 30 min − baseline) / 30, mg/dL/min (2 dp)."""
    meal = first_meal(record, _day(params), "morning_snack")
    if meal is None:
        return None
    b = last_reading_before(record.bg, meal.minute)
    after = math.ceil((meal.minute + 30.0) / STEP_MIN)
    if b is None or after >= len(record.bg) or math.isnan(record.bg[after]):
        return None
    return round((float(record.bg[after]) - float(record.bg[b])) / 30.0, 2)


@template(
    "pm_25",
    level="memory",
    abilities=(*_ABILITIES, "CA"),
    answer_type="day_value_list",
    metric="f1",
    unit="mg/dL",
    needs=("meals",),
    question="On which days did I eat a dinner of at least 80 g of carbs, and how much did my glucose rise "
    "in the 3 hours after each of those dinners?",
)
def big_dinner_rises(record: PatientRecord, params: Params) -> list[list[float]] | None:
    """[day, rise (1 dp)] for each day whose dinner has ≥ 80 g carbs and a response."""
    out: list[list[float]] = []
    for day in range(1, record.days + 1):
        meal = first_meal(record, day, "dinner")
        r = None if meal is None or meal.carbs < 80.0 else response(record, meal)
        if r is not None:
            out.append([day, round(r.rise, 1)])
    return out
