"""True daily physiology (before the device layer): arrays of shape ``(users, days)``.

Each metric = personal baseline + weekly rhythm + annual season + slow training /
injury trends + episode effects + day-to-day deviation. The deviation is the metric's
standardised innovation (own noise with planted couplings mixed in, see
:mod:`._couplings`), carried over from day to day by a per-user AR(1) state for the
:data:`PERSISTENCE` metrics (:mod:`._persistence`), times the personal SD. Exercise is
drawn first (it drives other metrics through its daily series); all innovations then
come from the drivers' own noise, so the remaining metrics can follow in any order.

Sleep metrics on date ``t`` describe the night that ends on the morning of ``t``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from wearbench.sources.synthetic._config import PERSISTENCE, FloatArray
from wearbench.sources.synthetic._couplings import Planted, couple, driver_signals
from wearbench.sources.synthetic._episodes import Effects
from wearbench.sources.synthetic._persistence import ar1
from wearbench.sources.synthetic._streams import user_blocks
from wearbench.sources.synthetic._traits import Person, mifflin_st_jeor

_NORMALS = (
    "sleep_minutes",
    "onset",
    "steps",
    "stress",
    "sleep_efficiency",
    "deep_sleep_pct",
    "rem_sleep_pct",
    "hrv",
    "resting_hr",
    "session1",
    "session2",
    "met",
    "exercise_hr",
)
_UNIFORMS = ("session1", "session2")
#: Metrics with a standardised day-to-day deviation (the rest are derived or event-driven).
_DEVIATION_METRICS = (
    "sleep_minutes",
    "steps",
    "stress",
    "sleep_efficiency",
    "deep_sleep_pct",
    "rem_sleep_pct",
    "hrv",
    "resting_hr",
)


@dataclass(frozen=True)
class Calendar:
    """Calendar features of the record.

    Attributes:
        dates: ``datetime64[D]`` days, shape ``(days,)``.
        weekend: 1.0 on Saturdays and Sundays, else 0.0.
        season: Annual cycle for the northern hemisphere, +1 in mid-July, -1 in mid-January.
    """

    dates: np.ndarray
    weekend: FloatArray
    season: FloatArray


def calendar(start: np.datetime64, n_days: int) -> Calendar:
    """Calendar features for ``n_days`` days from ``start``."""
    dates = start + np.arange(n_days).astype("timedelta64[D]")
    days = dates.astype("datetime64[D]").astype(np.int64)
    weekday = (days + 3) % 7  # 1970-01-01 was a Thursday; Monday = 0
    doy = (dates - dates.astype("datetime64[Y]")).astype(np.int64)
    season = np.cos(2.0 * np.pi * (doy - 196.0) / 365.25)
    return Calendar(dates, (weekday >= 5).astype(float), season)


def _exercise(
    p: Person, e: Effects, wk: FloatArray, n: dict[str, FloatArray], u: dict[str, FloatArray]
) -> dict[str, FloatArray]:
    prob = (
        p.exercise_p[:, None] * (1.0 + (p.weekend["exercise"][:, None] - 1.0) * wk) * (1.0 + 0.8 * e.training)
    )
    prob = np.clip(prob * (1.0 - 0.95 * (e.illness > 0)) * (1.0 - 0.9 * e.injury), 0.0, 0.9)
    one = u["session1"] < prob
    two = one & (u["session2"] < 0.12 * (1.0 + e.training))
    base = p.exercise_minutes[:, None] * (1.0 + 0.3 * e.training)
    minutes = one * base * np.exp(0.35 * n["session1"]) + two * 0.7 * base * np.exp(0.35 * n["session2"])
    minutes = np.where(one, np.clip(np.round(minutes), 10.0, 300.0), 0.0)
    met = np.clip(p.exercise_met[:, None] + 0.7 * n["met"], 2.5, 14.0)
    rhr = p.resting_hr[:, None] + e.rhr_delta
    frac = np.clip(0.55 + 0.04 * (met - 6.0) + 0.05 * n["exercise_hr"], 0.3, 0.9)
    return {
        "exercise_count": one + two.astype(float),
        "exercise_minutes": minutes,
        "mets": minutes / 60.0 * met,
        "exercise_avg_hr": np.where(one, rhr + frac * (p.hr_max[:, None] - rhr), np.nan),
    }


def _sleep(
    p: Person, e: Effects, wk: FloatArray, season: FloatArray, noise: FloatArray, n_onset: FloatArray
) -> dict[str, FloatArray]:
    usual = p.onset_min[:, None] + p.weekend["onset"][:, None] * wk
    spread = p.sd["onset"][:, None] * (1.0 + e.travel + 0.5 * e.stress)
    onset = usual + e.travel_shift + spread * n_onset
    late = np.clip(onset - usual, -120.0, 240.0)
    sleep = p.sleep_minutes[:, None] + p.weekend["sleep_minutes"][:, None] * wk - 8.0 * season
    sleep = sleep + 60.0 * e.illness - 25.0 * e.stress - 30.0 * e.travel - 0.2 * late
    return {"onset": onset, "sleep_minutes": sleep + p.sd["sleep_minutes"][:, None] * noise}


def _steps(
    p: Person, e: Effects, wk: FloatArray, season: FloatArray, noise: FloatArray, minutes: FloatArray
) -> FloatArray:
    log = np.log(p.steps)[:, None] + p.weekend["steps"][:, None] * wk + 0.10 * season
    log = log - 0.7 * e.illness - 0.6 * e.injury + 0.15 * e.travel + 0.08 * e.training
    out: FloatArray = (
        np.exp(log + p.sd["steps"][:, None] * noise) + minutes * p.steps_per_exercise_minute[:, None]
    )
    return out


def _col(x: FloatArray) -> FloatArray:
    return x[:, None]


def _deviations(
    p: Person, n: dict[str, FloatArray], series: dict[str, FloatArray], planted: Planted
) -> dict[str, FloatArray]:
    """Standardised day-to-day deviation of every :data:`_DEVIATION_METRICS` metric.

    Args:
        p: The chunk's users (AR(1) coefficients).
        n: Own standard-normal innovations by metric, ``(users, days)``.
        series: True daily series so far (exercise drivers).
        planted: Planted couplings.

    Returns:
        Metric → ``(users, days)`` deviation with unit variance per user: the coupled
        innovation, passed through the user's AR(1) filter for :data:`PERSISTENCE` metrics.
    """
    drivers = driver_signals({m: n[m] for m in PERSISTENCE}, series)
    out = {m: couple(m, n[m], drivers, planted) for m in _DEVIATION_METRICS}
    names = list(PERSISTENCE)
    state = ar1(np.concatenate([out[m] for m in names]), np.concatenate([p.ar1[m] for m in names]))
    out.update(zip(names, np.split(state, len(names)), strict=True))
    return out


def _stress_and_sleep_quality(
    p: Person, e: Effects, wk: FloatArray, dev: dict[str, FloatArray], s: dict[str, FloatArray]
) -> None:
    sd = p.sd
    stress = _col(p.stress) - _col(p.weekend["stress"]) * wk + 15.0 * e.illness + 18.0 * e.stress
    s["stress"] = stress + 5.0 * e.injury + 5.0 * e.travel + _col(sd["stress"]) * dev["stress"]
    eff = _col(p.sleep_efficiency) - 3.0 * e.illness - 5.0 * e.stress - 4.0 * e.travel
    s["sleep_efficiency"] = eff + _col(sd["sleep_efficiency"]) * dev["sleep_efficiency"]
    deep = _col(p.deep_pct) + 1.0 * e.adapted - 2.0 * e.stress - 1.5 * e.illness
    s["deep_sleep_pct"] = deep + _col(sd["deep_sleep_pct"]) * dev["deep_sleep_pct"]
    s["rem_sleep_pct"] = (
        _col(p.rem_pct) - 1.5 * e.stress - 1.0 * e.travel + _col(sd["rem_sleep_pct"]) * dev["rem_sleep_pct"]
    )


def _cardio(
    p: Person, e: Effects, season: FloatArray, dev: dict[str, FloatArray], s: dict[str, FloatArray]
) -> None:
    log_hrv = np.log(_col(p.hrv)) + 0.08 * e.adapted - 0.28 * e.illness - 0.15 * e.stress - 0.06 * e.travel
    s["hrv"] = np.exp(log_hrv - 0.05 * e.injury + _col(p.sd["hrv"]) * dev["hrv"])
    rhr = _col(p.resting_hr) + e.rhr_delta + e.illness_rhr + 1.5 * e.stress + 1.0 * e.injury + 0.7 * e.travel
    s["resting_hr"] = rhr - 0.5 * season + _col(p.sd["resting_hr"]) * dev["resting_hr"]
    s["vo2max"] = _col(p.vo2max) + e.vo2max_delta


def simulate(
    rngs: list[np.random.Generator], person: Person, e: Effects, cal: Calendar, planted: Planted
) -> dict[str, FloatArray]:
    """True daily series for one chunk of users.

    Args:
        rngs: One generator per user (the ``DAILY`` component stream).
        person: The chunk's users.
        e: Episode and training effects.
        cal: Calendar of the record.
        planted: Planted couplings.

    Returns:
        Mapping metric name → ``(users, days)`` true values (no device noise, no missing
        days, not yet clipped), plus ``onset`` (sleep onset, minutes after midnight) and
        ``weight_kg``; ``bedtime_regularity`` and ``active_kcal`` are device-computed later.
    """
    n_days = cal.dates.shape[0]
    normals, uniforms = user_blocks(rngs, len(_NORMALS), len(_UNIFORMS), n_days)
    n = {k: normals[i] for i, k in enumerate(_NORMALS)}
    u = {k: uniforms[i] for i, k in enumerate(_UNIFORMS)}
    wk = cal.weekend[None, :]
    season = np.where(person.south[:, None], -1.0, 1.0) * person.season_amp[:, None] * cal.season[None, :]
    s = _exercise(person, e, wk, n, u)
    dev = _deviations(person, n, s, planted)
    s.update(_sleep(person, e, wk, season, dev["sleep_minutes"], n["onset"]))
    s["steps"] = _steps(person, e, wk, season, dev["steps"], s["exercise_minutes"])
    _stress_and_sleep_quality(person, e, wk, dev, s)
    _cardio(person, e, season, dev, s)
    t = np.arange(n_days) / max(n_days - 1, 1)
    s["weight_kg"] = _col(person.weight_kg) + _col(person.weight_drift_kg) * t[None, :]
    s["bmr_kcal"] = mifflin_st_jeor(
        s["weight_kg"], _col(person.height_cm), _col(person.age), person.male[:, None]
    )
    return s
