"""PM templates on insulin (pm_41–pm_45).

Totals come from the insulin shown per point (mean rate over the 5 minutes, mU/min): a period's
total is ``sum(rate) × 5 / 1000`` U, basal and bolus together (2 dp). Bolus times are the bolus
events' own minutes from the start of the record (not moved to the grid).
"""

from __future__ import annotations

import numpy as np

from wearbench.cgmqa._record import Bolus, PatientRecord
from wearbench.cgmqa._series import STEP_MIN, day_points
from wearbench.cgmqa._template import Params, template


def total_units(rate: np.ndarray) -> float | None:
    """Insulin in U over points of rate ``rate`` (mU/min); None when no point has a rate."""
    if np.isnan(rate).all():
        return None
    return float(np.nansum(rate)) * STEP_MIN / 1000.0


def _largest(boluses: list[Bolus]) -> int | None:
    """Minute of the largest bolus (the earliest on a tie), or None without one."""
    if not boluses:
        return None
    best = max(boluses, key=lambda b: (b.dosage, -b.minute))
    return round(best.minute)


@template(
    "pm_41",
    level="descriptive",
    abilities=("QC",),
    answer_type="number",
    metric="smape",
    unit="U",
    needs=("insulin",),
    question="How much insulin did I get in total (basal and bolus) over the whole period?",
)
def total_insulin(record: PatientRecord, params: Params) -> float | None:
    """Total insulin over the record, U (2 dp)."""
    total = None if record.insulin is None else total_units(record.insulin)
    return None if total is None else round(total, 2)


@template(
    "pm_42",
    level="descriptive",
    abilities=("ER", "QC", "TR"),
    answer_type="integer",
    metric="smape",
    unit="minutes",
    needs=("boluses",),
    question="When did I take my largest bolus? Give the time in minutes from the start of the record.",
)
def largest_bolus_minute(record: PatientRecord, params: Params) -> int | None:
    """Minute of the largest bolus of the record (the earliest on a tie)."""
    return _largest(list(record.boluses or ()))


@template(
    "pm_43",
    level="memory",
    abilities=("TR", "QC"),
    answer_type="number",
    metric="smape",
    unit="U",
    needs=("insulin",),
    question="How much insulin did I get in total on day 30?",
)
def day30_insulin(record: PatientRecord, params: Params) -> float | None:
    """Total insulin on day 30, U (2 dp); None for a shorter record."""
    if record.insulin is None or record.days < 30:
        return None
    total = total_units(record.insulin[day_points(30)])
    return None if total is None else round(total, 2)


@template(
    "pm_44",
    level="memory",
    abilities=("TR", "QC"),
    answer_type="integer",
    metric="smape",
    unit="minutes",
    needs=("boluses",),
    question="When did I take my largest bolus on day 4? Give the time in minutes from the start of the "
    "record.",
)
def day4_largest_bolus(record: PatientRecord, params: Params) -> int | None:
    """Minute (from the start of the record) of day 4's largest bolus; None without one."""
    return _largest(record.boluses_of(4))


@template(
    "pm_45",
    level="memory",
    abilities=("TR", "QC", "CA"),
    answer_type="yes_no",
    metric="accuracy",
    needs=("insulin",),
    question="In my first week, did I use more insulin per day at the weekend (days 6 and 7) than on "
    "the weekdays (days 1 to 5)?",
)
def weekend_more_insulin(record: PatientRecord, params: Params) -> str | None:
    """Whether the mean daily total of days 6–7 exceeds that of days 1–5 (U)."""
    if record.insulin is None or record.days < 7:
        return None
    totals = [total_units(record.insulin[day_points(d)]) for d in range(1, 8)]
    if any(t is None for t in totals):
        return None
    weekday = float(np.mean([t for t in totals[:5] if t is not None]))
    weekend = float(np.mean([t for t in totals[5:] if t is not None]))
    return "yes" if weekend > weekday else "no"
