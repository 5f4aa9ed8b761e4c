"""PM templates over the whole record's CGM: level, extremes, time in ranges, variability (pm_0–pm_13).

Statistics use the valid (non-NaN) readings of the displayed CGM; a record without one has no
answer. Glucose values are rounded to 1 decimal (mg/dL), hours, percentages and SDs to 2.
"""

from __future__ import annotations

import numpy as np

from wearbench.cgmqa._record import PatientRecord
from wearbench.cgmqa._series import (
    HYPER_MGDL,
    HYPO_MGDL,
    STEP_MIN,
    first_argmax,
    mean_or_none,
    sd_or_none,
    valid,
)
from wearbench.cgmqa._template import Params, rounded, template

_D = {"level": "descriptive", "abilities": ("QC",)}


@template(
    "pm_0",
    **_D,
    answer_type="number",
    metric="smape",
    unit="mg/dL",
    question="What was my average glucose over the whole period?",
)
def mean_glucose(record: PatientRecord, params: Params) -> float | None:
    """Mean glucose over the record, mg/dL (1 dp)."""
    return rounded(mean_or_none(record.bg), 1)


@template(
    "pm_1",
    **_D,
    answer_type="number",
    metric="smape",
    unit="mg/dL",
    question="What was the highest glucose reading I had?",
)
def max_glucose(record: PatientRecord, params: Params) -> float | None:
    """Highest glucose reading, mg/dL (1 dp)."""
    v = valid(record.bg)
    return round(float(v.max()), 1) if v.size else None


@template(
    "pm_2",
    **_D,
    answer_type="number",
    metric="smape",
    unit="mg/dL",
    question="What was the lowest glucose reading I had?",
)
def min_glucose(record: PatientRecord, params: Params) -> float | None:
    """Lowest glucose reading, mg/dL (1 dp)."""
    v = valid(record.bg)
    return round(float(v.min()), 1) if v.size else None


@template(
    "pm_3",
    level="memory",
    abilities=("QC", "TR"),
    answer_type="integer",
    metric="smape",
    unit="minutes",
    question="When did my glucose first reach its highest value? Give the time in minutes from the "
    "start of the record.",
)
def minute_of_max(record: PatientRecord, params: Params) -> int | None:
    """Minute (point index × 5) of the first highest reading."""
    i = first_argmax(record.bg)
    return None if i is None else i * STEP_MIN


def _hours(record: PatientRecord, mask: np.ndarray) -> float | None:
    if not valid(record.bg).size:
        return None
    return round(int(mask.sum()) * STEP_MIN / 60.0, 2)


@template(
    "pm_4",
    **_D,
    answer_type="number",
    metric="smape",
    unit="hours",
    question="How many hours in total was my glucose in the target range of 70 to 180 mg/dL?",
)
def hours_in_range(record: PatientRecord, params: Params) -> float | None:
    """Hours with 70 ≤ glucose ≤ 180 mg/dL (readings × 5 min; 2 dp)."""
    with np.errstate(invalid="ignore"):
        return _hours(record, (record.bg >= HYPO_MGDL) & (record.bg <= HYPER_MGDL))


@template(
    "pm_5",
    **_D,
    answer_type="number",
    metric="smape",
    unit="hours",
    question="How many hours in total was my glucose above 180 mg/dL?",
)
def hours_above(record: PatientRecord, params: Params) -> float | None:
    """Hours with glucose > 180 mg/dL (2 dp)."""
    with np.errstate(invalid="ignore"):
        return _hours(record, record.bg > HYPER_MGDL)


@template(
    "pm_6",
    **_D,
    answer_type="number",
    metric="smape",
    unit="hours",
    question="How many hours in total was my glucose below 70 mg/dL?",
)
def hours_below(record: PatientRecord, params: Params) -> float | None:
    """Hours with glucose < 70 mg/dL (2 dp)."""
    with np.errstate(invalid="ignore"):
        return _hours(record, record.bg < HYPO_MGDL)


@template(
    "pm_7",
    **_D,
    answer_type="integer",
    metric="smape",
    question="How many of my glucose readings were below 70 mg/dL?",
)
def readings_below(record: PatientRecord, params: Params) -> int | None:
    """Number of readings < 70 mg/dL."""
    return int((valid(record.bg) < HYPO_MGDL).sum()) if valid(record.bg).size else None


@template(
    "pm_8",
    **_D,
    answer_type="integer",
    metric="smape",
    question="How many of my glucose readings were above 180 mg/dL?",
)
def readings_above(record: PatientRecord, params: Params) -> int | None:
    """Number of readings > 180 mg/dL."""
    return int((valid(record.bg) > HYPER_MGDL).sum()) if valid(record.bg).size else None


@template(
    "pm_9",
    **_D,
    answer_type="number",
    metric="smape",
    unit="mg/dL",
    question="What was the standard deviation of my glucose over the whole period?",
)
def glucose_sd(record: PatientRecord, params: Params) -> float | None:
    """Population SD (ddof = 0) of the readings, mg/dL (2 dp)."""
    return rounded(sd_or_none(record.bg), 2)


def _percent(record: PatientRecord, low: float, high: float) -> float | None:
    v = valid(record.bg)
    if not v.size:
        return None
    return round(float(((v >= low) & (v <= high)).mean() * 100.0), 2)


@template(
    "pm_10",
    **_D,
    answer_type="number",
    metric="smape",
    unit="%",
    question="What percentage of my glucose readings were in range (70 to 180 mg/dL)?",
)
def percent_in_range(record: PatientRecord, params: Params) -> float | None:
    """% of the valid readings with 70 ≤ glucose ≤ 180 mg/dL (2 dp)."""
    return _percent(record, HYPO_MGDL, HYPER_MGDL)


@template(
    "pm_11",
    **_D,
    answer_type="number",
    metric="smape",
    unit="%",
    question="What percentage of my glucose readings were above 180 mg/dL?",
)
def percent_above(record: PatientRecord, params: Params) -> float | None:
    """% of the valid readings with glucose > 180 mg/dL (2 dp)."""
    return _percent(record, np.nextafter(HYPER_MGDL, np.inf), np.inf)


@template(
    "pm_12",
    **_D,
    answer_type="number",
    metric="smape",
    unit="%",
    question="What percentage of my glucose readings were below 70 mg/dL?",
)
def percent_below(record: PatientRecord, params: Params) -> float | None:
    """% of the valid readings with glucose < 70 mg/dL (2 dp)."""
    return _percent(record, -np.inf, np.nextafter(HYPO_MGDL, -np.inf))


@template(
    "pm_13",
    level="descriptive",
    abilities=("QC", "CA"),
    answer_type="yes_no",
    metric="accuracy",
    question="Did my glucose ever change faster than 2 mg/dL per minute between two consecutive readings?",
)
def fast_change(record: PatientRecord, params: Params) -> str | None:
    """Whether |Δglucose| / 5 min > 2 mg/dL/min between two consecutive valid grid points."""
    rate = np.abs(np.diff(record.bg)) / STEP_MIN
    rate = rate[~np.isnan(rate)]
    if not rate.size:
        return None
    return "yes" if bool((rate > 2.0).any()) else "no"
