"""PM templates comparing days, clock windows and weeks (pm_14–pm_19, pm_38–pm_40).

A day's or week's statistic uses its valid readings (a day without one has none). CV is the SD
(ddof = 0) over the mean, in %; "pooled" CVs are over all readings of the days named. Weekdays of
week 1 are days 1–5, its weekend days 6–7. Comparisons are made on values rounded to 2 decimals
(TIR to 1), so a tie is a real tie of the shown numbers.
"""

from __future__ import annotations

import numpy as np

from wearbench.cgmqa._record import PatientRecord
from wearbench.cgmqa._series import (
    HYPER_MGDL,
    HYPO_MGDL,
    STEP_MIN,
    clock_mask,
    cv_percent,
    day_of_week,
    day_points,
    days_points,
    mean_or_none,
    sd_or_none,
    valid,
)
from wearbench.cgmqa._template import Params, rounded, template

_M = {"level": "memory", "abilities": ("TR", "QC", "CA")}


@template(
    "pm_14",
    level="memory",
    abilities=("TR", "QC"),
    answer_type="number",
    metric="smape",
    unit="mg/dL",
    sampler="week_day",
    question="What was my average glucose between 2 pm and 4 pm on week {week} day {day}?",
)
def afternoon_mean(record: PatientRecord, params: Params) -> float | None:
    """Mean glucose of the points 14:00 ≤ t < 16:00 of week w day d, mg/dL (1 dp)."""
    day = day_of_week(int(params["week"]), int(params["day"]))
    if day > record.days:
        return None
    bg = record.bg[day_points(day)]
    return rounded(mean_or_none(bg[clock_mask(len(bg), 14 * 60, 16 * 60)]), 1)


def daily_cv(record: PatientRecord) -> dict[int, float]:
    """CV (%) of each day that has a reading, by day number (1-based)."""
    out = {}
    for day in range(1, record.days + 1):
        cv = cv_percent(record.bg[day_points(day)])
        if cv is not None:
            out[day] = cv
    return out


@template(
    "pm_15",
    **_M,
    answer_type="day_list",
    metric="f1",
    question="On which days was my glucose variability (coefficient of variation) below 36%?",
)
def stable_days(record: PatientRecord, params: Params) -> list[int] | None:
    """Days (1-based) whose CV < 36 %."""
    cvs = daily_cv(record)
    return [d for d, cv in cvs.items() if cv < 36.0] if cvs else None


@template(
    "pm_16",
    **_M,
    answer_type="integer",
    metric="accuracy",
    question="Which day had the most variable glucose (highest coefficient of variation)?",
)
def most_variable_day(record: PatientRecord, params: Params) -> int | None:
    """Day (1-based) with the highest CV; the earliest on a tie."""
    cvs = daily_cv(record)
    return max(cvs, key=lambda d: (cvs[d], -d)) if cvs else None


@template(
    "pm_17",
    **_M,
    answer_type="integer",
    metric="accuracy",
    question="Which day had the most stable glucose (lowest coefficient of variation)?",
)
def least_variable_day(record: PatientRecord, params: Params) -> int | None:
    """Day (1-based) with the lowest CV; the earliest on a tie."""
    cvs = daily_cv(record)
    return min(cvs, key=lambda d: (cvs[d], d)) if cvs else None


def _compare(a: float, b: float, names: tuple[str, str, str]) -> str:
    """``names[0]`` if a > b, ``names[1]`` if b > a, else ``names[2]`` (after rounding to 2 dp)."""
    ra, rb = round(a, 2), round(b, 2)
    return names[0] if ra > rb else names[1] if rb > ra else names[2]


def _mean_daily_sd(record: PatientRecord, start_min: int, end_min: int) -> float | None:
    sds = []
    for day in range(1, record.days + 1):
        bg = record.bg[day_points(day)]
        sd = sd_or_none(bg[clock_mask(len(bg), start_min, end_min)])
        if sd is not None:
            sds.append(sd)
    return float(np.mean(sds)) if sds else None


@template(
    "pm_18",
    **_M,
    answer_type="category",
    metric="accuracy",
    categories=("morning", "afternoon", "equal in both"),
    question="Is my glucose usually more variable in the morning (6 am to 12 pm) or in the afternoon "
    "(12 pm to 6 pm)?",
)
def morning_or_afternoon(record: PatientRecord, params: Params) -> str | None:
    """Window with the higher mean over days of the SD of 06:00–12:00 vs 12:00–18:00."""
    am, pm = _mean_daily_sd(record, 6 * 60, 12 * 60), _mean_daily_sd(record, 12 * 60, 18 * 60)
    if am is None or pm is None:
        return None
    return _compare(am, pm, ("morning", "afternoon", "equal in both"))


@template(
    "pm_19",
    **_M,
    answer_type="category",
    metric="accuracy",
    categories=("weekdays", "weekend", "equal in both"),
    question="In my first week, was my glucose more variable on the weekdays (days 1 to 5) or at the "
    "weekend (days 6 and 7)?",
)
def weekday_or_weekend(record: PatientRecord, params: Params) -> str | None:
    """Higher pooled CV: days 1–5 vs days 6–7."""
    if record.days < 7:
        return None
    wd, we = cv_percent(record.bg[days_points(1, 5)]), cv_percent(record.bg[days_points(6, 7)])
    if wd is None or we is None:
        return None
    return _compare(wd, we, ("weekdays", "weekend", "equal in both"))


def _week(record: PatientRecord, week: int) -> np.ndarray | None:
    """Readings of week ``week`` (days 7w − 6 … 7w), or None when the record is shorter."""
    return None if record.days < 7 * week else record.bg[days_points(7 * week - 6, 7 * week)]


@template(
    "pm_38",
    **_M,
    answer_type="yes_no",
    metric="accuracy",
    question="Did I spend less time below 70 mg/dL in week 2 than in week 3?",
)
def less_hypo_week2(record: PatientRecord, params: Params) -> str | None:
    """Whether week 2's minutes < 70 mg/dL (readings × 5) are fewer than week 3's."""
    w2, w3 = _week(record, 2), _week(record, 3)
    if w2 is None or w3 is None or not valid(w2).size or not valid(w3).size:
        return None
    low2, low3 = int((valid(w2) < HYPO_MGDL).sum()) * STEP_MIN, int((valid(w3) < HYPO_MGDL).sum()) * STEP_MIN
    return "yes" if low2 < low3 else "no"


@template(
    "pm_39",
    **_M,
    answer_type="category",
    metric="accuracy",
    categories=("week 1", "week 4"),
    question="Which week had the lower glucose variability (coefficient of variation): week 1 or week 4?",
)
def lower_cv_week(record: PatientRecord, params: Params) -> str | None:
    """Week with the lower pooled CV; None on a tie at 2 dp."""
    w1, w4 = _week(record, 1), _week(record, 4)
    cv1 = None if w1 is None else cv_percent(w1)
    cv4 = None if w4 is None else cv_percent(w4)
    if cv1 is None or cv4 is None or round(cv1, 2) == round(cv4, 2):
        return None
    return "week 1" if cv1 < cv4 else "week 4"


def _tir(bg: np.ndarray) -> float | None:
    v = valid(bg)
    return float(((v >= HYPO_MGDL) & (v <= HYPER_MGDL)).mean() * 100.0) if v.size else None


@template(
    "pm_40",
    **_M,
    answer_type="category",
    metric="accuracy",
    categories=("increased", "decreased", "no change"),
    question="From week 1 to week 3, did my time in range (70 to 180 mg/dL) increase, decrease or stay "
    "the same?",
)
def tir_change(record: PatientRecord, params: Params) -> str | None:
    """Week 3's % in range vs week 1's (rounded to 1 dp): increased, decreased or no change."""
    w1, w3 = _week(record, 1), _week(record, 3)
    t1 = None if w1 is None else rounded(_tir(w1), 1)
    t3 = None if w3 is None else rounded(_tir(w3), 1)
    if t1 is None or t3 is None:
        return None
    return "increased" if t3 > t1 else "decreased" if t3 < t1 else "no change"
