"""Meal scenarios: announced carbs (g) per patient and minute."""

from __future__ import annotations

from wearbench.sim.scenario._meals import DEFAULT_MEALS, fixed_meals, random_meals

__all__ = ["DEFAULT_MEALS", "fixed_meals", "random_meals"]
