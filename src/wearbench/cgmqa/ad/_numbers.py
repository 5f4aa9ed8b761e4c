"""AD templates answered by one number: missing data, hypo and hyper episode counts and durations.

Episodes are the hypo (< 70 mg/dL) and hyper (> 180 mg/dL) runs of the displayed CGM
(:mod:`wearbench.cgmqa.ad._episodes`). Counts in "the last 7 days" count the runs of the mask
restricted to those days (a run entering the window counts once). Durations are readings × 5
minutes unless a template says otherwise. "0 if none" follows the intents (ad_22, ad_30, ad_32
answer 0 for a record without that episode; counts answer 0).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from wearbench.cgmqa._record import PatientRecord
from wearbench.cgmqa._series import HYPER_MGDL, HYPO_MGDL, STEP_MIN, long_runs, runs
from wearbench.cgmqa._template import Params, template
from wearbench.cgmqa.ad._episodes import hyper, hypo, in_days, last_days

_H = 60


@template(
    "ad_1",
    level="descriptive",
    abilities=("QC",),
    answer_type="number",
    metric="smape",
    unit="%",
    question="What percentage of my CGM readings are missing?",
)
def percent_missing(record: PatientRecord, params: Params) -> float:
    """Missing (NaN) points over all points of the record × 100, % (2 dp)."""
    return round(float(np.isnan(record.bg).mean() * 100.0), 2)


@dataclass(frozen=True)
class CountRule:
    """Number of hypo or hyper runs, over the whole record or its last ``last`` days."""

    id: str
    level: str
    abilities: tuple[str, ...]
    question: str
    mask: Callable[[np.ndarray], np.ndarray]
    last: int | None = None


COUNTS: tuple[CountRule, ...] = (
    CountRule("ad_25", "descriptive", ("QC",),
              "How many separate times did my glucose drop below 70 mg/dL?", hypo),
    CountRule("ad_26", "memory", ("TR", "QC"),
              "In the last 7 days, how many separate times did my glucose drop below 70 mg/dL?",
              hypo, last=7),
    CountRule("ad_27", "memory", ("TR", "QC"),
              "In the last 7 days, how many separate times did my glucose go above 180 mg/dL?",
              hyper, last=7),
)  # fmt: skip


def _count_truth(rule: CountRule) -> Callable[[PatientRecord, Params], int | None]:
    def truth(record: PatientRecord, params: Params) -> int | None:
        m = rule.mask(record.bg)
        if rule.last is not None:
            days = last_days(record, rule.last)
            if days is None:
                return None
            m = in_days(m, days)
        return len(runs(m))

    what = "hypo (< 70)" if rule.mask is hypo else "hyper (> 180)"
    where = f" in the last {rule.last} days" if rule.last else ""
    truth.__doc__ = f"Number of {what} runs{where}."
    truth.__qualname__ = f"episode_count_{rule.id}"
    return truth


for _rule in COUNTS:
    template(
        _rule.id,
        level=_rule.level,
        abilities=_rule.abilities,
        answer_type="integer",
        metric="smape",
        question=_rule.question,
    )(_count_truth(_rule))


@template(
    "ad_22",
    level="descriptive",
    abilities=("QC",),
    answer_type="integer",
    metric="smape",
    unit="readings",
    question="How many consecutive readings did my most recent low (below 70 mg/dL) last?",
)
def last_hypo_length(record: PatientRecord, params: Params) -> int:
    """Points of the last hypo run (last − first + 1); 0 without one."""
    found = runs(hypo(record.bg))
    return found[-1][1] - found[-1][0] + 1 if found else 0


@template(
    "ad_29",
    level="pattern",
    abilities=("PR",),
    answer_type="integer",
    metric="smape",
    unit="minutes",
    question="When my glucose stayed above 180 mg/dL for an hour or more, how many minutes on average did it "
    "take from the start of the high until it came back to 180 mg/dL or below?",
)
def hyper_recovery(record: PatientRecord, params: Params) -> int | None:
    """Mean minutes from the start of each ≥ 1 h hyper run to the first valid reading ≤ 180 after it.

    Runs never followed by such a reading (the record ends high) are left out; None without a run.
    """
    ok = ~np.isnan(record.bg) & (np.nan_to_num(record.bg, nan=np.inf) <= HYPER_MGDL)
    waits = []
    for a, b in long_runs(runs(hyper(record.bg)), _H // STEP_MIN):
        later = np.flatnonzero(ok[b + 1 :])
        if later.size:
            waits.append((b + 1 + int(later[0]) - a) * STEP_MIN)
    return round(float(np.mean(waits))) if waits else None


@template(
    "ad_30",
    level="descriptive",
    abilities=("QC",),
    answer_type="integer",
    metric="smape",
    unit="minutes",
    question="After my most recent low (below 70 mg/dL) began, how many minutes did it take to get back to "
    "70 mg/dL or above?",
)
def last_hypo_recovery(record: PatientRecord, params: Params) -> int | None:
    """Minutes from the last hypo run's start to the first valid reading ≥ 70 after it.

    0 without a hypo run; None when the record ends before such a reading.
    """
    found = runs(hypo(record.bg))
    if not found:
        return 0
    a, b = found[-1]
    ok = ~np.isnan(record.bg) & (np.nan_to_num(record.bg) >= HYPO_MGDL)
    later = np.flatnonzero(ok[b + 1 :])
    return (b + 1 + int(later[0]) - a) * STEP_MIN if later.size else None


@template(
    "ad_32",
    level="memory",
    abilities=("CA",),
    answer_type="integer",
    metric="smape",
    unit="minutes",
    question="How long, in minutes, was my longest stretch above 180 mg/dL?",
)
def longest_hyper(record: PatientRecord, params: Params) -> int:
    """Points of the longest hyper run × 5 minutes; 0 without one."""
    found = runs(hyper(record.bg))
    return max((b - a + 1 for a, b in found), default=0) * STEP_MIN
