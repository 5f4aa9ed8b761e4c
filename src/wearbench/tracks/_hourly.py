"""Hourly aggregation of OpenMHC minute days into ``(24, 38)`` time-major segments (step 4)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from wearbench.minutes import BINARY, HOURS_PER_DAY, HR, MINUTES_PER_DAY, N_CHANNELS
from wearbench.tracks._preprocess import FloatArray, check_days

#: Count-like continuous channels summed per hour (``nansum``): all continuous channels but HR.
SUM_CHANNELS: tuple[int, ...] = (0, 1, 2, 3, 4, 6)
#: Channels averaged per hour (``nanmean``): heart rate.
MEAN_CHANNELS: tuple[int, ...] = (HR,)


def hourly(
    x: npt.ArrayLike,
    *,
    nan_missing: bool = False,
    sum_channels: Sequence[int] = SUM_CHANNELS,
    mean_channels: Sequence[int] = MEAN_CHANNELS,
    binary_channels: Sequence[int] = BINARY,
) -> FloatArray:
    """Aggregate minute days to hourly segments ``[V^T | M^T]``, shape ``(n_days, 24, 38)``.

    Per channel and hour, over the observed (non-NaN) minutes: ``sum_channels`` are summed,
    ``mean_channels`` averaged, ``binary_channels`` OR-ed (1 if any observed minute is 1, else 0).
    Columns 0–18 hold the values ``V`` (units: per hour for sums, bpm for HR, 0/1 for binary),
    columns 19–37 the missingness indicator ``M`` with **1 = missing** (every minute of that
    channel-hour NaN) and 0 = observed. A missing hour's value is 0 (the seed's storage), or NaN with
    ``nan_missing=True`` (the public API's form; ``M`` is still returned). Sums and means are
    accumulated in float64 and returned as float32.

    Args:
        x: Minute days, shape ``(n_days, 19, 1440)``, NaN = unobserved.
        nan_missing: Store NaN instead of 0 at missing hours in columns 0–18.
        sum_channels: Channels aggregated by ``nansum`` (the seed: 0, 1, 2, 3, 4, 6).
        mean_channels: Channels aggregated by ``nanmean`` (the seed: heart rate, 5).
        binary_channels: Channels aggregated by OR (the seed: 7–18).

    Returns:
        Time-major hourly segments, float32, shape ``(n_days, 24, 38)``.
    """
    arr = check_days(x)
    n = arr.shape[0]
    v = arr.reshape(n, N_CHANNELS, HOURS_PER_DAY, MINUTES_PER_DAY // HOURS_PER_DAY)
    values = np.zeros((n, N_CHANNELS, HOURS_PER_DAY), dtype=np.float64)
    missing = np.ones((n, N_CHANNELS, HOURS_PER_DAY), dtype=bool)
    for chans, kind in ((sum_channels, "sum"), (mean_channels, "mean"), (binary_channels, "or")):
        idx = list(chans)
        if not idx:
            continue
        block = v[:, idx]
        obs = ~np.isnan(block)
        count = obs.sum(axis=-1)
        if kind == "or":
            agg = (block == 1).any(axis=-1).astype(np.float64)
        else:
            agg = np.where(obs, block, 0).sum(axis=-1, dtype=np.float64)
            if kind == "mean":
                agg /= np.maximum(count, 1)
        missing[:, idx] = count == 0
        values[:, idx] = np.where(count > 0, agg, np.nan if nan_missing else 0.0)
    out = np.empty((n, HOURS_PER_DAY, 2 * N_CHANNELS), dtype=np.float32)
    out[:, :, :N_CHANNELS] = values.transpose(0, 2, 1)
    out[:, :, N_CHANNELS:] = missing.transpose(0, 2, 1)
    return out
