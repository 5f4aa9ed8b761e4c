"""Meal scenarios as arrays of announced carbs (g) of shape ``(P, minutes)``.

:func:`random_meals` follows simglucose's ``RandomScenario``: each day, breakfast, lunch and
dinner are eaten with probability 0.95 (so sometimes skipped) and three snacks with probability
0.3; meal times are truncated-normal around their usual time (so meals are early or delayed) and
amounts normal, rounded to whole grams. Exercise is not modelled.
"""

from __future__ import annotations

import numpy as np
from scipy.stats import truncnorm

from wearbench.sim.patient._params import FloatArray

__all__ = ["DEFAULT_MEALS", "fixed_meals", "random_meals"]

DEFAULT_MEALS: tuple[tuple[float, float], ...] = ((7.0, 45.0), (12.0, 70.0), (15.0, 10.0), (18.0, 80.0))
"""(hour of day, carbs g) eaten every day by :func:`fixed_meals` unless told otherwise."""

# [breakfast, snack1, lunch, snack2, dinner, snack3], as simglucose's RandomScenario.
_PROB = np.array([0.95, 0.3, 0.95, 0.3, 0.95, 0.3])
_T_LB = np.array([5, 9, 10, 14, 16, 20]) * 60.0
_T_UB = np.array([9, 10, 14, 16, 20, 23]) * 60.0
_T_MU = np.array([7, 9.5, 12, 15, 18, 21.5]) * 60.0
_T_SD = np.array([60, 30, 60, 30, 60, 30], dtype=np.float64)
_AMOUNT_MU = np.array([45, 10, 70, 10, 80, 10], dtype=np.float64)
_AMOUNT_SD = np.array([10, 5, 10, 5, 10, 5], dtype=np.float64)


def fixed_meals(
    n_patients: int, days: int, meals: tuple[tuple[float, float], ...] = DEFAULT_MEALS
) -> FloatArray:
    """The same meals every day for every patient.

    Args:
        n_patients: Number of patients P.
        days: Number of days.
        meals: ``(hour of day, carbs g)`` pairs; the hour is rounded to the nearest minute.

    Returns:
        Announced carbs (g), shape ``(P, days * 1440)``.
    """
    out = np.zeros((n_patients, days * 1440))
    for day in range(days):
        for hour, grams in meals:
            out[:, day * 1440 + round(hour * 60)] += grams
    return out


def random_meals(n_patients: int, days: int, rng: np.random.Generator) -> FloatArray:
    """simglucose-style random daily meals and snacks for each patient.

    Args:
        n_patients: Number of patients P.
        days: Number of days.
        rng: Random generator.

    Returns:
        Announced carbs (g), shape ``(P, days * 1440)``.
    """
    shape = (n_patients, days, _PROB.size)
    eaten = rng.random(shape) < _PROB
    a, b = (_T_LB - _T_MU) / _T_SD, (_T_UB - _T_MU) / _T_SD
    times = np.round(truncnorm.rvs(a, b, loc=_T_MU, scale=_T_SD, size=shape, random_state=rng))
    amounts = np.maximum(np.round(rng.normal(_AMOUNT_MU, _AMOUNT_SD, size=shape)), 0.0)
    out = np.zeros((n_patients, days * 1440))
    minute = (np.arange(days)[None, :, None] * 1440 + times).astype(np.int64)
    rows = np.broadcast_to(np.arange(n_patients)[:, None, None], shape)
    np.add.at(out, (rows[eaten], minute[eaten]), amounts[eaten])
    return out
