"""Minute-level building blocks of the synthetic minute generator: sleep, workouts, bouts, HR.

Each function works on one user's flat minute timeline (``(n_days + 1) * 1440`` minutes: a
hidden day before the record, so the first night's evening exists) and takes an explicit
``np.random.Generator``. Times are minutes after midnight; negative = the evening before.
"""

from __future__ import annotations

import numpy as np
from scipy.signal import lfilter

from wearbench.sources.synthetic._config import BoolArray, FloatArray, IntArray

DAY = 1440
#: Steps per minute of each workout type (OpenMHC channels 9–18, in order).
WORKOUT_CADENCE: tuple[float, ...] = (110.0, 5.0, 160.0, 40.0, 60.0, 5.0, 50.0, 60.0, 20.0, 2.0)
#: METs of each workout type (active energy weight), same order.
WORKOUT_MET: tuple[float, ...] = (3.5, 7.5, 9.8, 5.0, 6.0, 5.0, 5.0, 8.0, 5.0, 2.5)
#: A night's sleep lies in [18:00 of the day before, 18:00 of its day).
EARLIEST_ONSET, LATEST_ONSET, NIGHT_END = -240, 180, 1080


def night(
    rng: np.random.Generator, asleep_min: int, efficiency: float, onset: float, earliest: int = EARLIEST_ONSET
) -> tuple[int, BoolArray]:
    """One night: in-bed start and the asleep pattern of the in-bed period.

    Args:
        rng: Random generator.
        asleep_min: Asleep minutes of the night (the daily ``sleep_minutes``), ≥ 0.
        efficiency: Sleep efficiency, % (asleep / in bed).
        onset: Wanted in-bed start, minutes after midnight of the night's day.
        earliest: Earliest in-bed start (0 when the day before has no watch data).

    Returns:
        ``(start, asleep)``: in-bed start (minutes after midnight, in
        ``[earliest, LATEST_ONSET]``) and a bool array over the in-bed minutes with
        exactly ``asleep_min`` True; the period ends by :data:`NIGHT_END`.
    """
    start = int(np.clip(round(onset), earliest, min(LATEST_ONSET, NIGHT_END - asleep_min)))
    in_bed = int(np.clip(round(asleep_min * 100.0 / max(efficiency, 50.0)), asleep_min, NIGHT_END - start))
    wake = in_bed - asleep_min
    latency = min(wake, int(rng.integers(5, 21)))
    rest = wake - latency
    k = max(1, rest // 8) if rest else 0
    wake_parts = rng.multinomial(rest, np.full(k, 1.0 / k)) if k else np.zeros(0, np.int64)
    sleep_parts = rng.multinomial(asleep_min, np.full(k + 1, 1.0 / (k + 1)))
    pattern = np.zeros(in_bed, dtype=bool)
    pos = latency
    for i, s in enumerate(sleep_parts):
        pattern[pos : pos + s] = True
        pos += int(s) + (int(wake_parts[i]) if i < k else 0)
    return start, pattern


def split_sessions(count: int, minutes: int) -> list[int]:
    """Session lengths: one session gets all minutes; two split 1 : 0.7 (as the daily draw)."""
    if count <= 0 or minutes <= 0:
        return []
    if count == 1 or minutes < 10:
        return [minutes]
    first = round(minutes / 1.7)
    return [first, minutes - first]


def place_block(
    rng: np.random.Generator, free: BoolArray, length: int, preferred: float, spread: float
) -> int | None:
    """Start of a ``length``-minute block of free minutes, near ``preferred`` (None if none fits).

    Args:
        rng: Random generator.
        free: ``(n,)`` minutes available.
        length: Block length, minutes.
        preferred: Preferred start index.
        spread: SD of the start around ``preferred``, minutes.
    """
    if length <= 0 or length > free.size:
        return None
    ok = np.convolve(free.astype(np.int64), np.ones(length, np.int64), mode="valid") == length
    starts = np.flatnonzero(ok)
    if starts.size == 0:
        return None
    weight = np.exp(-0.5 * ((starts - preferred) / spread) ** 2) + 1e-12
    return int(rng.choice(starts, p=weight / weight.sum()))


def bouts(
    rng: np.random.Generator, allowed: BoolArray, profile: FloatArray, minutes: int, mean_len: float
) -> IntArray:
    """Bout labels (``-1`` = none, else bout number) covering about ``minutes`` allowed minutes.

    Args:
        rng: Random generator.
        allowed: ``(n,)`` minutes where a bout may fall.
        profile: ``(n,)`` relative chance of a bout starting at each minute.
        minutes: Wanted bout minutes in all (overlapping bouts merge, so fewer may result).
        mean_len: Mean bout length, minutes (geometric).
    """
    label = np.full(allowed.size, -1, dtype=np.int64)
    weight = np.where(allowed, profile, 0.0)
    if minutes <= 0 or weight.sum() <= 0:
        return label
    total, b = 0, 0
    while total < minutes and b < 10_000:
        length = min(int(rng.geometric(1.0 / mean_len)), minutes - total)
        start = int(rng.choice(allowed.size, p=weight / weight.sum()))
        seg = np.arange(start, min(start + length, allowed.size))
        seg = seg[allowed[seg]]
        label[seg] = b
        total += seg.size
        b += 1
    return label


def spread_steps(rng: np.random.Generator, steps: int, where: BoolArray, cadence: FloatArray) -> FloatArray:
    """Distribute ``steps`` (integer) over the ``where`` minutes in proportion to ``cadence``.

    Returns:
        ``(n,)`` whole steps per minute summing exactly to ``steps`` (0 outside ``where``);
        all zeros if ``steps`` ≤ 0 or no minute is available.
    """
    out = np.zeros(where.size)
    idx = np.flatnonzero(where)
    if steps <= 0 or idx.size == 0:
        return out
    w = np.maximum(cadence[idx], 1e-9)
    out[idx] = rng.multinomial(steps, w / w.sum())
    return out


def heart_rate(
    rng: np.random.Generator, target: FloatArray, response_min: float, noise_sd: float
) -> FloatArray:
    """Minute HR: the target level through a first-order response (exercise onset and recovery).

    Args:
        rng: Random generator.
        target: ``(n,)`` HR the body tends to each minute, bpm.
        response_min: Time constant of the response, minutes.
        noise_sd: Minute-to-minute noise SD, bpm.

    Returns:
        ``(n,)`` HR in bpm, rounded to whole beats.
    """
    if target.size == 0:
        return target.copy()
    a = float(np.exp(-1.0 / response_min))
    smooth, _ = lfilter([1.0 - a], [1.0, -a], target, zi=[a * target[0]])
    return np.asarray(np.round(smooth + noise_sd * rng.standard_normal(target.size)), dtype=np.float64)


def circadian(n_minutes: int, amplitude: float, peak_minute: float) -> FloatArray:
    """A 24-hour cosine over the flat timeline, peaking at ``peak_minute`` after midnight."""
    t = np.arange(n_minutes) % DAY
    out: FloatArray = amplitude * np.cos(2.0 * np.pi * (t - peak_minute) / DAY)
    return out


def daytime_profile(n_minutes: int) -> FloatArray:
    """Relative chance of walking each minute: low at night, peaks mid-morning and early evening."""
    h = (np.arange(n_minutes) % DAY) / 60.0
    out: FloatArray = 0.05 + np.exp(-0.5 * ((h - 10.0) / 2.5) ** 2) + np.exp(-0.5 * ((h - 18.0) / 2.5) ** 2)
    return out
