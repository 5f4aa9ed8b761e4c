"""Per-user life events: acute episodes and training blocks, and their daily effect profiles.

Episodes (illness, stress, travel, injury) are non-overlapping, start on or after day
:data:`MIN_EPISODE_START` and are separated by at least :data:`EPISODE_SEPARATION` clean
days, so each has a clean trailing 28-day baseline. Training blocks (6–12 weeks of more,
longer exercise) are scheduled independently and drive slow fitness adaptation
(VO2max up, resting HR down) with detraining afterwards.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import signal

from wearbench.sources.synthetic._config import (
    EPISODE_DURATIONS,
    EPISODE_KINDS,
    EPISODE_SEPARATION,
    MIN_EPISODE_START,
    FloatArray,
)
from wearbench.sources.synthetic._traits import Person, sigmoid

_EPISODE_COUNT_P = (0.12, 0.28, 0.30, 0.18, 0.12)
_KIND_P = (0.35, 0.25, 0.25, 0.15)
#: Time constant (days) of training adaptation and detraining.
_ADAPTATION_DAYS = 21.0


@dataclass(frozen=True)
class Episode:
    """One acute episode; ``start``/``end`` are inclusive day indices.

    ``magnitude`` is, by kind: illness — peak resting-HR rise (bpm, 7–16, 3.5–4.5 personal
    SDs); stress — intensity (0–1); travel — sleep-onset shift (minutes, + = later); injury —
    severity (0–1).
    """

    kind: str
    start: int
    end: int
    magnitude: float


@dataclass(frozen=True)
class TrainingBlock:
    """A training block (inclusive day indices) and its full-adaptation effects."""

    start: int
    end: int
    vo2max_gain: float  # mL/kg/min
    resting_hr_drop: float  # bpm


@dataclass(frozen=True)
class UserPlan:
    """Everything scheduled for one user."""

    episodes: tuple[Episode, ...]
    training: tuple[TrainingBlock, ...]


def _place(rng: np.random.Generator, durations: list[int], lo: int, hi: int, sep: int) -> list[int]:
    """Random non-overlapping starts in ``[lo, hi)`` with ``sep`` days between items.

    Items that do not fit are dropped from the end; returns one start per kept item.
    """
    while durations and sum(durations) + sep * (len(durations) - 1) > hi - lo:
        durations.pop()
    if not durations:
        return []
    slack = hi - lo - sum(durations) - sep * (len(durations) - 1)
    cuts = np.sort(rng.integers(0, slack + 1, size=len(durations)))
    starts, pos = [], lo
    for k, d in enumerate(durations):
        starts.append(pos + int(cuts[k]) + k * sep)
        pos += d
    return starts


def _magnitude(rng: np.random.Generator, kind: str, rhr_sd: float) -> float:
    if kind == "illness":  # 3.5-4.5 personal SDs: clears a 1.5-SD excursion threshold (99-100 %)
        return float(np.clip(rng.uniform(3.5, 4.5) * rhr_sd, 7.0, 16.0))
    if kind == "travel":
        return float(rng.choice((-1.0, 1.0)) * rng.uniform(90.0, 360.0))
    return float(rng.uniform(0.7, 1.0) if kind == "stress" else rng.uniform(0.6, 1.0))


def _plan_one(rng: np.random.Generator, n_days: int, train_p: float, rhr_sd: float) -> UserPlan:
    n_ep = int(rng.choice(len(_EPISODE_COUNT_P), p=_EPISODE_COUNT_P))
    kinds = [EPISODE_KINDS[int(k)] for k in rng.choice(len(_KIND_P), size=n_ep, p=_KIND_P)]
    durations = [int(rng.integers(EPISODE_DURATIONS[k][0], EPISODE_DURATIONS[k][1] + 1)) for k in kinds]
    magnitudes = [_magnitude(rng, k, rhr_sd) for k in kinds]
    starts = _place(rng, durations, MIN_EPISODE_START, n_days, EPISODE_SEPARATION)
    episodes = tuple(
        Episode(kinds[k], s, s + durations[k] - 1, round(magnitudes[k], 3)) for k, s in enumerate(starts)
    )
    n_blocks = int(rng.binomial(2, train_p))
    block_days = [int(rng.integers(42, 85)) for _ in range(n_blocks)]
    gains = [
        (round(float(rng.uniform(2.0, 6.0)), 3), round(float(rng.uniform(2.0, 5.0)), 3)) for _ in block_days
    ]
    starts = _place(rng, block_days, 0, n_days, 30)
    training = tuple(
        TrainingBlock(s, s + block_days[k] - 1, gains[k][0], gains[k][1]) for k, s in enumerate(starts)
    )
    return UserPlan(episodes, training)


def draw_plans(rngs: list[np.random.Generator], n_days: int, person: Person) -> list[UserPlan]:
    """Schedule episodes and training blocks for one chunk of users.

    Args:
        rngs: One generator per user (the ``PLAN`` component stream).
        n_days: Days in the record.
        person: The chunk's users (training is likelier for active, fit users).
    """
    drive = person.trait("activity_habit") + person.trait("fitness")
    train_p = (0.10 + 0.35 * sigmoid(drive)) * min(1.0, n_days / 365.0)
    rhr_sd = np.hypot(person.sd["resting_hr"], 1.0)  # biological and device noise, bpm
    return [_plan_one(g, n_days, float(train_p[i]), float(rhr_sd[i])) for i, g in enumerate(rngs)]


@dataclass(frozen=True)
class Effects:
    """Daily effect profiles, each ``(users, days)``.

    ``illness``, ``stress``, ``travel``, ``injury``: intensity 0–1 (stress and injury
    scaled by their magnitude); ``illness_rhr``: resting-HR rise in bpm; ``travel_shift``:
    sleep-onset shift in minutes; ``training``: training-block load 0–1; ``adapted``: slow
    training adaptation 0–1; ``vo2max_delta``: mL/kg/min; ``rhr_delta``: bpm.
    """

    illness: FloatArray
    illness_rhr: FloatArray
    stress: FloatArray
    travel: FloatArray
    travel_shift: FloatArray
    injury: FloatArray
    training: FloatArray
    adapted: FloatArray
    vo2max_delta: FloatArray
    rhr_delta: FloatArray


def _profile(kind: str, d: int, magnitude: float) -> FloatArray:
    k = np.arange(d, dtype=float)
    if kind == "illness":
        p = np.ones(d)
        if d >= 4:
            p[-2] = 0.85
        p[0], p[-1] = 0.8, 0.6
        return p
    if kind == "stress":
        return magnitude * np.minimum(1.0, (k + 1.0) / 3.0)
    if kind == "injury":
        return magnitude * (1.0 - 0.6 * k / d)
    return np.ones(d)


def _smooth(x: FloatArray, tau: float) -> FloatArray:
    """First-order exponential response along days (adaptation with time constant ``tau``)."""
    a = 1.0 / tau
    out: FloatArray = signal.lfilter([a], [1.0, a - 1.0], x, axis=1)
    return out


def effects(plans: list[UserPlan], n_days: int) -> Effects:
    """Render the plans into daily effect profiles."""
    n = len(plans)
    arr = {k: np.zeros((n, n_days)) for k in (*EPISODE_KINDS, "illness_rhr", "travel_shift", "training")}
    gain = np.zeros((n, n_days, 2))
    for u, plan in enumerate(plans):
        for ep in plan.episodes:
            sl, d = slice(ep.start, ep.end + 1), ep.end - ep.start + 1
            arr[ep.kind][u, sl] = _profile(ep.kind, d, ep.magnitude)
            if ep.kind == "illness":
                arr["illness_rhr"][u, sl] = ep.magnitude * arr["illness"][u, sl]
            if ep.kind == "travel":
                arr["travel_shift"][u, sl] = ep.magnitude * (1.0 - 0.5 * np.arange(d) / d)
        for b in plan.training:
            d = b.end - b.start + 1
            arr["training"][u, b.start : b.end + 1] = 0.5 + 0.5 * np.minimum(1.0, np.arange(d) / 14.0)
            gain[u, b.start :, :] = (b.vo2max_gain, b.resting_hr_drop)
    adapted = _smooth(arr["training"], _ADAPTATION_DAYS)
    injured = _smooth(arr["injury"], _ADAPTATION_DAYS)
    return Effects(
        illness=arr["illness"],
        illness_rhr=arr["illness_rhr"],
        stress=arr["stress"],
        travel=arr["travel"],
        travel_shift=arr["travel_shift"],
        injury=arr["injury"],
        training=arr["training"],
        adapted=adapted,
        vo2max_delta=gain[:, :, 0] * adapted - 2.5 * injured,
        rhr_delta=-gain[:, :, 1] * adapted + 1.5 * injured,
    )
