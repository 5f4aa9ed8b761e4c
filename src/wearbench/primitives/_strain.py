"""Acute-strain kernels: sustained deviations over the last days and focus-vs-baseline shifts.

Both work on the tail of a dense daily series (NaN = missing): :func:`sustained_level` finds the
level a z-score series holds on ``run_days`` consecutive days among its last ``tail`` days, and
:func:`focus_shift` compares the mean of the last ``focus_days`` days with the mean and SD of
the ``baseline_days`` days before them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view
from numpy.typing import ArrayLike

from wearbench.primitives._common import as_series, check_choice, check_int
from wearbench.primitives._registry import primitive


@primitive(inputs=("values",), output="float", units="same as input", cost="cheap")
def sustained_level(
    values: ArrayLike,
    *,
    run_days: int = 2,
    tail: int = 3,
    direction: Literal["above", "below"] = "above",
) -> float:
    """Most extreme level held on ``run_days`` consecutive days among the last ``tail`` days.

    For ``above`` this is the largest, over every run of ``run_days`` consecutive days, of the
    run's smallest value (so "≥ k on two consecutive days" ⇔ result ≥ k); for ``below`` the
    smallest of the runs' largest values. Runs with a missing day are skipped.

    Args:
        values: Daily series (NaN = missing), e.g. daily z-scores.
        run_days: Consecutive days a level must hold (≥ 1).
        tail: Days at the end of the series searched (≥ ``run_days``).
        direction: ``"above"`` or ``"below"``.

    Returns:
        The level in input units; NaN when no complete run lies in the tail.
    """
    check_int("run_days", run_days, 1)
    check_int("tail", tail, run_days)
    check_choice("direction", direction, ("above", "below"))
    x = as_series(values)[-tail:]
    if x.size < run_days:
        return math.nan
    runs = sliding_window_view(x, run_days)
    runs = runs[np.isfinite(runs).all(axis=1)]
    if runs.shape[0] == 0:
        return math.nan
    if direction == "above":
        return float(runs.min(axis=1).max())
    return float(runs.max(axis=1).min())


@dataclass(frozen=True)
class Shift:
    """Focus period against its baseline.

    Attributes:
        z: ``(focus_mean - baseline_mean) / baseline_sd`` (baseline SD units); 0.0 when the
            baseline is constant and the focus equals it; NaN when undefined.
        focus_mean: Mean of the focus days, input units.
        baseline_mean: Mean of the baseline days, input units.
        baseline_sd: SD (ddof 1) of the baseline days, input units.
    """

    z: float
    focus_mean: float
    baseline_mean: float
    baseline_sd: float


@primitive(inputs=("values",), output="Shift", units="baseline SD units (z)", cost="cheap")
def focus_shift(
    values: ArrayLike,
    *,
    focus_days: int = 3,
    baseline_days: int = 28,
    min_focus: int = 2,
    min_baseline: int = 14,
) -> Shift:
    """Shift of the last ``focus_days`` days from the ``baseline_days`` days before them.

    Args:
        values: Daily series (NaN = missing), any units; only its last
            ``focus_days + baseline_days`` days are used (missing days before the start count as
            missing).
        focus_days: Days in the focus period (≥ 1).
        baseline_days: Days in the baseline just before the focus (≥ 2).
        min_focus: Fewest present focus days (1 ≤ min_focus ≤ focus_days).
        min_baseline: Fewest present baseline days (2 ≤ min_baseline ≤ baseline_days).

    Returns:
        A :class:`Shift`; every field NaN where the focus or baseline has too few days, ``z`` NaN
        where the baseline SD is zero and the focus differs from it.
    """
    check_int("focus_days", focus_days, 1)
    check_int("baseline_days", baseline_days, 2)
    check_int("min_focus", min_focus, 1, focus_days)
    check_int("min_baseline", min_baseline, 2, baseline_days)
    x = as_series(values)
    focus = x[-focus_days:] if x.size else x
    base = x[max(0, x.size - focus_days - baseline_days) : max(0, x.size - focus_days)]
    focus, base = focus[np.isfinite(focus)], base[np.isfinite(base)]
    if focus.size < min_focus or base.size < min_baseline:
        return Shift(math.nan, math.nan, math.nan, math.nan)
    f = float(focus.mean())
    constant = bool(base.max() == base.min())
    m = float(base[0]) if constant else float(base.mean())
    sd = 0.0 if constant else float(np.std(base, ddof=1))
    if constant:
        return Shift(0.0 if f == m else math.nan, f, m, sd)
    return Shift((f - m) / sd, f, m, sd)
