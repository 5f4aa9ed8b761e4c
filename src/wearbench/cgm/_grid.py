"""Resample CGM readings onto a regular clock grid (every 5 minutes: 288 points a day).

The rule, per subject, for a grid every ``minutes`` minutes (a divisor of 1440) anchored at local
midnight (00:00, 00:05, …):

* each reading belongs to the grid point nearest in time, i.e. the point ``p`` with
  ``p − minutes/2 ≤ t < p + minutes/2``;
* a grid point with readings takes the value of the nearest one (the earlier on a tie) **as is**:
  a reading that falls on the grid keeps its exact value, and a 5-minute sensor whose clock runs a
  few minutes off the grid has its readings moved to the grid, values unchanged. The other
  readings of that point are *merged* (not used, counted);
* a grid point without a reading is linearly interpolated in time between the readings just
  before and just after it, when those are at most ``max_gap`` minutes apart (default 20: up to
  three missed 5-minute readings, or the points between two readings of a 15-minute sensor, whose
  steps run 14–16 minutes);
* otherwise the point lies in a *gap*, and is absent: gaps stay gaps (no row, never a NaN), as
  everywhere in the canonical record (:func:`~wearbench.cgm.check_readings`);
* the grid of a subject runs from its first to its last grid point that holds a reading.

Snapping to the nearest reading is how 5-minute CGM exports are usually aligned (time stamps
rounded to the grid); linear interpolation over short gaps only is iglu's ``CGMS2DayByDay``
(Broll et al. 2021) with a shorter limit than its 45 minutes, so that a dropout of half an hour
remains visible as one.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from wearbench._errors import WearbenchError
from wearbench.cgm._record import CGMData, check_readings

_NS_PER_MIN = 60_000_000_000
#: Per-subject counts in the report of :func:`resample_cgm` (see its docstring).
GRID_COUNTS: tuple[str, ...] = (
    "readings",
    "grid_points",
    "from_reading",
    "interpolated",
    "merged",
    "gaps",
    "gap_points",
)
RULE = (
    "each grid point (anchored at local midnight) takes the nearest reading within half a period, "
    "value unchanged; a point without one is linearly interpolated between the readings around it "
    "when they are at most max_gap minutes apart, else it is a gap (no row)"
)

Int64Array = npt.NDArray[np.int64]
FloatArray = npt.NDArray[np.float64]


def _subject_grid(
    t: Int64Array, g: FloatArray, period: int, max_gap: int
) -> tuple[Int64Array, FloatArray, dict[str, int]]:
    """One subject's grid (times in ns, sorted) → grid times (ns), values, counts."""
    cell = (t + period // 2) // period
    dist = np.abs(t - cell * period)
    order = np.lexsort((np.arange(t.size), dist, cell))  # by cell, then distance, then file order
    first = np.ones(order.size, dtype=bool)
    first[1:] = cell[order[1:]] != cell[order[:-1]]
    taken = order[first]
    cells = np.arange(cell[taken[0]], cell[taken[-1]] + 1, dtype=np.int64)
    has = np.isin(cells, cell[taken], assume_unique=True)
    empty = cells[~has] * period
    after = np.searchsorted(t, empty)  # empty points lie strictly inside the readings' span
    t0, t1 = t[after - 1], t[after]
    near = (t1 - t0) <= max_gap
    weight = (empty - t0).astype(np.float64) / (t1 - t0).astype(np.float64)
    filled = g[after - 1] + (g[after] - g[after - 1]) * weight
    times = np.concatenate([cell[taken] * period, empty[near]])
    values = np.concatenate([g[taken], filled[near]])
    order = np.argsort(times, kind="stable")
    missing = ~has
    missing[~has] = ~near
    runs = int(np.count_nonzero(missing[1:] & ~missing[:-1]))  # the first and last points hold readings
    counts = {
        "readings": int(t.size),
        "grid_points": int(times.size),
        "from_reading": int(taken.size),
        "interpolated": int(near.sum()),
        "merged": int(t.size - taken.size),
        "gaps": runs,
        "gap_points": int((~near).sum()),
    }
    return times[order], values[order], counts


def check_grid(minutes: int, max_gap: int) -> None:
    """Raise a one-line :class:`WearbenchError` for a grid period or gap limit that is not valid."""
    if int(minutes) != minutes or minutes < 1 or 1440 % int(minutes):
        raise WearbenchError(f"grid minutes must be a whole divisor of 1440 (e.g. 5), got {minutes}")
    if int(max_gap) != max_gap or max_gap < 0:
        raise WearbenchError(f"max_gap must be a whole number of minutes ≥ 0, got {max_gap}")


def resample_cgm(data: CGMData, minutes: int = 5, *, max_gap: int = 20) -> tuple[CGMData, dict[str, Any]]:
    """Readings on a regular grid every ``minutes`` minutes, by the rule of the module docstring.

    Events and the dropped counts are kept as they are.

    Args:
        data: CGM data (canonical readings: glucose mg/dL, naive local time).
        minutes: Grid period, whole minutes dividing a day (5: 288 points a day).
        max_gap: Longest time between two readings, minutes, across which the grid points
            between them are interpolated; 0 interpolates nothing.

    Returns:
        The resampled data (``source["grid"]`` records ``minutes`` and ``max_gap``) and a report:
        ``minutes``, ``max_gap_minutes``, ``rule``, the totals of :data:`GRID_COUNTS` and
        ``per_subject`` (each count per subject).

    Raises:
        WearbenchError: For a period that does not divide 1440, a negative ``max_gap``, or
            readings that are not canonical.
    """
    check_grid(minutes, max_gap)
    readings = check_readings(data.readings, "resample_cgm")
    t_all = readings["time"].to_numpy(dtype="datetime64[ns]").astype(np.int64)
    g_all = readings["glucose"].to_numpy(dtype=np.float64)
    frames, per_subject = [], {}
    period, gap = int(minutes) * _NS_PER_MIN, int(max_gap) * _NS_PER_MIN
    for subject, index in readings.groupby("subject_id", sort=True).indices.items():
        times, values, counts = _subject_grid(t_all[index], g_all[index], period, gap)
        per_subject[str(subject)] = counts
        stamps = times.astype("datetime64[ns]")
        frames.append(pd.DataFrame({"subject_id": str(subject), "time": stamps, "glucose": values}))
    columns = list(readings.columns)
    out = pd.concat(frames, ignore_index=True) if frames else readings.iloc[0:0]
    totals = {k: sum(c[k] for c in per_subject.values()) for k in GRID_COUNTS}
    report = {"minutes": int(minutes), "max_gap_minutes": int(max_gap), "rule": RULE, **totals,
              "per_subject": per_subject}  # fmt: skip
    grid = {"minutes": int(minutes), "max_gap_minutes": int(max_gap)}
    return replace(data, readings=out[columns], source={**data.source, "grid": grid}), report
