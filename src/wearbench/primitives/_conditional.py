"""Conditional effects: how a response differs on days after a personal low (or high) of a driver.

A day ``t`` is a *condition day* when the driver is at or below its own ``quantile`` (``side =
"below"``) or at or above it (``"above"``), the cut being taken over the present driver values
of the series passed in. The response is read ``lag`` days later. Every day with both the
driver on ``t`` and the response on ``t + lag`` present is used once, in the condition group or
in the other group.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from wearbench.primitives._common import as_series, check_choice, check_int, check_real
from wearbench.primitives._registry import primitive

Side = Literal["below", "above"]


@dataclass(frozen=True)
class ConditionalEffect:
    """Mean response after condition days versus after the other days.

    Attributes:
        threshold: The driver's cut (driver units): its ``quantile`` over the present values.
        n_condition: Days in the condition group (driver beyond the cut, response present).
        n_other: Days in the other group.
        mean_condition: Mean response of the condition group (response units).
        mean_other: Mean response of the other group (response units).
        difference: ``mean_condition - mean_other`` (response units).
        sd: Sample SD (ddof 1) of the response over both groups (response units).
        effect: ``difference / sd`` (SD units).

    Means, difference, sd and effect are NaN when a group has fewer than ``min_days`` days or
    the response is constant.
    """

    threshold: float
    n_condition: int
    n_other: int
    mean_condition: float
    mean_other: float
    difference: float
    sd: float
    effect: float


@primitive(
    inputs=("values", "y"),
    output="ConditionalEffect",
    units="response units (effect: SD)",
    cost="cheap",
)
def conditional_mean_difference(
    values: ArrayLike,
    y: ArrayLike,
    *,
    quantile: float = 0.2,
    side: Side = "below",
    lag: int = 0,
    min_days: int = 10,
) -> ConditionalEffect:
    """Mean response ``lag`` days after the driver's personal lows (or highs) minus after other days.

    Args:
        values: Daily driver series (NaN = missing), any units.
        y: Daily response series aligned with ``values``, any units.
        quantile: Cut of the driver, as a quantile of its present values (linear interpolation),
            in (0, 1).
        side: ``"below"``: condition days have driver ≤ cut; ``"above"``: driver ≥ cut.
        lag: Days from the driver day to the response day (0 … 7).
        min_days: Fewest days in each group for a defined difference (≥ 2).

    Returns:
        A :class:`ConditionalEffect`.

    Raises:
        ValueError: If the series differ in length, or on bad parameters.
    """
    x, y = as_series(values, "values (driver)"), as_series(y, "y (response)")
    if x.size != y.size:
        raise ValueError(
            f"values (driver) and y (response) must have the same length, got {x.size} and {y.size}"
        )
    check_real("quantile", quantile, 0.0, 1.0, open_lo=True)
    if quantile >= 1.0:
        raise ValueError(f"quantile must be a real number in (0, 1), got {quantile!r}")
    check_choice("side", side, ("below", "above"))
    check_int("lag", lag, 0, 7)
    check_int("min_days", min_days, 2)
    nan = math.nan
    if not np.isfinite(x).any():
        return ConditionalEffect(nan, 0, 0, nan, nan, nan, nan, nan)
    cut = float(np.quantile(x[np.isfinite(x)], quantile))
    xs = x[: x.size - lag]
    ys = y[lag:]
    used = np.isfinite(xs) & np.isfinite(ys)
    cond = used & ((xs <= cut) if side == "below" else (xs >= cut))
    other = used & ~cond
    n_c, n_o = int(cond.sum()), int(other.sum())
    if n_c < min_days or n_o < min_days:
        return ConditionalEffect(cut, n_c, n_o, nan, nan, nan, nan, nan)
    sd = float(np.std(ys[used], ddof=1))
    m_c, m_o = float(ys[cond].mean()), float(ys[other].mean())
    if not sd > 0:
        return ConditionalEffect(cut, n_c, n_o, m_c, m_o, nan, nan, nan)
    return ConditionalEffect(cut, n_c, n_o, m_c, m_o, m_c - m_o, sd, (m_c - m_o) / sd)
