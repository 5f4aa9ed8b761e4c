"""Insulin per 5-minute sample of imported pump data, from its basal-rate and bolus events.

A simulated folder writes the insulin the pump delivered per sample (``insulin.parquet``: the mean
rate over ``[t, t + 5)``, mU/min). Imported data does not; but where a subject's events hold
**basal rates** (``kind`` ``basal`` with ``unit`` ``U/h``: T1D-UOM's pump rows, ShanghaiT1DM's
CSII basal), the same series is well defined and :func:`pump_insulin` builds it:

- a basal rate holds from its minute until the next rate event of the subject, for at most
  :data:`MAX_HOLD_MIN` (24 h: a pump's basal profile repeats daily, so a log without any rate
  event for a day has a gap, not a constant rate); the last one holds to the end of its day. Two
  rates at the same minute: the later row of the file wins. Before the first rate event, in a gap
  and after the last one's day the insulin is unknown (NaN);
- a bolus (``kind`` ``bolus``, U) is delivered within its minute (as the simulator delivers it);
- a sample is the mean over its 5 minutes of (rate + bolus), mU/min; it is NaN when any of its
  minutes has no known rate (a bolus there does not make it known).

Long-acting injections (``basal`` in U, multiple daily injections) are not pump deliveries: a
subject without basal *rates* gets no insulin series (None), and its templates that need insulin
per sample are dropped with ``needs insulin per sample``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from wearbench.cgmqa._series import DAY_MIN, STEP_MIN

RATE_UNIT = "U/h"  #: the unit of a basal-rate event
MU_PER_MIN_PER_U_PER_H = 1000.0 / 60.0  #: 1 U/h in mU/min
MAX_HOLD_MIN = DAY_MIN  #: longest a logged rate is taken to hold without a further rate event, min


def pump_insulin(events: pd.DataFrame, minute: np.ndarray, n: int) -> np.ndarray | None:
    """Insulin per sample (mU/min, mean over ``[t, t + 5)``) from basal-rate and bolus events.

    Args:
        events: One subject's events in time order (``kind``, ``value``, ``unit``), all of them,
            including those before the first reading's day (a rate set then still holds).
        minute: Each event's minute from day 1 00:00 (negative before it).
        n: Samples in the record (288 a day).

    Returns:
        ``n`` values, NaN where the rate is unknown; None without any basal-rate event.
    """
    if "unit" not in events:
        return None
    kind, unit = events["kind"].to_numpy(), events["unit"].fillna("").astype(str).to_numpy()
    value = pd.to_numeric(events["value"], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    is_rate = (kind == "basal") & (unit == RATE_UNIT) & np.isfinite(value)
    if not is_rate.any():
        return None
    total = n * STEP_MIN
    at = np.floor(minute[is_rate]).astype(np.int64)
    rate = value[is_rate] * MU_PER_MIN_PER_U_PER_H
    last = np.r_[at[1:] != at[:-1], True]  # the later row wins at the same minute
    at, rate = at[last], rate[last]
    ends = np.minimum(np.r_[at[1:], (at[-1] // DAY_MIN + 1) * DAY_MIN], at + MAX_HOLD_MIN)
    per_minute = np.full(total, np.nan)
    for a, b, r in zip(np.clip(at, 0, total), np.clip(ends, 0, total), rate, strict=True):
        per_minute[a:b] = r
    is_bolus = (kind == "bolus") & np.isfinite(value)
    bolus_at = np.floor(minute[is_bolus]).astype(np.int64)
    inside = (bolus_at >= 0) & (bolus_at < total)
    np.add.at(per_minute, bolus_at[inside], value[is_bolus][inside] * 1000.0)
    return np.asarray(per_minute.reshape(n, STEP_MIN).mean(axis=1))
