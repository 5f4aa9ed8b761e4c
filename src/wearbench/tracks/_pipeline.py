"""Preprocess one minute user the seed's way: retained days, then zero-to-NaN (steps 1–3).

:func:`prepare_user` turns a :class:`~wearbench.minutes.MinuteUser` into the days every track
works on: the retained days (wear filter, then low-variance filter) with the zero-to-NaN rules
applied, their dates, and a :class:`DayCounts` summary of how many days each rule dropped.
:func:`preprocess_cohort` reads a minute-cohort folder one user at a time and returns the
summaries only (the ``wearbench track preprocess`` report). :func:`hourly_user` runs steps 1–4 on
a user's file a row group (32 days) at a time: every step is per day, so the result equals the
whole-user steps, with a small, fixed working set.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass

import numpy as np
import numpy.typing as npt

from wearbench.executors import Executor, LocalExecutor
from wearbench.minutes import (
    DAYS_PER_ROW_GROUP,
    MinuteUser,
    iter_minute_user_chunks,
    minute_user_ids,
)
from wearbench.tracks._hourly import hourly
from wearbench.tracks._preprocess import (
    MAX_NONWEAR_MINUTES,
    VARIANCE_THRESHOLDS,
    low_variance_filter,
    wear_filter,
    zero_to_nan,
)


@dataclass(frozen=True)
class DayCounts:
    """How many of one user's days each preprocessing rule kept or dropped.

    Attributes:
        user_id: The user.
        n_days: Days in the input.
        wear_dropped: Days dropped by the wear filter (more than 720 non-wear minutes).
        variance_dropped: Wear-kept days dropped by the low-variance filter.
        retained: Days left (``n_days - wear_dropped - variance_dropped``).
    """

    user_id: str
    n_days: int
    wear_dropped: int
    variance_dropped: int
    retained: int

    def to_dict(self) -> dict[str, object]:
        """JSON-ready mapping of the fields."""
        return asdict(self)


@dataclass(frozen=True, eq=False)
class PreparedUser:
    """One user's retained, zero-to-NaN'd minute days.

    Attributes:
        user_id: The user.
        dates: ``datetime64[D]`` dates of the retained days, shape ``(n,)``.
        days: ``(n, 19, 1440)`` float32 minute days after zero-to-NaN (NaN = unobserved).
        counts: Days kept and dropped per rule.
    """

    user_id: str
    dates: npt.NDArray[np.datetime64]
    days: npt.NDArray[np.float32]
    counts: DayCounts


@dataclass(frozen=True, eq=False)
class HourlyUser:
    """One user's retained-day flags and the hourly segments of the retained days (steps 1–4).

    Attributes:
        user_id: The user.
        dates: ``datetime64[D]`` dates of all the user's days, shape ``(n_days,)``.
        retained: Retained-day mask (wear, then low variance), shape ``(n_days,)`` bool.
        segments: ``(n_retained, 24, 38)`` float32 hourly segments ``[V^T | M^T]`` of the retained
            days after zero-to-NaN (M = 1 for missing; see :func:`~wearbench.tracks.hourly`).
        counts: Days kept and dropped per rule.
    """

    user_id: str
    dates: npt.NDArray[np.datetime64]
    retained: npt.NDArray[np.bool_]
    segments: npt.NDArray[np.float32]
    counts: DayCounts


def _retained(user: MinuteUser, max_nonwear: int, thresholds: Mapping[int, float]) -> tuple[np.ndarray, int]:
    """(retained-day mask, wear-kept days) of one user or chunk."""
    keep = wear_filter(user.non_wear, max_nonwear)
    idx = np.flatnonzero(keep)
    keep[idx] = low_variance_filter(user.values[idx], thresholds)
    return keep, int(idx.size)


def hourly_user(
    path: str | os.PathLike[str],
    user_id: str,
    *,
    max_nonwear: int = MAX_NONWEAR_MINUTES,
    thresholds: Mapping[int, float] = VARIANCE_THRESHOLDS,
    chunk_days: int = DAYS_PER_ROW_GROUP,
) -> HourlyUser:
    """Steps 1–4 of one user of a minute-cohort folder, read and processed in day chunks.

    Equal to ``retained_days`` then ``hourly(zero_to_nan(x[retained]))`` on the whole user (each
    step is per day), but only one row group and one chunk of ``chunk_days`` days are in memory
    besides the outputs (about 3.6 KiB per retained day). Weekly windows need the flags of all
    days: ``weekly_windows(dates, result.retained)``.

    Args:
        path: Minute-cohort folder.
        user_id: The user.
        max_nonwear: Most non-wear minutes of a kept day (the seed: 720).
        thresholds: Low-variance thresholds per channel (the seed's by default).
        chunk_days: Most days processed at once.

    Returns:
        Dates and retained flags of all days, the retained days' hourly segments, the counts.

    Raises:
        WearbenchError: If the user's file is missing or unreadable.
    """
    dates, flags, segs, worn = [], [], [], 0
    for chunk in iter_minute_user_chunks(path, user_id, max_days=chunk_days):
        keep, n_worn = _retained(chunk, max_nonwear, thresholds)
        dates.append(chunk.dates)
        flags.append(keep)
        segs.append(hourly(zero_to_nan(chunk.values[keep])))
        worn += n_worn
    retained = np.concatenate(flags) if flags else np.zeros(0, dtype=bool)
    n, kept = int(retained.size), int(retained.sum())
    counts = DayCounts(user_id, n, n - worn, worn - kept, kept)
    return HourlyUser(
        user_id,
        np.concatenate(dates) if dates else np.zeros(0, dtype="datetime64[D]"),
        retained,
        np.concatenate(segs) if segs else np.zeros((0, 24, 38), dtype=np.float32),
        counts,
    )


def user_day_counts(
    path: str | os.PathLike[str],
    user_id: str,
    *,
    max_nonwear: int = MAX_NONWEAR_MINUTES,
    thresholds: Mapping[int, float] = VARIANCE_THRESHOLDS,
) -> DayCounts:
    """One user's :class:`DayCounts` (steps 1–2), read a row group at a time.

    Raises:
        WearbenchError: If the user's file is missing or unreadable.
    """
    n, worn, kept = 0, 0, 0
    for chunk in iter_minute_user_chunks(path, user_id):
        keep, n_worn = _retained(chunk, max_nonwear, thresholds)
        n, worn, kept = n + keep.size, worn + n_worn, kept + int(keep.sum())
    return DayCounts(user_id, n, n - worn, worn - kept, kept)


def prepare_user(
    user: MinuteUser,
    *,
    max_nonwear: int = MAX_NONWEAR_MINUTES,
    thresholds: Mapping[int, float] = VARIANCE_THRESHOLDS,
    max_days: int | None = None,
) -> PreparedUser:
    """Retained days of one user (wear, then low variance) with the zero-to-NaN rules applied.

    Args:
        user: The user's dense minute days ``(n_days, 19, 1440)`` and non-wear ``(n_days, 1440)``.
        max_nonwear: Most non-wear minutes of a kept day (the seed: 720).
        thresholds: Low-variance thresholds per channel (the seed's by default).
        max_days: Keep at most this many retained days (the first ones, in date order); None = all.

    Returns:
        The retained days, their dates and the per-rule counts (counted before ``max_days``).
    """
    worn = wear_filter(user.non_wear, max_nonwear)
    idx = np.flatnonzero(worn)
    low_var_ok = low_variance_filter(user.values[idx], thresholds)
    kept = idx[low_var_ok]
    n = int(user.values.shape[0])
    counts = DayCounts(
        user_id=user.user_id,
        n_days=n,
        wear_dropped=n - int(idx.size),
        variance_dropped=int(idx.size - kept.size),
        retained=int(kept.size),
    )
    if max_days is not None:
        kept = kept[:max_days]
    return PreparedUser(user.user_id, user.dates[kept], zero_to_nan(user.values[kept]), counts)


def _day_counts(task: tuple[str | os.PathLike[str], str]) -> DayCounts:
    """:func:`user_day_counts` of one user (an executor task: top level, picklable)."""
    return user_day_counts(*task)


def preprocess_cohort(
    path: str | os.PathLike[str],
    *,
    limit_users: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    executor: Executor | None = None,
) -> list[DayCounts]:
    """Per-user day counts of the preprocessing over a minute-cohort folder, a row group at a time.

    Args:
        path: Minute-cohort folder (``wearbench track synth-minutes`` or a loader's output).
        limit_users: Only the first ``limit_users`` users (in the folder's order); None = all.
        progress: Optional ``(users_done, users_total)`` callback.
        executor: Where each user's counts run, one user per task (:mod:`wearbench.executors`;
            default serial); the counts come back in the folder's order on every executor.

    Returns:
        One :class:`DayCounts` per user, in the folder's order.
    """
    total = len(minute_user_ids(path))
    if limit_users is not None:
        total = min(total, limit_users)
    runner = executor if executor is not None else LocalExecutor(1)
    out: list[DayCounts] = []
    for counts in runner.map(_day_counts, [(path, uid) for uid in minute_user_ids(path)[:total]]):
        out.append(counts)
        if progress is not None:
            progress(len(out), total)
    return out
