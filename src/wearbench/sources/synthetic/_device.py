"""The wearable device: measurement noise, device changes, wear and missingness.

Turns the true series of :mod:`._daily` into what a device records:

* measurement noise per metric and rounding to the device's resolution;
* a device change for some users (from that date: a step-count scale factor, which
  also scales ``active_kcal``, and an HRV algorithm offset);
* non-wear: single days (1–10 %/day by wear diligence) and multi-day gaps of 3–20 days
  (never overlapping an episode or its 28-day baseline) — every metric missing; illness days are always worn;
* metric-specific sparsity: sleep metrics and HRV missing together on unworn nights,
  sleep stages on a few more nights, VO2max only on some exercise days, exercise HR only
  on exercise days (``exercise_count`` 0 ⇒ minutes 0, MET-hours 0, average HR missing);
* ``active_kcal`` computed from the recorded steps, exercise MET-hours and weight, and
  ``bedtime_regularity`` as the SD of recorded sleep onsets over the trailing 7 days
  (at least 3 recorded nights, missing when the night itself is missing).

Values are clipped into plausible generation bounds, which lie inside the schema ranges.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from wearbench.cohort import METRICS
from wearbench.sources.synthetic._config import BoolArray, FloatArray
from wearbench.sources.synthetic._episodes import Effects, UserPlan
from wearbench.sources.synthetic._streams import user_blocks
from wearbench.sources.synthetic._traits import Person, sigmoid

_NORMALS = (
    "resting_hr",
    "hrv",
    "steps",
    "active_kcal",
    "vo2max",
    "sleep_minutes",
    "sleep_efficiency",
    "deep_sleep_pct",
    "rem_sleep_pct",
    "stress",
    "onset",
    "bmr_kcal",
    "exercise_avg_hr",
)
_UNIFORMS = (
    "nonwear",
    "night",
    "stages",
    "hrv",
    "resting_hr",
    "stress",
    "vo2max",
    "vo2max_any",
    "partial",
    "fraction",
)
#: Generation bounds (inside the schema's plausible ranges) and rounding decimals.
_BOUNDS: dict[str, tuple[float, float, int]] = {
    "resting_hr": (38, 120, 0),
    "hrv": (5, 250, 1),
    "vo2max": (12, 80, 1),
    "steps": (0, 60_000, 0),
    "active_kcal": (0, 4_000, 0),
    "bmr_kcal": (800, 3_200, 0),
    "exercise_count": (0, 4, 0),
    "exercise_minutes": (0, 400, 0),
    "exercise_avg_hr": (70, 200, 0),
    "mets": (0, 60, 2),
    "sleep_minutes": (120, 900, 0),
    "sleep_efficiency": (50, 100, 0),
    "deep_sleep_pct": (2, 40, 1),
    "rem_sleep_pct": (5, 40, 1),
    "bedtime_regularity": (0, 400, 1),
    "stress": (0, 100, 0),
}
#: Gaps keep clear of each episode and the 28 days before it (its personal baseline).
_BASELINE_DAYS = 28
_SLEEP = ("sleep_minutes", "sleep_efficiency", "deep_sleep_pct", "rem_sleep_pct", "bedtime_regularity")


@dataclass(frozen=True)
class DeviceChange:
    """A switch of device on day index ``day``."""

    day: int
    steps_scale: float
    hrv_offset_ms: float


@dataclass(frozen=True)
class Recording:
    """What the device recorded for one chunk.

    Attributes:
        values: Metric name → ``(users, days)`` recorded values (NaN = missing).
        worn: ``(users, days)`` whether the device was worn at all.
        gaps: Per user, multi-day non-wear gaps as inclusive ``(start, end)`` day indices.
        changes: Per user, the device change or ``None``.
    """

    values: dict[str, FloatArray]
    worn: BoolArray
    gaps: list[list[tuple[int, int]]]
    changes: list[DeviceChange | None]


def _user_events(
    rng: np.random.Generator, n_days: int, plan: UserPlan, gap_rate: float
) -> tuple[list[tuple[int, int]], DeviceChange | None]:
    """Multi-day gaps (avoiding episodes) and an optional device change for one user."""
    busy = [(ep.start - _BASELINE_DAYS, ep.end) for ep in plan.episodes]
    gaps: list[tuple[int, int]] = []
    for _ in range(int(rng.poisson(gap_rate * n_days / 365.0))):
        length = int(rng.integers(3, 21))
        for _try in range(10):
            start = int(rng.integers(0, max(n_days - length, 0) + 1))
            end = min(start + length, n_days) - 1
            if all(end < a or start > b for a, b in busy):
                gaps.append((start, end))
                break
    change = None
    if n_days >= 150 and rng.random() < 0.25:
        day = int(rng.integers(max(60, n_days // 5), n_days - 60))
        scale = float(np.exp(rng.choice((-1.0, 1.0)) * rng.uniform(0.05, 0.15)))
        offset = float(rng.choice((-1.0, 1.0)) * rng.uniform(3.0, 8.0))
        change = DeviceChange(day, round(scale, 4), round(offset, 2))
    return sorted(gaps), change


def _trailing_sd(onset: FloatArray, window: int = 7, min_nights: int = 3) -> FloatArray:
    """SD (ddof=1) of non-missing values over the trailing ``window`` days, per row."""
    padded = np.concatenate([np.full((onset.shape[0], window - 1), np.nan), onset], axis=1)
    win = sliding_window_view(padded, window, axis=1)
    valid = ~np.isnan(win)
    x = np.where(valid, win, 0.0)
    cnt = valid.sum(axis=2)
    mean = np.divide(x.sum(axis=2), cnt, out=np.zeros(onset.shape), where=cnt > 0)
    sq = (np.where(valid, win - mean[:, :, None], 0.0) ** 2).sum(axis=2)
    var = np.divide(sq, cnt - 1, out=np.full(onset.shape, np.nan), where=cnt >= min_nights)
    out: FloatArray = np.sqrt(var)
    return out


def _after(changes: list[DeviceChange | None], n_days: int, field: str, neutral: float) -> FloatArray:
    out = np.full((len(changes), n_days), neutral)
    for u, c in enumerate(changes):
        if c is not None:
            out[u, c.day :] = getattr(c, field)
    return out


def _measure(
    s: dict[str, FloatArray],
    n: dict[str, FloatArray],
    u: dict[str, FloatArray],
    changes: list[DeviceChange | None],
) -> dict[str, FloatArray]:
    n_days = s["steps"].shape[1]
    partial = np.where(u["partial"] < 0.03, 0.3 + 0.4 * u["fraction"], 1.0)
    raw = s["steps"] * np.exp(0.03 * n["steps"]) * partial * _after(changes, n_days, "steps_scale", 1.0)
    lo, hi, _ = _BOUNDS["steps"]
    steps = np.asarray(np.round(np.clip(raw, lo, hi)), dtype=np.float64)
    exercise_kcal = 0.9 * s["weight_kg"] * np.maximum(s["mets"] - s["exercise_minutes"] / 60.0, 0.0)
    active = (0.0005 * s["weight_kg"] * steps + exercise_kcal) * np.exp(0.04 * n["active_kcal"])
    rec = {
        "resting_hr": s["resting_hr"] + 1.0 * n["resting_hr"],
        "hrv": s["hrv"] * np.exp(0.07 * n["hrv"]) + _after(changes, n_days, "hrv_offset_ms", 0.0),
        "vo2max": s["vo2max"] + 0.8 * n["vo2max"],
        "steps": steps,
        "active_kcal": active,
        "bmr_kcal": s["bmr_kcal"] * (1.0 + 0.003 * n["bmr_kcal"]),
        "exercise_count": s["exercise_count"],
        "exercise_minutes": s["exercise_minutes"],
        "exercise_avg_hr": s["exercise_avg_hr"] + 2.0 * n["exercise_avg_hr"],
        "mets": s["mets"],
        "onset": s["onset"] + 5.0 * n["onset"],
    }
    for m, sd in (
        ("sleep_minutes", 6.0),
        ("sleep_efficiency", 1.2),
        ("deep_sleep_pct", 1.5),
        ("rem_sleep_pct", 1.5),
        ("stress", 2.5),
    ):
        rec[m] = s[m] + sd * n[m]
    return rec


def _masks(
    u: dict[str, FloatArray], p: Person, e: Effects, gaps: list[list[tuple[int, int]]], exercised: BoolArray
) -> dict[str, BoolArray]:
    diligence = p.trait("wear_diligence")
    ill = e.illness > 0
    worn = (u["nonwear"] >= sigmoid(-3.4 - 0.7 * diligence)[:, None]) | ill
    for i, user_gaps in enumerate(gaps):
        for a, b in user_gaps:
            worn[i, a : b + 1] = False
    night = worn & (u["night"] >= sigmoid(-2.6 - 0.6 * diligence)[:, None])
    vo2 = (exercised & (u["vo2max"] < p.vo2max_update_p[:, None])) | (u["vo2max_any"] < 0.01)
    return {
        "worn": worn,
        "night": night,
        "stages": night & (u["stages"] >= 0.02),
        "hrv": night & (u["hrv"] >= 0.02),
        "resting_hr": worn & ((u["resting_hr"] >= 0.01) | ill),
        "stress": worn & (u["stress"] >= 0.04),
        "vo2max": worn & vo2,
    }


def record(
    rngs: list[np.random.Generator],
    true: dict[str, FloatArray],
    person: Person,
    e: Effects,
    plans: list[UserPlan],
) -> Recording:
    """Apply the device layer to one chunk.

    Args:
        rngs: One generator per user (the ``DEVICE`` component stream).
        true: True daily series from :func:`._daily.simulate`.
        person: The chunk's users.
        e: Episode effects (illness days are always worn).
        plans: Scheduled episodes (gaps avoid them).
    """
    n_days = true["steps"].shape[1]
    normals, uniforms = user_blocks(rngs, len(_NORMALS), len(_UNIFORMS), n_days)
    n = {k: normals[i] for i, k in enumerate(_NORMALS)}
    u = {k: uniforms[i] for i, k in enumerate(_UNIFORMS)}
    gap_rate = np.exp(np.log(1.2) - 0.5 * person.trait("wear_diligence"))
    events = [_user_events(g, n_days, plans[i], float(gap_rate[i])) for i, g in enumerate(rngs)]
    gaps, changes = [ev[0] for ev in events], [ev[1] for ev in events]
    rec = _measure(true, n, u, changes)
    mask = _masks(u, person, e, gaps, true["exercise_count"] > 0)
    rec["bedtime_regularity"] = _trailing_sd(np.where(mask["night"], rec.pop("onset"), np.nan))
    values: dict[str, FloatArray] = {}
    for m in METRICS:
        lo, hi, decimals = _BOUNDS[m.name]
        x = np.round(np.clip(rec[m.name], max(lo, m.lo), min(hi, m.hi)), decimals)
        keep = mask["worn"]
        if m.name in _SLEEP:
            keep = mask["stages"] if m.name in ("deep_sleep_pct", "rem_sleep_pct") else mask["night"]
        elif m.name in ("hrv", "resting_hr", "stress", "vo2max"):
            keep = mask[m.name]
        values[m.name] = np.where(keep, x, np.nan)
    return Recording(values, mask["worn"], gaps, changes)
