"""AD templates answered by days or hours: data-quality days, out-of-range days and comparisons.

Days are 1-based (ad_38 too: upstream returns 0-based days there, a slip). "The last 7 days" are
the record's last 7 days (days 24–30 of a 30-day record). A list answer may be empty (``[]``: no
such day), which is an answer, as for pm_25. Out of range is a valid displayed reading below 70
or above 180 mg/dL; in range is 70–180 inclusive.
"""

from __future__ import annotations

import numpy as np

from wearbench.cgmqa._record import PatientRecord
from wearbench.cgmqa._series import (
    HYPER_MGDL,
    HYPO_MGDL,
    POINTS_PER_DAY,
    STEP_MIN,
    clock_mask,
    day_points,
    days_points,
    runs,
)
from wearbench.cgmqa._template import Params, template
from wearbench.cgmqa.ad._episodes import above, hyper, hypo, in_days, last_days

_H = 60


def _per_day(mask: np.ndarray, days: int) -> np.ndarray:
    """Count of true points of each day (index 0 = day 1)."""
    return np.asarray(mask[: days * POINTS_PER_DAY].reshape(days, POINTS_PER_DAY).sum(axis=1))


@template(
    "ad_2",
    level="descriptive",
    abilities=("QC",),
    answer_type="day_list",
    metric="accuracy",
    question="On which days were more than 30% of my CGM readings missing?",
)
def gappy_days(record: PatientRecord, params: Params) -> list[int]:
    """Days (1-based) whose missing (NaN) points exceed 30 % of the day's 288; ``[]`` if none."""
    share = _per_day(np.isnan(record.bg), record.days) / POINTS_PER_DAY
    return [int(d) + 1 for d in np.flatnonzero(share > 0.30)]


@template(
    "ad_31",
    level="memory",
    abilities=("CA",),
    answer_type="integer",
    metric="accuracy",
    question="Which day had the most readings outside the 70-180 mg/dL range? Answer 0 if none did.",
)
def worst_day(record: PatientRecord, params: Params) -> int:
    """Day (1-based) with most readings < 70 or > 180 mg/dL (earliest on a tie); 0 without any."""
    counts = _per_day(hypo(record.bg) | hyper(record.bg), record.days)
    return int(np.argmax(counts)) + 1 if counts.max() > 0 else 0


def _episode_count(record: PatientRecord, days: tuple[int, int]) -> int:
    """Hypo runs plus hyper runs of the mask restricted to ``days``."""
    return len(runs(in_days(hypo(record.bg), days))) + len(runs(in_days(hyper(record.bg), days)))


@template(
    "ad_34",
    level="memory",
    abilities=("CA",),
    answer_type="yes_no",
    metric="accuracy",
    question="Did I have more out-of-range episodes (below 70 or above 180 mg/dL) in the last 7 days than in "
    "the first 7 days?",
)
def more_episodes_lately(record: PatientRecord, params: Params) -> str | None:
    """Whether the last 7 days hold more hypo + hyper runs than days 1–7; None under 14 days."""
    last = last_days(record, 7)
    if last is None or record.days < 14:
        return None
    return "yes" if _episode_count(record, last) > _episode_count(record, (1, 7)) else "no"


@template(
    "ad_35",
    level="memory",
    abilities=("CA",),
    answer_type="day_list",
    metric="accuracy",
    question="At which hours of the day did I have lows (below 70 mg/dL) in the last 7 days but never in the "
    "first 21 days?",
    instruction='Reply with JSON only: {"answer": [<hours of the day, 0-23>]}, e.g. {"answer": [2, 15]} for '
    "02:00-02:59 and 15:00-15:59; [] if none.",
)
def new_low_hours(record: PatientRecord, params: Params) -> list[int] | None:
    """Clock hours (0–23) with a hypo reading in the last 7 days and none in days 1–21.

    None under 28 days (the two windows would overlap).
    """
    last = last_days(record, 7)
    if last is None or record.days < 28:
        return None
    low = hypo(record.bg)
    hour = (np.arange(len(low)) * STEP_MIN // _H) % 24
    late = set(hour[in_days(low, last)].tolist())
    early = set(hour[in_days(low, (1, 21))].tolist())
    return sorted(int(h) for h in late - early)


@template(
    "ad_38",
    level="pattern",
    abilities=("PR",),
    answer_type="day_list",
    metric="accuracy",
    question="On which days was my glucose above 180 mg/dL between 1 am and 3 am?",
)
def night_high_days(record: PatientRecord, params: Params) -> list[int]:
    """Days (1-based; upstream's 0-based days are a slip) with a reading > 180 in 01:00–03:00."""
    m = above(record.bg, HYPER_MGDL) & clock_mask(len(record.bg), 1 * _H, 3 * _H)
    return [int(d) + 1 for d in np.flatnonzero(_per_day(m, record.days))]


@template(
    "ad_41",
    level="memory",
    abilities=("TR", "CA"),
    answer_type="integer",
    metric="accuracy",
    needs=("faults",),
    question="In the last week (days 1 to 7 of it), which day had the most readings in range (70-180 mg/dL)? "
    "On a tie, the one with the fewest sensor or pump faults.",
)
def best_day_last_week(record: PatientRecord, params: Params) -> int | None:
    """Day (1–7) of the last 7 days with most readings in 70–180; ties: fewest fault points, then earliest."""
    last = last_days(record, 7)
    if last is None or record.fault is None:
        return None
    bg = record.bg[days_points(*last)]
    ok = ~np.isnan(bg) & (np.nan_to_num(bg) >= HYPO_MGDL) & (np.nan_to_num(bg) <= HYPER_MGDL)
    faulty = record.fault[days_points(*last)] != ""
    score = [(-int(ok[day_points(d)].sum()), int(faulty[day_points(d)].sum()), d) for d in range(1, 8)]
    return min(score)[2]
