"""Meal and exercise scenarios: announced carbs (g) and exercise intensity per patient and minute."""

from __future__ import annotations

from wearbench.sim.scenario._exercise import EXERCISE_KINDS, exercise_array, exercise_sessions
from wearbench.sim.scenario._magnitude import DEFAULT_VO2MAX, REST_VO2, cycling_intensity, running_intensity
from wearbench.sim.scenario._meals import (
    DEFAULT_MEALS,
    MEAL_CARBS_G,
    check_carbs,
    fixed_meals,
    meals_from_csv,
    random_meals,
)

__all__ = [
    "DEFAULT_MEALS",
    "DEFAULT_VO2MAX",
    "EXERCISE_KINDS",
    "MEAL_CARBS_G",
    "REST_VO2",
    "check_carbs",
    "cycling_intensity",
    "exercise_array",
    "exercise_sessions",
    "fixed_meals",
    "meals_from_csv",
    "random_meals",
    "running_intensity",
]
