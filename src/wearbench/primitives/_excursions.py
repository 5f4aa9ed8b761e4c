"""Excursions above/below a personal baseline and recovery after one.

An excursion is a run of consecutive days whose z-score against the trailing baseline (see
:func:`wearbench.primitives.zscore`) is at or beyond ``k``. A missing day, or a day whose
z-score is undefined, ends a run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from wearbench.primitives._baselines import BaselineMethod, _window_mean_sd, zscore
from wearbench.primitives._common import FloatArray, as_series, check_choice, check_int, check_real
from wearbench.primitives._registry import primitive

Direction = Literal["above", "below"]


@dataclass(frozen=True)
class Run:
    """One excursion.

    Attributes:
        start: Index of the first day of the run.
        end: Index of the last day of the run (inclusive).
        length: Number of days, ``end - start + 1``.
        peak_z: Most extreme z-score in the run (max for ``above``, min for ``below``), SD units.
    """

    start: int
    end: int
    length: int
    peak_z: float


def _run_bounds(hit: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start and inclusive end indices of runs of True in a boolean array."""
    edges = np.diff(np.concatenate([[0], hit.astype(np.int8), [0]]))
    return np.flatnonzero(edges == 1), np.flatnonzero(edges == -1) - 1


@primitive(inputs=("values",), output="tuple[Run]", units="runs (days, SD units)", cost="cheap")
def excursions(
    values: ArrayLike,
    *,
    k: float = 1.5,
    direction: Direction = "above",
    window: int = 28,
    min_count: int = 14,
    min_run: int = 1,
    method: BaselineMethod = "mean_sd",
) -> tuple[Run, ...]:
    """Runs of consecutive days with z ≥ k (``above``) or z ≤ −k (``below``).

    Args:
        values: Daily series (NaN = missing), any units.
        k: Threshold in baseline SD units (> 0).
        direction: ``"above"`` or ``"below"`` the baseline.
        window: Baseline window in calendar days (trailing, excluding the day itself).
        min_count: Fewest non-missing days for a defined baseline.
        min_run: Shortest run (days) reported.
        method: Baseline method, ``"mean_sd"`` or ``"median_mad"``.

    Returns:
        Runs in time order; empty when there is none.
    """
    check_real("k", k, 0.0, np.inf, open_lo=True)
    check_choice("direction", direction, ("above", "below"))
    check_int("min_run", min_run, 1)
    z = zscore(values, window=window, min_count=min_count, method=method)
    signed = z if direction == "above" else -z
    hit = signed >= k  # NaN compares False, so it breaks runs
    runs = []
    for s, e in zip(*_run_bounds(hit), strict=True):
        if e - s + 1 >= min_run:
            peak = float(signed[s : e + 1].max())
            runs.append(Run(int(s), int(e), int(e - s + 1), peak if direction == "above" else -peak))
    return tuple(runs)


@primitive(inputs=("values",), output="int", units="count of runs", cost="cheap")
def excursion_count(
    values: ArrayLike,
    *,
    k: float = 1.5,
    direction: Direction = "above",
    window: int = 28,
    min_count: int = 14,
    min_run: int = 1,
    method: BaselineMethod = "mean_sd",
) -> int:
    """Number of excursions; same parameters as :func:`excursions`.

    Args:
        values: Daily series (NaN = missing), any units.
        k: Threshold in baseline SD units (> 0).
        direction: ``"above"`` or ``"below"`` the baseline.
        window: Baseline window in calendar days.
        min_count: Fewest non-missing days for a defined baseline.
        min_run: Shortest run (days) counted.
        method: Baseline method.

    Returns:
        Count of runs (≥ 0).
    """
    return len(
        excursions(
            values,
            k=k,
            direction=direction,
            window=window,
            min_count=min_count,
            min_run=min_run,
            method=method,
        )
    )


@primitive(inputs=("values",), output="float", units="days", cost="cheap")
def recovery_time(
    values: ArrayLike,
    *,
    onset: int,
    k_recover: float = 0.5,
    window: int = 28,
    min_count: int = 14,
    max_days: int = 60,
) -> float:
    """Days from an excursion onset until the value is back near the pre-onset baseline.

    The baseline is frozen at the onset: mean and SD (ddof=1) of ``values[onset-window : onset]``
    (the same window :func:`rolling_baseline` uses for day ``onset``). Recovery is the first day
    ``d`` in ``onset+1 … onset+max_days`` with ``|values[d] - mean| ≤ k_recover · SD``; missing
    days never count as recovered.

    Args:
        values: Daily series (NaN = missing), any units.
        onset: Index of the excursion's first day (0 ≤ onset < len(values)).
        k_recover: Half-width of the recovery band, in baseline SD units (≥ 0).
        window: Baseline window in calendar days.
        min_count: Fewest non-missing days in the window.
        max_days: Longest recovery searched, in days (≥ 1).

    Returns:
        ``d - onset`` in days (≥ 1) as a float; NaN if the baseline is undefined (too few
        days, or a zero SD) or no recovery happens within ``max_days`` or before the series ends.
    """
    x = as_series(values)
    if len(x) == 0:
        raise ValueError("recovery_time needs a non-empty series")
    check_int("onset", onset, 0, len(x) - 1)
    check_real("k_recover", k_recover, 0.0, np.inf)
    check_int("window", window, 1)
    check_int("min_count", min_count, 1, window)
    check_int("max_days", max_days, 1)
    past: FloatArray = x[max(0, onset - window) : onset][None, :]
    mean, sd, count = _window_mean_sd(past)
    if count[0] < min_count or not sd[0] > 0:
        return float("nan")
    after = x[onset + 1 : onset + 1 + max_days]
    back = np.flatnonzero(np.abs(after - mean[0]) <= k_recover * sd[0])
    return float(back[0] + 1) if back.size else float("nan")
