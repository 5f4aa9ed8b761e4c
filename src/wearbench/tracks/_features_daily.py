"""Daily descriptors for the outcome track's XGBoost features, and their aggregation over days.

Each retained day ``(19, 1440)`` (after zero-to-NaN; NaN = unobserved) gives :data:`N_DESCRIPTORS`
numbers (:data:`DESCRIPTOR_NAMES`, units in ``docs/openmhc-features.md``); a participant's days
are then aggregated per descriptor by P5, median, P95 and IQR (P75 − P25) over the days where the
descriptor is finite (:func:`aggregate_days`). Everything is vectorised over days.

"Steps" below is the combined step count per minute: watch steps (channel 3) where observed, else
iPhone steps (channel 0). Clock windows (minutes of the local day): night 00:00–06:00, daytime
08:00–20:00.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from numpy.typing import NDArray

from wearbench.minutes import ACTIVE_ENERGY, ASLEEP, CHANNEL_NAMES, HR, INBED, MINUTES_PER_DAY, WORKOUTS

FloatArray = NDArray[np.floating[Any]]
F64 = NDArray[np.float64]

#: Count channels summarised per day (channel index, short name).
COUNT_CHANNELS: tuple[tuple[int, str], ...] = (
    (0, "phone_steps"),
    (1, "phone_distance"),
    (2, "phone_flights"),
    (3, "watch_steps"),
    (4, "watch_distance"),
    (ACTIVE_ENERGY, "active_energy"),
)
#: Cadence zones (steps/min): sedentary 0, light 1–59, moderate 60–99, vigorous >= 100.
ZONE_EDGES: tuple[float, float, float] = (1.0, 60.0, 100.0)
NIGHT = slice(0, 6 * 60)
DAYTIME = slice(8 * 60, 20 * 60)
#: HR thresholds (bpm) for the minutes-above features.
HR_HIGH: tuple[int, int] = (100, 140)
#: Hours in the L5 / M10 windows.
L_HOURS, M_HOURS = 5, 10
#: Aggregates over days, in feature-name order.
AGGREGATES: tuple[str, ...] = ("p5", "median", "p95", "iqr")

#: Short names of the 10 workout channels (9–18), in channel order.
WORKOUT_SHORT: tuple[str, ...] = (
    "walking",
    "cycling",
    "running",
    "other",
    "mixed_cardio",
    "traditional_strength",
    "elliptical",
    "hiit",
    "functional_strength",
    "yoga",
)

DESCRIPTOR_NAMES: tuple[str, ...] = (
    *(f"{s}_{k}" for _, s in COUNT_CHANNELS for k in ("total", "max_minute", "observed_min")),
    "sedentary_min",
    "light_min",
    "moderate_min",
    "vigorous_min",
    "active_min",
    "hr_mean",
    "hr_sd",
    "hr_min",
    "hr_max",
    "hr_p5",
    "hr_p50",
    "hr_p95",
    "hr_resting",
    "hr_day_mean",
    "hr_night_mean",
    "hr_steps_mean",
    f"hr_above{HR_HIGH[0]}_min",
    f"hr_above{HR_HIGH[1]}_min",
    "hr_observed_min",
    "asleep_min",
    "inbed_min",
    "sleep_efficiency",
    "sleep_onset_h",
    "sleep_offset_h",
    "sleep_midpoint_h",
    "sleep_bouts",
    "hr_asleep_mean",
    *(f"workout_{w}_min" for w in WORKOUT_SHORT),
    "workout_total_min",
    "workout_sessions",
    "steps_l5",
    "steps_m10",
    "steps_ra",
    "steps_l5_start_h",
    "steps_m10_start_h",
    "steps_iv",
)
N_DESCRIPTORS = len(DESCRIPTOR_NAMES)  #: 63


def quiet_nan(fn: Any, *args: Any, **kwargs: Any) -> Any:
    """Call a numpy nan-reduction with its all-NaN / empty-slice warnings silenced (result NaN)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", category=RuntimeWarning)
        return fn(*args, **kwargs)


def _count(mask: NDArray[np.bool_], observed: NDArray[np.bool_]) -> F64:
    """Minutes where ``mask`` holds, per day; NaN on a day with no observed minute."""
    return np.where(observed.any(axis=-1), mask.sum(axis=-1), np.nan).astype(np.float64)


def combined_steps(days: FloatArray) -> F64:
    """``(n, 1440)`` steps/min: watch steps (channel 3) where observed, else iPhone steps (channel 0)."""
    watch = np.asarray(days[:, 3, :], dtype=np.float64)
    return np.where(np.isfinite(watch), watch, np.asarray(days[:, 0, :], dtype=np.float64))


def _activity(days: FloatArray, steps: F64) -> list[F64]:
    out: list[F64] = []
    for c, _ in COUNT_CHANNELS:
        x = np.asarray(days[:, c, :], dtype=np.float64)
        ok = np.isfinite(x)
        any_ok = ok.any(axis=-1)
        out.append(np.where(any_ok, np.where(ok, x, 0.0).sum(axis=-1), np.nan))
        out.append(np.where(any_ok, np.where(ok, x, -np.inf).max(axis=-1), np.nan))
        out.append(ok.sum(axis=-1).astype(np.float64))
    ok = np.isfinite(steps)
    s = np.where(ok, steps, -1.0)
    lo, mid, hi = ZONE_EDGES
    out += [
        _count(ok & (s < lo), ok),
        _count((s >= lo) & (s < mid), ok),
        _count((s >= mid) & (s < hi), ok),
        _count(s >= hi, ok),
        _count(s >= mid, ok),
    ]
    return out


def _hr(days: FloatArray, steps: F64) -> list[F64]:
    hr = np.asarray(days[:, HR, :], dtype=np.float64)
    ok = np.isfinite(hr)
    p5, p50, p95 = quiet_nan(np.nanpercentile, hr, [5, 50, 95], axis=-1)
    moving = np.where(np.isfinite(steps) & (steps > 0), hr, np.nan)
    h = np.where(ok, hr, 0.0)
    return [
        quiet_nan(np.nanmean, hr, axis=-1),
        quiet_nan(np.nanstd, hr, axis=-1, ddof=1),
        quiet_nan(np.nanmin, hr, axis=-1),
        quiet_nan(np.nanmax, hr, axis=-1),
        p5,
        p50,
        p95,
        quiet_nan(np.nanpercentile, hr[:, NIGHT], 5, axis=-1),
        quiet_nan(np.nanmean, hr[:, DAYTIME], axis=-1),
        quiet_nan(np.nanmean, hr[:, NIGHT], axis=-1),
        quiet_nan(np.nanmean, moving, axis=-1),
        _count(h > HR_HIGH[0], ok),
        _count(h > HR_HIGH[1], ok),
        ok.sum(axis=-1).astype(np.float64),
    ]


def _runs(on: NDArray[np.bool_]) -> F64:
    """Number of runs of True per row (a run starting at minute 0 counts)."""
    starts = on[:, 1:] & ~on[:, :-1]
    return np.asarray(starts.sum(axis=-1) + on[:, 0], dtype=np.float64)


def _sleep(days: FloatArray) -> list[F64]:
    asleep = np.asarray(days[:, ASLEEP, :], dtype=np.float64)
    inbed = np.asarray(days[:, INBED, :], dtype=np.float64)
    ok_s, ok_b = np.isfinite(asleep), np.isfinite(inbed)
    on = ok_s & (asleep > 0.5)
    a_min = np.where(ok_s.any(axis=-1), on.sum(axis=-1), np.nan).astype(np.float64)
    b_min = np.where(ok_b.any(axis=-1), (ok_b & (inbed > 0.5)).sum(axis=-1), np.nan).astype(np.float64)
    eff = np.where(b_min > 0, a_min / np.where(b_min > 0, b_min, 1.0), np.nan)
    # Hours relative to midnight in [-12, 12): 23:00 -> -1, 07:00 -> 7 (noon-anchored clock).
    rel = ((np.arange(MINUTES_PER_DAY) + 720) % MINUTES_PER_DAY) / 60.0 - 12.0
    t = np.where(on, rel[None, :], np.nan)
    hr = np.where(on, np.asarray(days[:, HR, :], dtype=np.float64), np.nan)
    return [
        a_min,
        b_min,
        eff,
        quiet_nan(np.nanmin, t, axis=-1),
        quiet_nan(np.nanmax, t, axis=-1),
        quiet_nan(np.nanmean, t, axis=-1),
        np.where(on.any(axis=-1), _runs(on), np.where(ok_s.any(axis=-1), 0.0, np.nan)),
        quiet_nan(np.nanmean, hr, axis=-1),
    ]


def _workouts(days: FloatArray) -> list[F64]:
    w = np.asarray(days[:, list(WORKOUTS), :], dtype=np.float64)
    ok = np.isfinite(w)
    on: NDArray[np.bool_] = np.asarray(ok & (w > 0.5))
    seen: NDArray[np.bool_] = np.asarray(ok.any(axis=-1))
    out = [
        np.where(seen[:, k], on[:, k].sum(axis=-1), np.nan).astype(np.float64) for k in range(len(WORKOUTS))
    ]
    any_on: NDArray[np.bool_] = np.asarray(on.any(axis=1))
    any_seen: NDArray[np.bool_] = np.asarray(seen.any(axis=-1))
    out.append(np.where(any_seen, any_on.sum(axis=-1), np.nan).astype(np.float64))
    out.append(np.where(any_seen, _runs(any_on), np.nan))
    return out


def _window_means(hourly: F64, width: int) -> F64:
    """``(n, 24)`` circular means of ``width`` consecutive hours starting at each hour.

    A window with fewer than ``ceil(width / 2)`` observed hours is NaN.
    """
    idx = (np.arange(24)[:, None] + np.arange(width)[None, :]) % 24
    win = hourly[:, idx]  # (n, 24, width)
    ok = np.isfinite(win)
    n = ok.sum(axis=-1)
    mean = np.where(ok, win, 0.0).sum(axis=-1) / np.maximum(n, 1)
    return np.where(n >= -(-width // 2), mean, np.nan)


def _circadian(steps: F64) -> list[F64]:
    """L5, M10, RA, their start hours and IV from the day's hourly step totals."""
    s = steps.reshape(steps.shape[0], 24, 60)
    ok = np.isfinite(s)
    hourly = np.where(ok.any(axis=-1), np.where(ok, s, 0.0).sum(axis=-1), np.nan)
    lw, mw = _window_means(hourly, L_HOURS), _window_means(hourly, M_HOURS)
    any_l, any_m = np.isfinite(lw).any(axis=-1), np.isfinite(mw).any(axis=-1)
    l5 = np.where(any_l, np.where(np.isfinite(lw), lw, np.inf).min(axis=-1), np.nan)
    m10 = np.where(any_m, np.where(np.isfinite(mw), mw, -np.inf).max(axis=-1), np.nan)
    l5_h = np.where(any_l, np.argmin(np.where(np.isfinite(lw), lw, np.inf), axis=-1), np.nan)
    m10_h = np.where(any_m, np.argmax(np.where(np.isfinite(mw), mw, -np.inf), axis=-1), np.nan)
    tot = l5 + m10
    ra = np.where(tot > 0, (m10 - l5) / np.where(tot > 0, tot, 1.0), np.nan)
    return [l5, m10, ra, l5_h.astype(np.float64), m10_h.astype(np.float64), intradaily_variability(hourly)]


def intradaily_variability(hourly: FloatArray) -> F64:
    """IV per row: ``(n Σ (x_{h+1} − x_h)²) / ((n − 1) Σ (x_h − x̄)²)`` over observed hours.

    Differences use consecutive clock hours that are both observed; ``n`` counts observed hours
    and ``n − 1`` the differences the formula expects. NaN with fewer than 3 observed hours or a
    constant day.

    Args:
        hourly: ``(n_days, 24)`` hourly totals, NaN = unobserved hour.

    Returns:
        ``(n_days,)`` dimensionless IV (0 smooth … ~2 noise).
    """
    x = np.asarray(hourly, dtype=np.float64)
    ok = np.isfinite(x)
    n = ok.sum(axis=-1)
    mean = np.where(ok, x, 0.0).sum(axis=-1) / np.maximum(n, 1)
    ss = np.where(ok, (x - mean[:, None]) ** 2, 0.0).sum(axis=-1)
    d = np.diff(x, axis=-1)
    dd = np.where(np.isfinite(d), d**2, 0.0).sum(axis=-1)
    good = (n >= 3) & (ss > 0)
    return np.where(good, n * dd / np.where(good, (n - 1) * ss, 1.0), np.nan)


def daily_descriptors(days: FloatArray) -> F64:
    """Per-day descriptors.

    Args:
        days: ``(n, 19, 1440)`` retained, zero-to-NaN'd minute days (NaN = unobserved).

    Returns:
        ``(n, N_DESCRIPTORS)`` float64 in :data:`DESCRIPTOR_NAMES` order (NaN where a descriptor's
        channel is unobserved that day).
    """
    x = np.asarray(days)
    if x.ndim != 3 or x.shape[1:] != (len(CHANNEL_NAMES), MINUTES_PER_DAY):
        raise ValueError(f"days must have shape (n, {len(CHANNEL_NAMES)}, {MINUTES_PER_DAY}); got {x.shape}")
    if x.shape[0] == 0:
        return np.empty((0, N_DESCRIPTORS))
    steps = combined_steps(x)
    cols = _activity(x, steps) + _hr(x, steps) + _sleep(x) + _workouts(x) + _circadian(steps)
    return np.stack(cols, axis=1).astype(np.float64)


def aggregate_days(descriptors: FloatArray) -> F64:
    """P5, median, P95 and IQR of each descriptor over days (finite days only).

    Args:
        descriptors: ``(n_days, k)`` per-day values (NaN = missing).

    Returns:
        ``(k * 4,)``: per descriptor, ``[p5, median, p95, iqr]`` (NaN when no day has it).
    """
    d = np.asarray(descriptors, dtype=np.float64)
    if d.shape[0] == 0:
        return np.full(d.shape[1] * len(AGGREGATES), np.nan)
    p5, p25, p50, p75, p95 = quiet_nan(np.nanpercentile, d, [5, 25, 50, 75, 95], axis=0)
    return np.stack([p5, p50, p95, p75 - p25], axis=1).reshape(-1)


AGGREGATE_NAMES: tuple[str, ...] = tuple(f"day_{d}_{a}" for d in DESCRIPTOR_NAMES for a in AGGREGATES)
