"""Pure helpers on the 5-minute grid: runs, interval answers, day and clock windows, statistics.

A record's points are numbered from 0 at day 1 00:00; point ``i`` is minute ``5 i`` from the start.
Day ``d`` (1-based) covers points ``288 (d − 1)`` … ``288 d − 1``; "week ``w`` day ``d``" is day
``7 (w − 1) + d``. An interval answer is a list of ``{"start", "end"}`` in minutes from the start,
both ends inclusive (``start = 5 i0``, ``end = 5 i1``); a one-point run is widened to
``end = start + 1`` (HealthLoopQA's convention, ``shared/specs/healthloopqa-templates.md``).

Time windows after an event at minute ``m`` (events keep their own minute, off the grid) hold the
points whose time ``t`` satisfies ``m < t ≤ m + span``; a session's points are those with
``start ≤ t ≤ end``; a clock window ``[a, b)`` holds the points whose time of day is ``a ≤ t < b``.
"""

from __future__ import annotations

import math

import numpy as np

#: Minutes between two grid points.
STEP_MIN = 5
#: Grid points in a day (24 h / 5 min).
POINTS_PER_DAY = 288
#: Minutes in a day.
DAY_MIN = 1440
#: Displayed CGM below this is hypoglycaemic (mg/dL).
HYPO_MGDL = 70.0
#: Displayed CGM above this is hyperglycaemic (mg/dL).
HYPER_MGDL = 180.0


def runs(mask: np.ndarray) -> list[tuple[int, int]]:
    """Runs of consecutive true points, as inclusive ``(first, last)`` point indices.

    Args:
        mask: One boolean per grid point.

    Returns:
        The runs in time order (``[]`` for an all-false or empty mask).

    Example:
        >>> runs(np.array([0, 1, 1, 0, 1], dtype=bool))
        [(1, 2), (4, 4)]
    """
    m = np.asarray(mask, dtype=bool).astype(np.int8)
    if m.size == 0:
        return []
    edges = np.diff(np.concatenate(([0], m, [0])))
    starts = np.flatnonzero(edges == 1)
    ends = np.flatnonzero(edges == -1) - 1
    return [(int(a), int(b)) for a, b in zip(starts, ends, strict=True)]


def long_runs(found: list[tuple[int, int]], min_points: int) -> list[tuple[int, int]]:
    """The runs of at least ``min_points`` points."""
    return [(a, b) for a, b in found if b - a + 1 >= min_points]


def to_intervals(found: list[tuple[int, int]]) -> list[dict[str, int]]:
    """Interval answer of point runs: minutes from the start, a one-point run widened by 1 minute.

    Example:
        >>> to_intervals([(1, 2), (4, 4)])
        [{'start': 5, 'end': 10}, {'start': 20, 'end': 21}]
    """
    out = []
    for a, b in found:
        start = a * STEP_MIN
        out.append({"start": start, "end": b * STEP_MIN if b > a else start + 1})
    return out


def day_of_week(week: int, day: int) -> int:
    """Day number (1-based) of "week ``week`` day ``day``" (both 1-based): ``7 (week − 1) + day``."""
    return 7 * (week - 1) + day


def day_points(day: int) -> slice:
    """Points of day ``day`` (1-based): ``288 (day − 1)`` to ``288 day − 1``."""
    return slice(POINTS_PER_DAY * (day - 1), POINTS_PER_DAY * day)


def days_points(first: int, last: int) -> slice:
    """Points of days ``first`` to ``last`` (1-based, inclusive)."""
    return slice(POINTS_PER_DAY * (first - 1), POINTS_PER_DAY * last)


def clock_mask(n_points: int, start_min: int, end_min: int) -> np.ndarray:
    """Points whose time of day lies in ``[start_min, end_min)`` (minutes after midnight)."""
    clock = (np.arange(n_points) * STEP_MIN) % DAY_MIN
    return np.asarray((clock >= start_min) & (clock < end_min), dtype=bool)


def day_of_minute(minute: float) -> int:
    """Day number (1-based) holding minute ``minute`` from the start."""
    return int(minute // DAY_MIN) + 1


def points_after(minute: float, span: float) -> slice:
    """Points with time ``t`` in ``(minute, minute + span]`` (minutes from the start)."""
    return slice(math.floor(minute / STEP_MIN) + 1, math.floor((minute + span) / STEP_MIN) + 1)


def points_between(start: float, end: float) -> slice:
    """Points with time ``t`` in ``[start, end]`` (minutes from the start)."""
    return slice(math.ceil(start / STEP_MIN), math.floor(end / STEP_MIN) + 1)


def last_reading_before(bg: np.ndarray, minute: float, lookback: float = 30.0) -> int | None:
    """Index of the last valid reading at or before ``minute``, at most ``lookback`` minutes earlier.

    Args:
        bg: Displayed CGM per point (mg/dL, NaN where missing).
        minute: Minutes from the start.
        lookback: How far back a reading may lie (minutes).

    Returns:
        The point index, or None when no valid reading lies in ``[minute − lookback, minute]``.
    """
    last = min(math.floor(minute / STEP_MIN), len(bg) - 1)
    first = max(math.ceil((minute - lookback) / STEP_MIN), 0)
    for i in range(last, first - 1, -1):
        if not math.isnan(bg[i]):
            return i
    return None


def first_reading_from(bg: np.ndarray, minute: float, lookahead: float = 30.0) -> int | None:
    """Index of the first valid reading at or after ``minute``, at most ``lookahead`` minutes later."""
    first = max(math.ceil(minute / STEP_MIN), 0)
    last = min(math.floor((minute + lookahead) / STEP_MIN), len(bg) - 1)
    for i in range(first, last + 1):
        if not math.isnan(bg[i]):
            return i
    return None


def valid(values: np.ndarray) -> np.ndarray:
    """The non-missing values (NaN dropped)."""
    v = np.asarray(values, dtype=np.float64)
    out: np.ndarray = v[~np.isnan(v)]
    return out


def mean_or_none(values: np.ndarray) -> float | None:
    """Mean of the valid values, or None when there is none."""
    v = valid(values)
    return float(v.mean()) if v.size else None


def sd_or_none(values: np.ndarray) -> float | None:
    """Population SD (ddof = 0) of the valid values, or None when there is none."""
    v = valid(values)
    return float(v.std(ddof=0)) if v.size else None


def cv_percent(values: np.ndarray) -> float | None:
    """Coefficient of variation, % (SD with ddof = 0 over mean), or None (no value, or mean 0)."""
    v = valid(values)
    if not v.size or v.mean() == 0:
        return None
    return float(v.std(ddof=0) / v.mean() * 100.0)


def first_argmax(values: np.ndarray) -> int | None:
    """Index of the first maximum among the valid values, or None when there is none."""
    v = np.asarray(values, dtype=np.float64)
    return None if np.isnan(v).all() else int(np.nanargmax(v))


def first_argmin(values: np.ndarray) -> int | None:
    """Index of the first minimum among the valid values, or None when there is none."""
    v = np.asarray(values, dtype=np.float64)
    return None if np.isnan(v).all() else int(np.nanargmin(v))
