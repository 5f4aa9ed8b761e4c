"""Daily scenarios with typed meals and exercise sessions described by their magnitude.

A :class:`DailyScenario` draws, for every patient and day, one meal per :class:`MealSlot`
(breakfast, morning snack, lunch, afternoon snack, dinner) and, with a weekly rate, one session
per :class:`ExerciseSlot` (running at a speed and incline, cycling at a power). Each meal and
session is perturbed with probability ``Perturbation.probability`` by one method drawn uniformly
from :data:`PERTURBATIONS`, at an intensity ``i`` drawn uniformly from ``Perturbation.intensity``:

- ``heavy``: carbs (or exercise magnitude) times ``1 + i``;
- ``light``: carbs (or magnitude) times ``1 - i``;
- ``early`` / ``delayed``: the start moved ``i * shift_min`` minutes earlier / later (kept in the day);
- ``skipped``: not eaten (not done).

Exercise magnitude becomes the simulator's intensity through the ACSM equations
(:func:`~wearbench.sim.scenario.running_intensity`, :func:`~wearbench.sim.scenario.cycling_intensity`
with each patient's body weight). See ``docs/cgm-healthloopqa.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
import pandas as pd

from wearbench._errors import WearbenchError
from wearbench.sim.patient._params import FloatArray
from wearbench.sim.scenario._exercise import SESSION_COLUMNS, exercise_array
from wearbench.sim.scenario._magnitude import DEFAULT_VO2MAX, cycling_intensity, running_intensity
from wearbench.sim.scenario._meals import check_carbs

MEAL_TYPES = ("breakfast", "morning_snack", "lunch", "afternoon_snack", "dinner")
PERTURBATIONS = ("heavy", "light", "early", "delayed", "skipped")
#: Columns of the meal table (``carbs_g`` 0 for a skipped meal).
MEAL_COLUMNS = ["patient", "start", "carbs_g", "meal_type", "perturbation", "perturbation_intensity"]
#: Columns of the sessions table: :data:`SESSION_COLUMNS` plus the magnitude and perturbation.
DAILY_SESSION_COLUMNS = [*SESSION_COLUMNS, "magnitude", "magnitude_unit", "incline_pct", "perturbation"]
_UNITS = {"running": "km/h", "cycling": "W"}


@dataclass(frozen=True)
class MealSlot:
    """One meal of the day.

    Attributes:
        meal_type: One of :data:`MEAL_TYPES`.
        hours: Window of the usual start, clock hours ``(from, to)``; the start is uniform in it.
        carbs_g: Range of the usual carbs (g), uniform, rounded to whole grams.
    """

    meal_type: str
    hours: tuple[float, float]
    carbs_g: tuple[float, float]


@dataclass(frozen=True)
class ExerciseSlot:
    """One kind of exercise session, done on a day with probability ``per_week / 7``.

    Attributes:
        kind: ``"running"`` (magnitude = speed, km/h) or ``"cycling"`` (magnitude = power, W).
        per_week: Expected sessions a week (0-7).
        hours: Window of the start, clock hours.
        duration_min: Range of the duration (min), uniform whole minutes.
        magnitude: Range of the speed (km/h) or power (W), uniform, rounded to 0.1.
        incline_pct: Range of the treadmill grade (%) for running, rounded to 0.1.
    """

    kind: Literal["running", "cycling"]
    per_week: float
    hours: tuple[float, float]
    duration_min: tuple[int, int]
    magnitude: tuple[float, float]
    incline_pct: tuple[float, float] = (0.0, 0.0)


@dataclass(frozen=True)
class Perturbation:
    """How meals and sessions deviate from the usual day (see the module docstring).

    Attributes:
        probability: Chance that one meal or session is perturbed.
        intensity: Range of the perturbation intensity ``i``, within ``[0, 1]``.
        shift_min: Minutes moved by ``early``/``delayed`` at ``i = 1``.
    """

    probability: float = 0.2
    intensity: tuple[float, float] = (0.25, 0.5)
    shift_min: float = 120.0


@dataclass(frozen=True)
class DailyDraw:
    """One scenario draw.

    Attributes:
        carbs: Carbs eaten (g), shape ``(P, days * 1440)``.
        meals: Meal table (:data:`MEAL_COLUMNS`), one row per planned meal, skipped ones included.
        intensity: Exercise intensity (0-1), shape ``(P, days * 1440)``.
        sessions: Sessions table (:data:`DAILY_SESSION_COLUMNS`), skipped sessions left out.
    """

    carbs: FloatArray
    meals: pd.DataFrame
    intensity: FloatArray
    sessions: pd.DataFrame


def _perturb(
    p: Perturbation, shape: tuple[int, ...], rng: np.random.Generator
) -> tuple[np.ndarray, FloatArray]:
    """Method (``""`` when none) and intensity (0 when none) per item."""
    hit = rng.random(shape) < p.probability
    method = np.asarray(PERTURBATIONS, dtype=object)[rng.integers(0, len(PERTURBATIONS), size=shape)]
    level = np.round(rng.uniform(*p.intensity, size=shape), 2)
    return np.where(hit, method, ""), np.where(hit, level, 0.0)


def _apply(
    p: Perturbation, method: np.ndarray, level: FloatArray, start: FloatArray, amount: FloatArray
) -> tuple[FloatArray, FloatArray]:
    """Perturbed (start minute of day, amount); a skipped item gets amount 0."""
    amount = np.where(method == "heavy", amount * (1 + level), amount)
    amount = np.where(method == "light", amount * (1 - level), amount)
    amount = np.where(method == "skipped", 0.0, amount)
    shift = np.round(level * p.shift_min)
    start = np.where(method == "early", start - shift, np.where(method == "delayed", start + shift, start))
    return np.clip(start, 0, 1439), amount


@dataclass(frozen=True)
class DailyScenario:
    """Typed meals and magnitude-described exercise every day (see the module docstring).

    Attributes:
        meals: The day's meals.
        exercise: The kinds of exercise session.
        perturbation: How meals and sessions deviate.
        vo2max: VO2max assumed for every patient (mL/kg/min), for the magnitude-to-intensity step.
    """

    meals: tuple[MealSlot, ...]
    exercise: tuple[ExerciseSlot, ...] = ()
    perturbation: Perturbation = Perturbation()
    vo2max: float = DEFAULT_VO2MAX

    def check(self) -> None:
        """Raise :class:`WearbenchError` for an unknown meal type or exercise kind, or bad ranges."""
        for m in self.meals:
            if m.meal_type not in MEAL_TYPES or not 0 <= m.hours[0] <= m.hours[1] <= 24:
                raise WearbenchError(f"meal slot {m}: type in {MEAL_TYPES}, hours within 0-24")
        for e in self.exercise:
            lo_d, hi_d = e.duration_min
            if e.kind not in _UNITS or not 0 <= e.per_week <= 7 or not 1 <= lo_d <= hi_d:
                raise WearbenchError(f"exercise slot {e}: kind running/cycling, per_week 0-7, duration >= 1")
        lo, hi = self.perturbation.intensity
        if not 0 <= self.perturbation.probability <= 1 or not 0 <= lo <= hi <= 1:
            raise WearbenchError(f"perturbation {self.perturbation}: probability and intensity in [0, 1]")

    def draw(self, body_weight_kg: FloatArray, days: int, rng: np.random.Generator) -> DailyDraw:
        """Draw meals and sessions for ``len(body_weight_kg)`` patients over ``days`` days.

        Args:
            body_weight_kg: Each patient's body weight (kg), for cycling power.
            days: Days in the run.
            rng: Random generator (the only source of randomness).

        Returns:
            The carbs and intensity arrays and the meal and session tables.
        """
        self.check()
        weights = np.asarray(body_weight_kg, dtype=np.float64)
        n = len(weights)
        meals = self._meals(n, days, rng)
        carbs = np.zeros((n, days * 1440))
        where = (meals["patient"].to_numpy(), meals["start"].to_numpy())
        np.add.at(carbs, where, meals["carbs_g"].to_numpy())
        sessions = self._sessions(weights, days, rng)
        intensity = exercise_array(sessions, n, days * 1440)
        return DailyDraw(check_carbs(carbs), meals, intensity, sessions)

    def _meals(self, n: int, days: int, rng: np.random.Generator) -> pd.DataFrame:
        shape = (n, days, len(self.meals))
        lo_h, hi_h = (np.array([m.hours[k] for m in self.meals]) * 60 for k in (0, 1))
        lo_g, hi_g = (np.array([m.carbs_g[k] for m in self.meals]) for k in (0, 1))
        start = np.floor(rng.uniform(lo_h, hi_h, size=shape))
        amount = np.round(rng.uniform(lo_g, hi_g, size=shape))
        method, level = _perturb(self.perturbation, shape, rng)
        start, amount = _apply(self.perturbation, method, level, start, amount)
        p_idx, d_idx, k_idx = (a.ravel() for a in np.indices(shape))
        return pd.DataFrame(
            {
                "patient": p_idx.astype(np.int64),
                "start": (d_idx * 1440 + start.ravel()).astype(np.int64),
                "carbs_g": np.round(amount.ravel()),
                "meal_type": [self.meals[k].meal_type for k in k_idx],
                "perturbation": method.ravel().astype(str),
                "perturbation_intensity": level.ravel(),
            },
            columns=MEAL_COLUMNS,
        )

    def _sessions(self, weights: FloatArray, days: int, rng: np.random.Generator) -> pd.DataFrame:
        parts = [self._slot_sessions(slot, weights, days, rng) for slot in self.exercise]
        # empty slots are left out of the dtype decision, as pandas < 3 did (and warned it will not)
        parts = [p for p in parts if len(p)] or parts
        table = pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=DAILY_SESSION_COLUMNS)
        return table.sort_values(["patient", "start"], kind="stable").reset_index(drop=True)

    def _slot_sessions(
        self, slot: ExerciseSlot, weights: FloatArray, days: int, rng: np.random.Generator
    ) -> pd.DataFrame:
        shape = (len(weights), days)
        active = rng.random(shape) < slot.per_week / 7.0
        start = np.floor(rng.uniform(slot.hours[0] * 60, slot.hours[1] * 60, size=shape))
        duration = rng.integers(slot.duration_min[0], slot.duration_min[1] + 1, size=shape)
        magnitude = np.round(rng.uniform(*slot.magnitude, size=shape), 1)
        incline = np.round(rng.uniform(*slot.incline_pct, size=shape), 1)
        method, level = _perturb(self.perturbation, shape, rng)
        start, magnitude = _apply(self.perturbation, method, level, start, magnitude)
        magnitude = np.round(magnitude, 1)
        start = np.minimum(start, 1440 - duration)  # the session ends within its day
        keep = active & (method != "skipped")
        p_idx, d_idx = np.nonzero(keep)
        size, extra = magnitude[keep], incline[keep] if slot.kind == "running" else weights[p_idx]
        convert = running_intensity if slot.kind == "running" else cycling_intensity
        level_of = [convert(float(v), float(x), self.vo2max) for v, x in zip(size, extra, strict=True)]
        return pd.DataFrame(
            {
                "patient": p_idx.astype(np.int64),
                "start": (d_idx * 1440 + start[keep]).astype(np.int64),
                "duration": duration[keep].astype(np.int64),
                "kind": slot.kind,
                "intensity": np.round(np.asarray(level_of, dtype=np.float64), 3),
                "magnitude": magnitude[keep].astype(np.float64),
                "magnitude_unit": _UNITS[slot.kind],
                "incline_pct": incline[keep].astype(np.float64) if slot.kind == "running" else np.nan,
                "perturbation": method[keep].astype(str),
            },
            columns=DAILY_SESSION_COLUMNS,
        )


def meal_type_at(minute: np.ndarray) -> np.ndarray:
    """Meal type by clock time, for carbs without a planned type (a CSV meal, a false meal).

    Before 09:00 ``breakfast``, 09:00-11:30 ``morning_snack``, 11:30-14:30 ``lunch``,
    14:30-17:30 ``afternoon_snack``, from 17:30 ``dinner``.

    Args:
        minute: Minutes from the run start (local midnight of day 1).

    Returns:
        An object array of meal types, same shape.
    """
    clock = np.asarray(minute) % 1440
    edges = np.array([9 * 60, 11.5 * 60, 14.5 * 60, 17.5 * 60])
    kinds = np.asarray(MEAL_TYPES, dtype=object)
    out: np.ndarray = kinds[np.searchsorted(edges, clock, side="right")]
    return out
