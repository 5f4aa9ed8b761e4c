"""Position of a value against reference percentile cuts (e.g. cohort P5…P95).

``percentiles`` maps a percentile (int in 0…100) to its cut value, in the value's units. The
cuts are sorted by percentile and must be non-decreasing in value.
"""

from __future__ import annotations

import bisect
import math
import numbers
from collections.abc import Mapping
from typing import Any

from wearbench.primitives._registry import primitive


def _int_keys(percentiles: Mapping[Any, float]) -> dict[Any, float]:
    """Decimal-string keys (as JSON round trips produce, e.g. ``"5"``) become ints."""
    return {int(k) if isinstance(k, str) and k.isdecimal() else k: v for k, v in percentiles.items()}


def _cuts(percentiles: Mapping[int, float]) -> tuple[list[int], list[float]]:
    """Validated (percentiles ascending, cut values) lists.

    Keys are integer percentiles; decimal strings such as ``"5"`` (from JSON) are accepted.

    Raises:
        ValueError: If empty, a key is not an int in [0, 100], a cut is not finite, or cuts decrease.
    """
    if not percentiles:
        raise ValueError("percentiles must not be empty")
    percentiles = _int_keys(percentiles)
    for p, v in percentiles.items():
        if isinstance(p, bool) or not isinstance(p, numbers.Integral) or not 0 <= int(p) <= 100:
            raise ValueError(f"percentile keys must be integers in [0, 100], got {p!r}")
        if isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v):
            raise ValueError(f"percentile P{p} must be a finite number, got {v!r}")
    pcts = sorted(int(p) for p in percentiles)
    values = [float(percentiles[p]) for p in pcts]
    for i in range(1, len(pcts)):
        if values[i] < values[i - 1]:
            raise ValueError(
                f"percentile values must be non-decreasing: "
                f"P{pcts[i - 1]}={values[i - 1]} > P{pcts[i]}={values[i]}"
            )
    return pcts, values


@primitive(inputs=("value", "percentiles"), output="str", units="band label", cost="cheap")
def percentile_band(value: float, percentiles: Mapping[int, float]) -> str:
    """Label the band between reference percentile cuts that holds ``value``.

    Bands are half-open, ``[P_i, P_{i+1})``: a value exactly on a cut goes to the band above
    it. With cuts P5…P95 the labels are ``"<P5"``, ``"P5-P10"``, …, ``"P90-P95"``, ``">P95"``
    (so a value equal to P95 is ``">P95"``). Where several cuts are equal, a value on that cut
    goes above all of them.

    Args:
        value: The value, in the cuts' units; NaN gives ``"missing"``.
        percentiles: Percentile (int) → cut value.

    Returns:
        The band label.

    Raises:
        ValueError: If the cuts are invalid (see module docs) or decrease.
    """
    pcts, cuts = _cuts(percentiles)
    if math.isnan(value):
        return "missing"
    i = bisect.bisect_right(cuts, float(value))  # number of cuts <= value
    if i == 0:
        return f"<P{pcts[0]}"
    if i == len(cuts):
        return f">P{pcts[-1]}"
    return f"P{pcts[i - 1]}-P{pcts[i]}"


@primitive(inputs=("value", "percentiles"), output="float", units="percentile", cost="cheap")
def percentile_rank(value: float, percentiles: Mapping[int, float]) -> float:
    """Approximate percentile of ``value`` by linear interpolation between the cuts.

    Clipped to ``[min percentile, max percentile]`` outside the cuts. On a run of equal cuts the
    highest of their percentiles is returned (consistent with :func:`percentile_band`).

    Args:
        value: The value, in the cuts' units.
        percentiles: Percentile (int) → cut value.

    Returns:
        Percentile in [0, 100]; NaN for a NaN value.

    Raises:
        ValueError: If the cuts are invalid or decrease.
    """
    pcts, cuts = _cuts(percentiles)
    if math.isnan(value):
        return math.nan
    v = float(value)
    i = bisect.bisect_right(cuts, v)
    if i == 0:
        return float(pcts[0])
    if i == len(cuts):
        return float(pcts[-1])
    x0, x1, p0, p1 = cuts[i - 1], cuts[i], pcts[i - 1], pcts[i]  # x0 <= v < x1, so x1 > x0
    return p0 + (p1 - p0) * (v - x0) / (x1 - x0)
