"""Weekly windows over retained days and ``(168, 38)`` weekly tensors (step 5)."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from wearbench.minutes import HOURS_PER_DAY, N_CHANNELS
from wearbench.tracks._preprocess import FloatArray

#: The seed's window: 7 calendar days, advancing 1 day, kept with at least 5 retained days.
WEEK_DAYS = 7
WEEK_STRIDE = 1
MIN_RETAINED_DAYS = 5

IntArray = npt.NDArray[np.int64]


def _day_numbers(day_index: npt.ArrayLike) -> IntArray:
    arr = np.asarray(day_index)
    if np.issubdtype(arr.dtype, np.datetime64):
        arr = arr.astype("datetime64[D]").astype(np.int64)
    elif not np.issubdtype(arr.dtype, np.integer):
        raise ValueError(f"day_index must hold integer day numbers or datetime64 dates; got {arr.dtype}")
    days = np.asarray(arr, dtype=np.int64)
    if days.ndim != 1:
        raise ValueError(f"day_index must be 1-D; got shape {days.shape}")
    if days.size > 1 and np.any(np.diff(days) <= 0):
        raise ValueError("day_index must be strictly increasing (one row per calendar day)")
    return days


def weekly_windows(
    day_index: npt.ArrayLike,
    retained: npt.ArrayLike,
    *,
    stride: int = WEEK_STRIDE,
    length: int = WEEK_DAYS,
    min_retained: int = MIN_RETAINED_DAYS,
) -> tuple[IntArray, IntArray]:
    """Candidate windows of ``length`` calendar days, kept when they hold ≥ ``min_retained`` retained days.

    Candidates start at the first date of ``day_index`` and advance ``stride`` calendar days while
    the whole window lies on or before the last date (the seed is silent on the tail; we never build
    a window past the user's data). Calendar gaps are kept as gaps: a missing calendar day counts as
    not retained.

    Args:
        day_index: Calendar day of each row of the user's minute days, shape ``(n_days,)``, strictly
            increasing integer day numbers or ``datetime64`` dates.
        retained: Retained-day mask, shape ``(n_days,)`` bool (:func:`retained_days`).
        stride: Days between candidate starts (the seed's text: 1; its released index: 7).
        length: Window length in days (the seed: 7).
        min_retained: Fewest retained days a kept window holds (the seed: 5).

    Returns:
        ``(starts, rows)``: ``starts`` the kept windows' first day numbers, shape ``(n_windows,)``;
        ``rows`` shape ``(n_windows, length)``, the row of ``day_index`` for each day of the window,
        or -1 where that calendar day has no row or its day is not retained.

    Raises:
        ValueError: Shapes disagree, ``day_index`` is not strictly increasing, or a parameter is < 1.
    """
    days = _day_numbers(day_index)
    keep = np.asarray(retained, dtype=bool)
    if keep.shape != days.shape:
        raise ValueError(f"retained has shape {keep.shape}; day_index has {days.shape}")
    if min(stride, length) < 1:
        raise ValueError(f"stride and length must be >= 1; got stride={stride}, length={length}")
    if days.size == 0:
        return np.zeros(0, dtype=np.int64), np.zeros((0, length), dtype=np.int64)
    span = int(days[-1] - days[0]) + 1
    lookup = np.full(span, -1, dtype=np.int64)
    lookup[days - days[0]] = np.where(keep, np.arange(days.size), -1)
    offsets = np.arange(0, span - length + 1, stride, dtype=np.int64)
    rows = lookup[offsets[:, None] + np.arange(length)]
    kept = (rows >= 0).sum(axis=1) >= min_retained
    return offsets[kept] + days[0], rows[kept]


def stack_weeks(segments: npt.ArrayLike, rows: npt.ArrayLike, *, nan_missing: bool = False) -> FloatArray:
    """Stack daily hourly segments into weekly tensors, shape ``(n_windows, 24 * length, 38)``.

    Args:
        segments: Daily segments from :func:`hourly`, shape ``(n_days, 24, 38)`` (``M`` 1 = missing).
        rows: Window rows from :func:`weekly_windows`, shape ``(n_windows, length)``; -1 = no
            retained day there, filled as all-missing (values 0, or NaN with ``nan_missing``; ``M`` 1).
        nan_missing: Fill absent days' values with NaN instead of 0.

    Returns:
        Weekly tensors, float32, shape ``(n_windows, 24 * length, 38)`` (168 for a 7-day window).

    Raises:
        ValueError: ``segments`` is not ``(n_days, 24, 38)`` or a row index is out of range.
    """
    seg = np.asarray(segments, dtype=np.float32)
    idx = np.asarray(rows, dtype=np.int64)
    if seg.ndim != 3 or seg.shape[1:] != (HOURS_PER_DAY, 2 * N_CHANNELS):
        raise ValueError(f"segments must have shape (n_days, 24, 38); got {seg.shape}")
    if idx.ndim != 2 or (idx.size and (idx.max() >= seg.shape[0] or idx.min() < -1)):
        raise ValueError(f"rows must be (n_windows, length) indices in [-1, {seg.shape[0]}); got {idx.shape}")
    absent = np.zeros((1, HOURS_PER_DAY, 2 * N_CHANNELS), dtype=np.float32)
    absent[:, :, :N_CHANNELS] = np.nan if nan_missing else 0.0
    absent[:, :, N_CHANNELS:] = 1.0
    padded = np.concatenate([seg, absent])
    out: npt.NDArray[np.float32] = padded[np.where(idx >= 0, idx, seg.shape[0])]
    return out.reshape(idx.shape[0], idx.shape[1] * HOURS_PER_DAY, 2 * N_CHANNELS)
