"""Reductions of one daily series to a number, for computation graphs.

These are the glue steps a question's graph needs between richer primitives (the mean of a
window, the number of days present, the day of the largest value), registered so that every
number an answer depends on is a recorded primitive call. They are tagged
``estimates=False``: unlike the estimators they are well defined on a single day.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from wearbench.primitives._common import as_series, check_choice, check_int
from wearbench.primitives._registry import primitive

Stat = Literal["mean", "median", "sd", "min", "max", "sum"]


@primitive(inputs=("values",), output="int", units="days", cost="cheap", estimates=False)
def count_days(values: ArrayLike) -> int:
    """Calendar days in the series, present or not.

    Args:
        values: Daily series (NaN = missing).

    Returns:
        The series length in days.
    """
    return int(as_series(values).size)


@primitive(inputs=("values",), output="int", units="days", cost="cheap", estimates=False)
def count_valid(values: ArrayLike) -> int:
    """Days with a value (non-NaN).

    Args:
        values: Daily series (NaN = missing).

    Returns:
        Number of present days.
    """
    return int(np.isfinite(as_series(values)).sum())


@primitive(inputs=("values",), output="float", units="same as input", cost="cheap", estimates=False)
def nan_stat(values: ArrayLike, *, stat: Stat = "mean", min_count: int = 1) -> float:
    """A statistic over the present days.

    Args:
        values: Daily series (NaN = missing), any units.
        stat: ``mean``, ``median``, ``sd`` (ddof 1), ``min``, ``max`` or ``sum``.
        min_count: Fewest present days for a defined result (≥ 1; ``sd`` needs ≥ 2 anyway).

    Returns:
        The statistic in input units; NaN when fewer than ``min_count`` days are present.
    """
    check_choice("stat", stat, ("mean", "median", "sd", "min", "max", "sum"))
    check_int("min_count", min_count, 1)
    x = as_series(values)
    x = x[np.isfinite(x)]
    if x.size < max(min_count, 2 if stat == "sd" else 1):
        return float("nan")
    if stat == "sd":
        return float(np.std(x, ddof=1))
    if stat == "median":
        return float(np.median(x))
    if stat == "min":
        return float(x.min())
    if stat == "max":
        return float(x.max())
    return float(x.sum() if stat == "sum" else x.mean())


@primitive(inputs=("values",), output="int | None", units="day index", cost="cheap", estimates=False)
def nan_argext(values: ArrayLike, *, which: Literal["max", "min"] = "max") -> int | None:
    """Index of the largest (or smallest) present value.

    Args:
        values: Daily series (NaN = missing).
        which: ``max`` or ``min``.

    Returns:
        The 0-based day index (first on ties); None if every day is missing.
    """
    check_choice("which", which, ("max", "min"))
    x = as_series(values)
    if not np.isfinite(x).any():
        return None
    return int(np.nanargmax(x) if which == "max" else np.nanargmin(x))
