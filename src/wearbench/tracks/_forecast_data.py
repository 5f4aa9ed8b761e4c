"""Hourly forecasting windows from a preprocessed user (seed 004, Track 3).

A user's **trajectory** covers every calendar day from their first to their last retained day:
retained days carry the hourly aggregates of :func:`~wearbench.tracks.hourly` (NaN at missing
hours), non-retained days are invalid and all NaN. **Origins** sit at local midnight (the start of
a day). An origin on day ``d`` is valid when all ``H / 24`` target days ``d … d + H/24 - 1`` are
retained days and at least 3 of the 7 previous days ``d - 7 … d - 1`` are (days before the
trajectory count as not valid). At most 100 origins per user are kept, drawn without replacement
by a seeded generator and sorted. A model sees at most 336 h of history before the origin; hours
before the trajectory are NaN. The forecasting observed mask is ``~isnan(target)`` (1 = observed,
the opposite polarity of the hourly segments' ``M``).
"""

from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from wearbench.minutes import HOURS_PER_DAY, N_CHANNELS
from wearbench.tracks._hourly import hourly
from wearbench.tracks._pipeline import PreparedUser

#: Forecast horizon in hours (the seed's default; 48 is the dataset's variant).
HORIZON_HOURS = 24
#: Most hours of history a model sees before the origin.
HISTORY_HOURS = 336
#: Most origins kept per user.
MAX_ORIGINS = 100
#: Previous days looked at by the validity rule, and how many of them must be valid.
PRIOR_DAYS = 7
MIN_PRIOR_VALID = 3


@dataclass(frozen=True, eq=False)
class Trajectory:
    """One user's hourly trajectory over calendar days.

    Attributes:
        user_id: The user.
        start: ``datetime64[D]`` first calendar day (the first retained day).
        values: ``(n_days * 24, 19)`` float32 hourly values (sums per hour, HR bpm, binary 0/1);
            NaN = unobserved hour or non-retained day.
        valid: ``(n_days,)`` bool, True on retained days.
    """

    user_id: str
    start: np.datetime64
    values: NDArray[np.float32]
    valid: NDArray[np.bool_]


@dataclass(frozen=True, eq=False)
class ForecastWindows:
    """Forecasting windows of one or more users.

    Attributes:
        participants: ``(N,)`` user id per window.
        origins: ``(N,)`` ``datetime64[D]`` origin day (forecast starts at its midnight).
        history: ``(N, L, 19)`` float32, the ``L`` hours before the origin (oldest first), NaN
            where unobserved or before the trajectory.
        target: ``(N, H, 19)`` float32, the ``H`` hours from the origin, NaN = unobserved.
    """

    participants: NDArray[np.str_]
    origins: NDArray[np.datetime64]
    history: NDArray[np.float32]
    target: NDArray[np.float32]

    def __len__(self) -> int:
        return int(self.target.shape[0])


def check_horizon(horizon: int) -> int:
    """The horizon in whole days; raises ``ValueError`` unless a positive multiple of 24 h."""
    if horizon < HOURS_PER_DAY or horizon % HOURS_PER_DAY:
        raise ValueError(f"horizon must be a positive multiple of 24 hours (24 or 48); got {horizon}")
    return horizon // HOURS_PER_DAY


def trajectory(user: PreparedUser) -> Trajectory:
    """The hourly calendar-day trajectory of a preprocessed user.

    Args:
        user: Retained, zero-to-NaN'd days (:func:`~wearbench.tracks.prepare_user`).

    Returns:
        The :class:`Trajectory`; empty (0 days) for a user without retained days.
    """
    dates = np.asarray(user.dates, dtype="datetime64[D]")
    if dates.size == 0:
        empty = np.zeros((0, N_CHANNELS), dtype=np.float32)
        return Trajectory(user.user_id, np.datetime64("1970-01-01", "D"), empty, np.zeros(0, dtype=bool))
    start = dates.min()
    n_days = int((dates.max() - start).astype(int)) + 1
    seg = hourly(user.days, nan_missing=True)[:, :, :N_CHANNELS]  # (n, 24, 19)
    grid = np.full((n_days, HOURS_PER_DAY, N_CHANNELS), np.nan, dtype=np.float32)
    pos = (dates - start).astype(int)
    grid[pos] = seg
    valid = np.zeros(n_days, dtype=bool)
    valid[pos] = True
    return Trajectory(user.user_id, start, grid.reshape(n_days * HOURS_PER_DAY, N_CHANNELS), valid)


def valid_origins(
    valid: NDArray[np.bool_],
    horizon: int = HORIZON_HOURS,
    *,
    prior_days: int = PRIOR_DAYS,
    min_prior_valid: int = MIN_PRIOR_VALID,
) -> NDArray[np.int64]:
    """Day indices whose midnight is a valid origin.

    Args:
        valid: ``(n_days,)`` bool, True on retained (valid) days.
        horizon: Forecast horizon in hours (a multiple of 24).
        prior_days: Previous days the rule looks at (the seed: 7).
        min_prior_valid: Least valid days among them (the seed: 3); days before index 0 are invalid.

    Returns:
        Ascending int64 day indices ``d``: days ``d … d + H/24 - 1`` all valid and at least
        ``min_prior_valid`` of days ``d - prior_days … d - 1`` valid.
    """
    v = np.asarray(valid, dtype=bool)
    span = check_horizon(horizon)
    n = v.size
    if n < span:
        return np.zeros(0, dtype=np.int64)
    csum = np.concatenate([[0], np.cumsum(v)])
    d: NDArray[np.int64] = np.arange(n - span + 1, dtype=np.int64)
    targets_ok = csum[d + span] - csum[d] == span
    prior = csum[d] - csum[np.maximum(d - prior_days, 0)]
    kept: NDArray[np.int64] = d[targets_ok & (prior >= min_prior_valid)]
    return kept


def draw_origins(
    origins: NDArray[np.int64], rng: np.random.Generator, cap: int = MAX_ORIGINS
) -> NDArray[np.int64]:
    """At most ``cap`` origins, drawn without replacement and sorted (all of them when fewer).

    Args:
        origins: Candidate day indices.
        rng: The user's generator (:func:`origin_rng`); not touched when no draw is needed.
        cap: Most origins kept (≥ 1).

    Returns:
        Sorted int64 day indices.
    """
    if cap < 1:
        raise ValueError(f"origin cap must be >= 1; got {cap}")
    o = np.asarray(origins, dtype=np.int64)
    if o.size <= cap:
        return np.sort(o)
    return np.sort(rng.choice(o, size=cap, replace=False))


def origin_rng(seed: int, user_id: str) -> np.random.Generator:
    """The generator of one user's origin draw (independent of the other users and the methods)."""
    return np.random.default_rng([seed, zlib.crc32(user_id.encode()), zlib.crc32(b"forecast-origins")])


def forecast_windows(
    traj: Trajectory,
    origins: NDArray[np.int64],
    horizon: int = HORIZON_HOURS,
    history: int = HISTORY_HOURS,
) -> ForecastWindows:
    """History and target arrays of one user's origins.

    Args:
        traj: The user's trajectory.
        origins: Day indices of the origins (:func:`valid_origins`, :func:`draw_origins`).
        horizon: ``H`` hours of target.
        history: ``L`` hours of history (hours before the trajectory are NaN).

    Returns:
        The :class:`ForecastWindows` (``N = len(origins)``).
    """
    check_horizon(horizon)
    if history < HOURS_PER_DAY:
        raise ValueError(f"history must be at least 24 hours; got {history}")
    pad = np.full((history, N_CHANNELS), np.nan, dtype=np.float32)
    series = np.concatenate([pad, traj.values], axis=0)
    o = np.asarray(origins, dtype=np.int64)
    t0 = o * HOURS_PER_DAY + history  # origin hour in the padded series
    hist_idx = t0[:, None] + np.arange(-history, 0)[None, :]
    targ_idx = t0[:, None] + np.arange(horizon)[None, :]
    if o.size and targ_idx.max() >= series.shape[0]:
        raise ValueError(f"user {traj.user_id}: an origin's target runs past the trajectory's last day")
    return ForecastWindows(
        participants=np.full(o.size, traj.user_id),
        origins=traj.start + o.astype("timedelta64[D]"),
        history=series[hist_idx],
        target=series[targ_idx],
    )


def user_forecast_windows(
    user: PreparedUser,
    seed: int,
    horizon: int = HORIZON_HOURS,
    *,
    history: int = HISTORY_HOURS,
    cap: int = MAX_ORIGINS,
) -> tuple[ForecastWindows, int]:
    """A user's capped forecasting windows, and how many valid origins there were before the cap.

    Args:
        user: The preprocessed user.
        seed: Root seed of the origin draw (:func:`origin_rng`).
        horizon: ``H`` hours.
        history: ``L`` hours of history.
        cap: Most origins per user.

    Returns:
        ``(windows, n_valid)``.
    """
    traj = trajectory(user)
    cand = valid_origins(traj.valid, horizon)
    kept = draw_origins(cand, origin_rng(seed, user.user_id), cap)
    return forecast_windows(traj, kept, horizon, history), int(cand.size)


def concat_forecast_windows(parts: list[ForecastWindows], horizon: int, history: int) -> ForecastWindows:
    """Stack several users' windows (empty arrays of the right shapes when ``parts`` is empty)."""
    if not parts:
        return ForecastWindows(
            np.zeros(0, dtype=str),
            np.zeros(0, dtype="datetime64[D]"),
            np.zeros((0, history, N_CHANNELS), dtype=np.float32),
            np.zeros((0, horizon, N_CHANNELS), dtype=np.float32),
        )
    return ForecastWindows(
        np.concatenate([p.participants for p in parts]),
        np.concatenate([p.origins for p in parts]),
        np.concatenate([p.history for p in parts]),
        np.concatenate([p.target for p in parts]),
    )
