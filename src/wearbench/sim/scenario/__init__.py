"""Meal and exercise scenarios: announced carbs (g) and exercise intensity per patient and minute."""

from __future__ import annotations

from wearbench.sim.scenario._exercise import EXERCISE_KINDS, exercise_array, exercise_sessions
from wearbench.sim.scenario._meals import DEFAULT_MEALS, fixed_meals, random_meals

__all__ = [
    "DEFAULT_MEALS",
    "EXERCISE_KINDS",
    "exercise_array",
    "exercise_sessions",
    "fixed_meals",
    "random_meals",
]
