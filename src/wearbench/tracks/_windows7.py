"""The seed's 7-day imputation windows (seed 004, Track 2, 7-day methods).

Per user, the retained days are laid on the calendar from the user's first retained date and cut
into chronological, non-overlapping windows of :data:`WINDOW_DAYS` calendar days. A calendar day
without a retained day (a gap) stays in its window as an all-NaN day; the last, partial window is
left-padded with sentinel days (all-NaN) so that its real days sit at its end. ``day_offsets``
maps every window day back to the input day it holds (-1 for a gap or a pad day), so 7-day models
impute whole windows while scoring stays per (real) day.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from wearbench.minutes import MINUTES_PER_DAY, N_CHANNELS

#: Calendar days in a window.
WINDOW_DAYS = 7


@dataclass(frozen=True, eq=False)
class DayWindows:
    """7-day windows of minute days and their mapping back to the input days.

    Attributes:
        windows: ``(w, 7, 19, 1440)`` float32; gap and pad days all-NaN.
        day_offsets: ``(w, 7)`` int64 index of the input day each window day holds; -1 if none.
        padded: ``(w, 7)`` bool, True for a sentinel day left-padding the tail window.
        gap: ``(w, 7)`` bool, True for a calendar day inside the user's range without a retained day.
        users: ``(w,)`` the user id of each window.
    """

    windows: NDArray[np.float32]
    day_offsets: NDArray[np.int64]
    padded: NDArray[np.bool_]
    gap: NDArray[np.bool_]
    users: NDArray[Any]


def _calendar_slots(dates: NDArray[np.datetime64], window: int) -> NDArray[np.int64]:
    """Slot (window-major, from the first date) of each date; tail left-padded; ``(n,)``."""
    day = (dates.astype("datetime64[D]") - dates.astype("datetime64[D]").min()).astype(np.int64)
    n_cal = int(day.max()) + 1
    full, tail = divmod(n_cal, window)
    # dates in the tail window move right by the padding so the real days end the window
    shift = np.where((day >= full * window) & (tail > 0), window - tail, 0)
    return np.asarray(day + shift, dtype=np.int64)


def user_windows(
    days: NDArray[np.floating[Any]],
    dates: NDArray[np.datetime64] | None,
    *,
    window: int = WINDOW_DAYS,
) -> tuple[NDArray[np.float32], NDArray[np.int64], NDArray[np.bool_], NDArray[np.bool_]]:
    """One user's 7-day windows.

    Args:
        days: The user's days, ``(n, 19, 1440)`` float, NaN = unobserved.
        dates: ``(n,)`` distinct ``datetime64[D]`` dates of ``days``; None = consecutive days.
        window: Calendar days per window.

    Returns:
        ``(windows, day_offsets, padded, gap)`` as in :class:`DayWindows` (offsets into ``days``).

    Raises:
        ValueError: For mismatched shapes or repeated dates.
    """
    n = days.shape[0]
    if days.shape[1:] != (N_CHANNELS, MINUTES_PER_DAY):
        raise ValueError(f"days must have shape (n, {N_CHANNELS}, {MINUTES_PER_DAY}); got {days.shape}")
    if n == 0:
        empty = np.zeros((0, window), dtype=bool)
        return (np.zeros((0, window, N_CHANNELS, MINUTES_PER_DAY), np.float32),
                np.zeros((0, window), np.int64), empty, empty.copy())  # fmt: skip
    d = np.arange(n).astype("datetime64[D]") if dates is None else np.asarray(dates, "datetime64[D]")
    if d.shape != (n,) or np.unique(d).size != n:
        raise ValueError(f"dates must be {n} distinct days; got shape {d.shape}")
    slots = _calendar_slots(d, window)
    n_win = int(slots.max()) // window + 1
    offsets = np.full(n_win * window, -1, dtype=np.int64)
    offsets[slots] = np.arange(n)
    n_cal = int((d.max() - d.min()).astype(np.int64)) + 1
    tail = n_cal % window
    padded = np.zeros(n_win * window, dtype=bool)
    if tail:
        padded[(n_win - 1) * window : n_win * window - tail] = True
    gap = (offsets < 0) & ~padded
    windows = np.full((n_win * window, N_CHANNELS, MINUTES_PER_DAY), np.nan, dtype=np.float32)
    windows[slots] = days
    shape = (n_win, window)
    return (windows.reshape(n_win, window, N_CHANNELS, MINUTES_PER_DAY), offsets.reshape(shape),
            padded.reshape(shape), gap.reshape(shape))  # fmt: skip


def day_windows(
    days: NDArray[np.floating[Any]],
    users: NDArray[Any] | None = None,
    dates: NDArray[np.datetime64] | None = None,
    *,
    window: int = WINDOW_DAYS,
) -> DayWindows:
    """7-day windows of several users' days (users in sorted order, each from their first date).

    Args:
        days: ``(n, 19, 1440)`` float minute days, NaN = unobserved.
        users: ``(n,)`` user id per day; None = one user.
        dates: ``(n,)`` ``datetime64[D]`` date per day (distinct within a user); None = each
            user's days are consecutive calendar days in input order.
        window: Calendar days per window.

    Returns:
        The windows, with ``day_offsets`` into ``days``.
    """
    n = days.shape[0]
    u = np.zeros(n, dtype=np.int64) if users is None else np.asarray(users)
    if u.shape != (n,):
        raise ValueError(f"users must give one id per day, shape ({n},); got {u.shape}")
    parts = []
    for k in np.unique(u):
        idx = np.flatnonzero(u == k)
        w, off, pad, gap = user_windows(days[idx], None if dates is None else np.asarray(dates)[idx],
                                        window=window)  # fmt: skip
        parts.append((w, np.where(off >= 0, idx[np.maximum(off, 0)], -1), pad, gap, np.full(w.shape[0], k)))
    if not parts:
        return DayWindows(np.zeros((0, window, N_CHANNELS, MINUTES_PER_DAY), np.float32),
                          np.zeros((0, window), np.int64), np.zeros((0, window), bool),
                          np.zeros((0, window), bool), u[:0])  # fmt: skip
    return DayWindows(*(np.concatenate([p[i] for p in parts]) for i in range(5)))


def windows_to_days(
    windows: NDArray[np.floating[Any]], day_offsets: NDArray[np.int64], n_days: int
) -> NDArray[np.float64]:
    """Map window days back to the input days: ``out[day_offsets[i, j]] = windows[i, j]``.

    Args:
        windows: ``(w, 7, 19, 1440)`` (e.g. imputed windows).
        day_offsets: ``(w, 7)`` from :func:`day_windows`.
        n_days: Number of input days.

    Returns:
        ``(n_days, 19, 1440)`` float64; a day no window holds stays NaN.
    """
    out = np.full((n_days, N_CHANNELS, MINUTES_PER_DAY), np.nan)
    real = day_offsets >= 0
    out[day_offsets[real]] = windows[real]
    return out
