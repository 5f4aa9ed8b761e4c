"""Minute-level synthetic data (OpenMHC's 19 channels) expanded from the daily synthetic cohort.

The daily cohort is generated first (:func:`synthesize`, same seed); each user-day is then
expanded to minutes that agree with it. Rules (``d`` = a day of the record):

* **Sleep**: the night ending on the morning of ``d`` has exactly the daily
  ``sleep_minutes[d]`` asleep minutes (``sleep:asleep``), inside an in-bed period
  (``sleep:inbed``) of ``asleep / efficiency`` minutes (clipped), starting near the user's
  sleep onset (± the day's bedtime regularity) and lying in [18:00 of ``d − 1``, 18:00 of
  ``d``) — after midnight when ``d − 1`` has no watch data. A night with no daily sleep
  record has no sleep minutes, and the watch is off then.
* **Workouts**: ``exercise_count`` sessions (1 or 2) of ``exercise_minutes`` in all (two
  split 1 : 0.7), each one type of the ten drawn from the user's preferences, placed in
  worn awake minutes near the user's exercise hour, ≥ 30 min apart.
* **Watch steps**: bouts in worn awake minutes (and walking/running workouts) whose minute
  counts sum exactly to the daily ``steps[d]``. **Phone steps**: the phone is carried on a
  user-specific share (30–80 %) of bouts and then sees the same steps; on days without watch
  data the phone still records bouts (about the user's median steps × carry share).
  So phone steps ≤ watch steps on every worn minute, and the daily sum of watch steps = daily steps.
* **Distance** = steps × stride (0.414 × height; × 1.45 above 140 steps/min); the phone's
  estimate carries a per-user bias (0.9–1.1). **Flights**: phone only, on carried bout minutes.
* **Active energy** (kcal/min): the daily ``active_kcal[d]`` spread over the worn minutes of
  ``d`` by weight (basal share + steps + workout METs): the minutes sum to it (float32).
* **HR** (bpm): resting level = daily ``resting_hr[d]`` while asleep, + 10 awake, + a
  circadian cosine (± 3, peak 16:00), + 0.25 bpm per step/min (≤ 50), the day's
  ``exercise_avg_hr`` during workouts, through a 2-minute first-order response, noise SD 2.
  Sampled every minute during workouts, otherwise on 20 % of minutes; NaN when not worn and
  during sensor gaps (10 % of worn days, 30–120 min, outside workouts) — so the median observed HR of the
  asleep minutes is within a few bpm of the daily resting HR.
* **Non-wear**: whole days without a daily record, a daily charging block (30–90 min, near
  a per-user hour), nights without a sleep record. Watch channels are 0 (HR NaN) there.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from wearbench._errors import WearbenchError
from wearbench.cohort import Cohort, content_hash
from wearbench.minutes import (
    ASLEEP,
    HR,
    INBED,
    MINUTES_PER_DAY,
    N_CHANNELS,
    WORKOUTS,
    MinuteUser,
    write_minute_cohort,
)
from wearbench.sources.synthetic._config import BoolArray, FloatArray
from wearbench.sources.synthetic._minute_day import (
    EARLIEST_ONSET,
    WORKOUT_CADENCE,
    WORKOUT_MET,
    bouts,
    circadian,
    daytime_profile,
    heart_rate,
    night,
    place_block,
    split_sessions,
    spread_steps,
)
from wearbench.sources.synthetic._streams import Component, Population, user_rngs
from wearbench.sources.synthetic._synthesize import synthesize

DAY = MINUTES_PER_DAY
MINUTE_GENERATOR = "synthetic-minutes"
#: Bumped whenever the minute output for a given seed changes.
MINUTE_GENERATOR_VERSION = 1


@dataclass(frozen=True)
class MinuteParams:
    """Tuning of the minute generator (defaults are the documented rules).

    Attributes:
        hr_sample_share: Share of worn non-workout minutes with an HR sample.
        hr_gap_share: Share of worn days with one HR sensor gap.
        hr_gap_minutes: Inclusive range of a sensor gap's length.
        charge_minutes: Inclusive range of the daily charging (non-wear) block.
        carry_share: Range of the per-user share of bouts the phone is carried on.
        awake_offset: Awake HR above resting, bpm.
        circadian_amplitude: Amplitude of the awake HR cosine, bpm.
        hr_per_step: HR rise per step/min, bpm (capped at ``hr_step_cap``).
        hr_step_cap: Largest HR rise from walking, bpm.
        hr_noise_sd: Minute HR noise SD, bpm.
        hr_response_min: Time constant of the HR response, minutes.
        bout_cadence: Mean steps/min in a walking bout.
        bout_minutes: Mean walking-bout length, minutes.
    """

    hr_sample_share: float = 0.2
    hr_gap_share: float = 0.1
    hr_gap_minutes: tuple[int, int] = (30, 120)
    charge_minutes: tuple[int, int] = (30, 90)
    carry_share: tuple[float, float] = (0.3, 0.8)
    awake_offset: float = 10.0
    circadian_amplitude: float = 3.0
    hr_per_step: float = 0.25
    hr_step_cap: float = 50.0
    hr_noise_sd: float = 2.0
    hr_response_min: float = 2.0
    bout_cadence: float = 95.0
    bout_minutes: float = 6.0


@dataclass(frozen=True)
class _Profile:
    """Per-user constants of the minute expansion."""

    rhr: float  # fallback resting HR, bpm
    hr_max: float
    onset: float  # usual sleep onset, minutes after midnight
    sleep: float  # usual asleep minutes
    steps: float  # median daily steps
    weight: float
    stride: float  # m per step, walking
    carry: float  # share of bouts with the phone
    phone_bias: float
    flights_rate: float  # flights per carried bout minute
    workout_p: FloatArray  # (10,) type preferences
    exercise_hour: float  # minutes after midnight
    charge_hour: float


def _profile(
    rng: np.random.Generator, daily: pd.DataFrame, traits: dict[str, Any], age: float, p: MinuteParams
) -> _Profile:
    def med(col: str, default: float) -> float:
        x = daily[col].to_numpy(dtype=float)
        return float(np.nanmedian(x)) if np.isfinite(x).any() else default

    return _Profile(
        rhr=med("resting_hr", float(traits["baseline_resting_hr"])),
        hr_max=208.0 - 0.7 * age,
        onset=float(traits["sleep_onset_min"]),
        sleep=med("sleep_minutes", float(traits["baseline_sleep_minutes"])),
        steps=med("steps", float(traits["baseline_steps"])),
        weight=float(traits["weight_kg"]),
        stride=0.414 * float(traits["height_cm"]) / 100.0,
        carry=float(rng.uniform(*p.carry_share)),
        phone_bias=float(rng.uniform(0.9, 1.1)),
        flights_rate=float(rng.uniform(0.005, 0.03)),
        workout_p=rng.dirichlet(np.full(len(WORKOUTS), 0.5)),
        exercise_hour=float(rng.choice([420.0, 1080.0]) + rng.normal(0.0, 60.0)),
        charge_hour=float(rng.uniform(7 * 60, 21 * 60)),
    )


class _Timeline:
    """One user's flat minute arrays over a hidden day plus the record's days."""

    def __init__(self, n_days: int) -> None:
        n = (n_days + 1) * DAY
        self.n_days = n_days
        self.asleep = np.zeros(n, dtype=bool)
        self.inbed = np.zeros(n, dtype=bool)
        self.workout = np.full(n, -1, dtype=np.int64)  # workout type index or -1
        self.worn = np.zeros(n, dtype=bool)
        self.watch_steps = np.zeros(n)
        self.phone_steps = np.zeros(n)
        self.carried = np.zeros(n, dtype=bool)

    def day(self, d: int) -> slice:
        """Minutes of record day ``d`` on the timeline."""
        return slice((d + 1) * DAY, (d + 2) * DAY)


def _value(row: pd.Series, col: str) -> float:
    return float(row[col])


def _sleep_and_wear(rng: np.random.Generator, t: _Timeline, daily: pd.DataFrame, prof: _Profile) -> None:
    """Nights, whole-day wear and unworn nights."""
    worn_day = daily.drop(columns=["user_id", "date"]).notna().any(axis=1).to_numpy()
    for d in range(t.n_days):
        if worn_day[d]:
            t.worn[t.day(d)] = True
    for d, (_, row) in enumerate(daily.iterrows()):
        s = _value(row, "sleep_minutes")
        spread = _value(row, "bedtime_regularity")
        onset = prof.onset + rng.normal(0.0, spread if np.isfinite(spread) else 30.0)
        base = (d + 1) * DAY
        if np.isfinite(s):
            eff = _value(row, "sleep_efficiency")
            earliest = EARLIEST_ONSET if d == 0 or worn_day[d - 1] else 0
            start, pattern = night(rng, int(s), eff if np.isfinite(eff) else 88.0, onset, earliest)
            t.inbed[base + start : base + start + pattern.size] = True
            t.asleep[base + start : base + start + pattern.size] = pattern
            t.worn[base + start : base + start + pattern.size] = True
        elif worn_day[d]:
            start = int(np.clip(round(onset), -240, 180))
            t.worn[base + start : base + start + round(prof.sleep / 0.88)] = False


def _workouts(rng: np.random.Generator, t: _Timeline, daily: pd.DataFrame, prof: _Profile) -> None:
    count = np.nan_to_num(daily["exercise_count"].to_numpy(dtype=float)).astype(int)
    minutes = np.nan_to_num(daily["exercise_minutes"].to_numpy(dtype=float)).astype(int)
    for d in range(t.n_days):
        sl = t.day(d)
        preferred = prof.exercise_hour
        for length in split_sessions(int(count[d]), int(minutes[d])):
            free = t.worn[sl] & ~t.inbed[sl] & (t.workout[sl] < 0)
            busy = np.flatnonzero(t.workout[sl] >= 0)  # keep 30 min between sessions
            for b in busy:
                free[max(b - 30, 0) : b + 31] = False
            start = place_block(rng, free, length, preferred, 120.0)
            if start is None:
                continue
            t.workout[sl][start : start + length] = rng.choice(len(WORKOUTS), p=prof.workout_p)
            preferred = start + length + 8 * 60


def _charging(rng: np.random.Generator, t: _Timeline, p: MinuteParams, prof: _Profile) -> None:
    for d in range(t.n_days):
        sl = t.day(d)
        if not t.worn[sl].any():
            continue
        free = t.worn[sl] & ~t.inbed[sl] & (t.workout[sl] < 0)
        length = int(rng.integers(p.charge_minutes[0], p.charge_minutes[1] + 1))
        start = place_block(rng, free, length, prof.charge_hour, 60.0)
        if start is not None:
            t.worn[sl][start : start + length] = False


def _steps(
    rng: np.random.Generator, t: _Timeline, daily: pd.DataFrame, p: MinuteParams, prof: _Profile
) -> None:
    steps = daily["steps"].to_numpy(dtype=float)
    cad_by_type = np.array((0.0, *WORKOUT_CADENCE))
    profile = daytime_profile(DAY)
    for d in range(t.n_days):
        sl = t.day(d)
        awake = ~t.inbed[sl] & (t.workout[sl] < 0)
        if np.isfinite(steps[d]) and t.worn[sl].any():
            _watch_day(rng, t, sl, int(steps[d]), cad_by_type, awake & t.worn[sl], profile, p, prof)
        else:
            target = int(rng.poisson(max(prof.steps, 0.0) * prof.carry))
            hours = (np.arange(DAY) >= 7 * 60) & (np.arange(DAY) < 23 * 60) & awake
            label = bouts(rng, hours, profile, round(target / p.bout_cadence), p.bout_minutes)
            cadence = (
                p.bout_cadence * rng.uniform(0.7, 1.3, label.max() + 1)[label]
                if label.max() >= 0
                else profile
            )
            t.phone_steps[sl] = spread_steps(rng, target, label >= 0, cadence)
            t.carried[sl] = label >= 0


def _watch_day(
    rng: np.random.Generator,
    t: _Timeline,
    sl: slice,
    total: int,
    cad_by_type: FloatArray,
    allowed: BoolArray,
    profile: FloatArray,
    p: MinuteParams,
    prof: _Profile,
) -> None:
    """Watch steps summing to ``total``; the phone sees the carried bouts."""
    wcad = cad_by_type[t.workout[sl] + 1]
    in_workout = t.workout[sl] >= 0
    planned = wcad.sum()
    workout_steps = int(min(round(planned), round(0.8 * total)))
    rest = total - workout_steps
    label = bouts(rng, allowed, profile, int(np.ceil(rest / p.bout_cadence)), p.bout_minutes)
    n_bouts = int(label.max()) + 1
    cadence = np.zeros(DAY)
    if n_bouts:
        cadence = p.bout_cadence * rng.uniform(0.7, 1.3, n_bouts)[label]
    where = label >= 0
    if not where.any():  # no room for bouts: put the steps into any worn minute
        where, cadence = allowed | in_workout, np.ones(DAY)
    watch = spread_steps(rng, rest, where, cadence) + spread_steps(rng, workout_steps, in_workout, wcad)
    carried_bouts = rng.random(max(n_bouts, 1)) < prof.carry
    carried = where & (label >= 0) & carried_bouts[np.maximum(label, 0)]
    walking = in_workout & np.isin(t.workout[sl], (0, 2)) & (rng.random() < prof.carry)
    t.watch_steps[sl] = watch
    t.carried[sl] = carried | walking
    t.phone_steps[sl] = np.where(carried | walking, watch, 0.0)


def _hr(
    rng: np.random.Generator, t: _Timeline, daily: pd.DataFrame, p: MinuteParams, prof: _Profile
) -> FloatArray:
    """Observed minute HR over the timeline (NaN = no sample)."""
    rhr = np.nan_to_num(daily["resting_hr"].to_numpy(dtype=float), nan=prof.rhr)
    ex = daily["exercise_avg_hr"].to_numpy(dtype=float)
    n = t.asleep.size
    per_day = np.concatenate([[rhr[0]], rhr])  # the hidden day takes the first day's level
    level = np.repeat(per_day, DAY)
    awake = ~t.asleep
    target = level + awake * (p.awake_offset + circadian(n, p.circadian_amplitude, 16 * 60))
    target = target + np.minimum(p.hr_per_step * np.maximum(t.watch_steps, t.phone_steps), p.hr_step_cap)
    ex_day = np.concatenate([[np.nan], ex])
    ex_level = np.repeat(np.where(np.isfinite(ex_day), ex_day, per_day + 0.6 * (prof.hr_max - per_day)), DAY)
    target = np.where(t.workout >= 0, ex_level, target)
    hr = heart_rate(rng, target, p.hr_response_min, p.hr_noise_sd)
    seen = (rng.random(n) < p.hr_sample_share) | (t.workout >= 0)
    for d in range(t.n_days):
        if rng.random() < p.hr_gap_share:
            length = int(rng.integers(p.hr_gap_minutes[0], p.hr_gap_minutes[1] + 1))
            start = (d + 1) * DAY + int(rng.integers(0, DAY - length))
            seen[start : start + length] = False
    seen |= t.workout >= 0  # workouts are recorded every minute, gaps or not
    return np.where(seen & t.worn, hr, np.nan)


def _energy(t: _Timeline, daily: pd.DataFrame, prof: _Profile) -> FloatArray:
    """Watch active energy, kcal/min: each day's ``active_kcal`` over its worn minutes."""
    met = np.array((0.0, *WORKOUT_MET))[t.workout + 1]
    weight = 0.002 + 0.01 * ~t.asleep + 0.0005 * prof.weight * t.watch_steps / 10.0
    weight = np.where(t.workout >= 0, 0.9 * prof.weight * np.maximum(met - 1.0, 0.5) / 60.0, weight)
    weight = np.where(t.worn, weight, 0.0)
    kcal = daily["active_kcal"].to_numpy(dtype=float)
    out = np.zeros(t.asleep.size)
    for d in range(t.n_days):
        sl = t.day(d)
        total = weight[sl].sum()
        if np.isfinite(kcal[d]) and total > 0:
            out[sl] = kcal[d] * weight[sl] / total
    return out


def _channels(
    rng: np.random.Generator, t: _Timeline, hr: FloatArray, energy: FloatArray, prof: _Profile
) -> np.ndarray:
    """Stack the 19 channels of the record's days, ``(n_days, 19, 1440)`` float32."""
    n = t.asleep.size
    running = np.maximum(t.watch_steps, t.phone_steps) > 140
    stride = prof.stride * np.where(running, 1.45, 1.0)
    flights = np.where(t.carried & (t.phone_steps > 0), rng.random(n) < prof.flights_rate, 0.0)
    out = np.zeros((N_CHANNELS, n), dtype=np.float32)
    out[0] = t.phone_steps
    out[1] = t.phone_steps * stride * prof.phone_bias
    out[2] = flights
    out[3] = np.where(t.worn, t.watch_steps, 0.0)
    out[4] = out[3] * stride
    out[HR] = hr
    out[6] = np.where(t.worn, energy, 0.0)
    out[ASLEEP] = t.asleep
    out[INBED] = t.inbed
    for k, c in enumerate(WORKOUTS):
        out[c] = t.workout == k
    return out[:, DAY:].reshape(N_CHANNELS, t.n_days, DAY).transpose(1, 0, 2).copy()


def expand_user(
    rng: np.random.Generator,
    user_id: str,
    daily: pd.DataFrame,
    traits: dict[str, Any],
    age: float,
    params: MinuteParams | None = None,
) -> MinuteUser:
    """Expand one user's daily synthetic record to minute days.

    Args:
        rng: The user's generator (every draw of the expansion comes from it).
        user_id: The user.
        daily: The user's daily rows (columns of the daily cohort), sorted by date, one per day.
        traits: The user's row of ``cohort.truth["traits"]`` (``sleep_onset_min``,
            ``baseline_*``, ``height_cm``, ``weight_kg``).
        age: Age in years (max HR = 208 − 0.7 × age).
        params: Generator tuning; defaults to :class:`MinuteParams`.

    Returns:
        The user's :class:`~wearbench.minutes.MinuteUser`, one minute day per daily row.
    """
    p = params or MinuteParams()
    daily = daily.reset_index(drop=True)
    prof = _profile(rng, daily, traits, age, p)
    t = _Timeline(len(daily))
    _sleep_and_wear(rng, t, daily, prof)
    _workouts(rng, t, daily, prof)
    _charging(rng, t, p, prof)
    _steps(rng, t, daily, p, prof)
    hr = _hr(rng, t, daily, p, prof)
    values = _channels(rng, t, hr, _energy(t, daily, prof), prof)
    non_wear = ~t.worn[DAY:].reshape(t.n_days, DAY)
    dates = daily["date"].to_numpy().astype("datetime64[D]")
    return MinuteUser(user_id, dates, values, non_wear)


def minute_users(
    cohort: Cohort,
    seed: int,
    params: MinuteParams | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Iterator[MinuteUser]:
    """Expand a synthetic daily cohort user by user (one user's minutes in memory at a time).

    User ``i`` (in the cohort's user order) draws from its own stream
    ``SeedSequence(seed, spawn_key=(COHORT, MINUTES, i))``, so a user's minutes depend only on
    the seed, the index and the user's daily record.

    Args:
        cohort: A cohort from :func:`synthesize` (needs ``truth["traits"]``).
        seed: Root seed (the one the daily cohort was made with).
        params: Generator tuning.
        progress: Called as ``progress(done, total)`` after each user.

    Raises:
        WearbenchError: If the cohort has no synthetic ground truth.
    """
    traits = {r["user_id"]: r for r in (cohort.truth or {}).get("traits", [])}
    ages = dict(zip(cohort.demographics["user_id"], cohort.demographics["age"], strict=True))
    ids = list(dict.fromkeys(cohort.daily["user_id"]))
    for u in ids:
        if u not in traits:
            raise WearbenchError(f"user {u!r}: no synthetic traits in cohort.truth (not a synthetic cohort?)")
    groups = {u: g.sort_values("date") for u, g in cohort.daily.groupby("user_id", sort=False)}
    for i, u in enumerate(ids):
        rng = user_rngs(seed, Population.COHORT, Component.MINUTES, i, i + 1)[0]
        age = float(ages.get(u, 40.0))
        yield expand_user(rng, u, groups[u], traits[u], age if np.isfinite(age) else 40.0, params)
        if progress is not None:
            progress(i + 1, len(ids))


def synthesize_minutes(
    n_users: int,
    n_days: int,
    seed: int,
    out: str | os.PathLike[str],
    *,
    start: str = "2024-01-01",
    params: MinuteParams | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Path:
    """Generate the daily synthetic cohort, expand it to minutes and write a minute-cohort folder.

    Deterministic: the same arguments give identical bytes (one pyarrow version).

    Args:
        n_users: Users (≥ 1), ids ``u0001`` … as in the daily cohort.
        n_days: Days per user (≥ 1).
        seed: Root seed (≥ 0), shared with the daily cohort.
        out: Folder to write (see :func:`wearbench.minutes.write_minute_cohort`).
        start: First calendar day, ISO ``YYYY-MM-DD``.
        params: Generator tuning (:class:`MinuteParams`).
        progress: Called as ``progress(done, total)`` after each user.

    Returns:
        The folder path. Its manifest's ``source`` holds the generator name and version,
        the arguments and the daily cohort's ``content_hash``.

    Raises:
        ValueError: If a parameter is out of range.
        WearbenchError: If ``out`` cannot be written.
    """
    daily = synthesize(n_users, n_days, seed, reference_users=0, start=start)
    source = {
        "name": MINUTE_GENERATOR,
        "version": MINUTE_GENERATOR_VERSION,
        "seed": seed,
        "n_users": n_users,
        "n_days": n_days,
        "start": start,
        "params": asdict(params or MinuteParams()),
        "daily_content_hash": content_hash(daily),
    }
    return write_minute_cohort(minute_users(daily, seed, params, progress), out, source)
