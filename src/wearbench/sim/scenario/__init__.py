"""Meal and exercise scenarios: announced carbs (g) and exercise intensity per patient and minute."""

from __future__ import annotations

from wearbench.sim.scenario._daily import (
    DAILY_SESSION_COLUMNS,
    MEAL_COLUMNS,
    MEAL_TYPES,
    PERTURBATIONS,
    DailyDraw,
    DailyScenario,
    ExerciseSlot,
    MealSlot,
    Perturbation,
    meal_type_at,
)
from wearbench.sim.scenario._exercise import (
    EXERCISE_KINDS,
    exercise_array,
    exercise_sessions,
    session_profile,
)
from wearbench.sim.scenario._magnitude import DEFAULT_VO2MAX, REST_VO2, cycling_intensity, running_intensity
from wearbench.sim.scenario._meals import (
    DEFAULT_MEALS,
    MEAL_CARBS_G,
    check_carbs,
    fixed_meals,
    meals_from_csv,
    random_meals,
)
from wearbench.sim.scenario._rescue import HYPO_TREATMENT, RescueCarbs, RescueTreatment

__all__ = [
    "DAILY_SESSION_COLUMNS",
    "DEFAULT_MEALS",
    "DEFAULT_VO2MAX",
    "EXERCISE_KINDS",
    "HYPO_TREATMENT",
    "MEAL_CARBS_G",
    "MEAL_COLUMNS",
    "MEAL_TYPES",
    "PERTURBATIONS",
    "REST_VO2",
    "DailyDraw",
    "DailyScenario",
    "ExerciseSlot",
    "MealSlot",
    "Perturbation",
    "RescueCarbs",
    "RescueTreatment",
    "check_carbs",
    "cycling_intensity",
    "exercise_array",
    "exercise_sessions",
    "fixed_meals",
    "meal_type_at",
    "meals_from_csv",
    "random_meals",
    "running_intensity",
    "session_profile",
]
