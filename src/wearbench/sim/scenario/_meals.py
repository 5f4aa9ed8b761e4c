"""Meal scenarios as arrays of announced carbs (g) of shape ``(P, minutes)``.

:func:`random_meals` follows simglucose's ``RandomScenario``: each day, breakfast, lunch and
dinner are eaten with probability 0.95 (so sometimes skipped) and three snacks with probability
0.3; meal times are truncated-normal around their usual time (so meals are early or delayed) and
amounts normal, rounded to whole grams. Exercise is not modelled.

User-provided meals (:func:`meals_from_csv`, or an array given to ``simulate``) must be
physiological: each meal :data:`MEAL_CARBS_G` (0–300 g), at most that much in any one minute, at
a whole minute inside the run; anything else is refused with one line naming file, line, column
and value.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
from scipy.stats import truncnorm

from wearbench._errors import WearbenchError
from wearbench.sim.patient._params import FloatArray

#: Carbohydrate of one meal, g (inclusive). 300 g is about three large restaurant meals at once;
#: the simulator's random meals are 45/70/80 g (SD 10) with 10 g snacks.
MEAL_CARBS_G = (0.0, 300.0)

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


def check_carbs(carbs: FloatArray, what: str = "meals") -> FloatArray:
    """``carbs`` (g per minute) if every value is finite and within :data:`MEAL_CARBS_G`.

    Raises:
        WearbenchError: Naming the first patient index, minute and value out of bounds.
    """
    lo, hi = MEAL_CARBS_G
    bad = ~np.isfinite(carbs) | (carbs < lo) | (carbs > hi)
    if bad.any():
        p, m = (int(i[0]) for i in np.nonzero(bad))
        raise WearbenchError(
            f"{what}: patient {p}, minute {m}: {carbs[p, m]:g} g of carbs is outside {lo:g}-{hi:g} g "
            "per meal (and per minute)"
        )
    return carbs


def meals_from_csv(path: Path, n_patients: int, days: int) -> FloatArray:
    """Announced carbs (g) of shape ``(n_patients, days * 1440)`` from a ``minute,carbs_g`` CSV.

    Each line is one meal: ``minute`` a whole minute of the run (0 to ``days * 1440 - 1``),
    ``carbs_g`` within :data:`MEAL_CARBS_G`; meals at the same minute must add up to at most the
    upper bound too.

    Raises:
        WearbenchError: Unreadable file, missing columns, or one line naming file, line, column
            and value of the first value out of bounds.
    """
    try:
        table = pd.read_csv(path, dtype=str, keep_default_na=False)
    except (OSError, ValueError) as e:
        raise WearbenchError(f"{path}: not a readable meals CSV ({e})") from e
    if not {"minute", "carbs_g"} <= set(table.columns):
        raise WearbenchError(f"{path}: line 1: the meals CSV needs columns minute,carbs_g")
    minute = pd.to_numeric(table["minute"].str.strip(), errors="coerce").to_numpy(dtype=float)
    carbs = pd.to_numeric(table["carbs_g"].str.strip(), errors="coerce").to_numpy(dtype=float)
    end, (lo, hi) = days * 1440, MEAL_CARBS_G
    for i in range(len(table)):
        where = f"{path}: line {i + 2}"
        if not (np.isfinite(minute[i]) and minute[i] == int(minute[i]) and 0 <= minute[i] < end):
            raise WearbenchError(
                f"{where}: minute {table['minute'].iloc[i]!r} is not a whole minute in 0-{end - 1} "
                f"({days} day(s))"
            )
        if not (np.isfinite(carbs[i]) and lo <= carbs[i] <= hi):
            raise WearbenchError(
                f"{where}: carbs_g {table['carbs_g'].iloc[i]!r} is outside {lo:g}-{hi:g} g per meal"
            )
    per_minute = np.bincount(minute.astype(int), weights=carbs, minlength=end)
    over = np.flatnonzero(per_minute > hi)
    if over.size:
        lines = [str(i + 2) for i in np.flatnonzero(minute == over[0])]
        raise WearbenchError(
            f"{path}: lines {', '.join(lines)}: {per_minute[over[0]]:g} g of carbs at minute {over[0]} "
            f"is over {hi:g} g in one minute"
        )
    return np.tile(per_minute, (n_patients, 1))
