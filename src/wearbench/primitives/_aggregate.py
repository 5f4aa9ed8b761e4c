"""Calendar aggregation: ISO weeks, months, quarters, and weekday vs weekend.

Dates are a ``datetime64[D]`` array aligned with the values. They need not be sorted or unique
(bootstrap resamples repeat days); every calendar period from the earliest to the latest date
is reported, including periods without any data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from wearbench.primitives._common import FloatArray, IntArray, as_series, check_choice, check_int, readonly
from wearbench.primitives._registry import primitive

Period = Literal["week", "month", "quarter"]
PeriodStat = Literal["mean", "median", "sum", "count"]
DateArray = NDArray[np.datetime64]


@dataclass(frozen=True, eq=False)
class PeriodTable:
    """One row per calendar period, in time order.

    Attributes:
        labels: ``"2024-W03"`` (ISO week, Monday start, ISO week-year), ``"2024-03"`` or ``"2024-Q1"``.
        starts: First calendar day of each period (``datetime64[D]``).
        values: Aggregated value per period (input units; ``count`` in days); NaN when undefined.
        counts: Number of non-missing days in each period (int64).
    """

    labels: tuple[str, ...]
    starts: DateArray
    values: FloatArray
    counts: IntArray


@dataclass(frozen=True)
class WeekSplit:
    """Weekday (Mon–Fri) vs weekend (Sat–Sun) summary.

    Attributes:
        weekday: Statistic over non-missing weekdays (input units); NaN if none.
        weekend: Statistic over non-missing weekend days (input units); NaN if none.
        difference: ``weekend - weekday`` (input units).
        n_weekday: Number of non-missing weekdays used.
        n_weekend: Number of non-missing weekend days used.
    """

    weekday: float
    weekend: float
    difference: float
    n_weekday: int
    n_weekend: int


def _as_dates(dates: ArrayLike, n: int) -> IntArray:
    """Validate ``dates`` and return them as int64 days since 1970-01-01."""
    d = np.asarray(dates)
    if d.dtype != np.dtype("datetime64[D]"):
        raise ValueError(f"dates must be a datetime64[D] array, got dtype {d.dtype}")
    if d.shape != (n,):
        raise ValueError(f"dates must have shape ({n},) to match values, got {d.shape}")
    if np.isnat(d).any():
        raise ValueError(f"dates[{int(np.flatnonzero(np.isnat(d))[0])}] is NaT")
    return d.astype(np.int64)


def _weekday(days: IntArray) -> IntArray:
    """ISO weekday with Monday = 0 (1970-01-01 was a Thursday)."""
    return (days + 3) % 7


def _period_keys(days: IntArray, period: Period) -> tuple[IntArray, IntArray, int]:
    """Period start day per element, every period start from first to last, and the unit."""
    if period == "week":
        key = days - _weekday(days)
        return key, np.arange(key.min(), key.max() + 1, 7), 7
    months = days.astype("datetime64[D]").astype("datetime64[M]").astype(np.int64)
    step = 1 if period == "month" else 3
    key = months - months % step
    return key, np.arange(key.min(), key.max() + 1, step), step


def _labels(starts: IntArray, period: Period) -> tuple[tuple[str, ...], DateArray]:
    if period == "week":
        first = starts.astype("datetime64[D]")
        thursday = (starts + 3).astype("datetime64[D]")
        iso_year = thursday.astype("datetime64[Y]")
        week = (thursday - iso_year.astype("datetime64[D]")).astype(np.int64) // 7 + 1
        years = iso_year.astype(np.int64) + 1970
        return tuple(f"{y}-W{w:02d}" for y, w in zip(years, week, strict=True)), first
    months = starts.astype("datetime64[M]")
    years, month0 = months.astype(np.int64) // 12 + 1970, months.astype(np.int64) % 12
    if period == "month":
        labels = tuple(f"{y}-{m + 1:02d}" for y, m in zip(years, month0, strict=True))
    else:
        labels = tuple(f"{y}-Q{m // 3 + 1}" for y, m in zip(years, month0, strict=True))
    return labels, months.astype("datetime64[D]")


def _reduce(vals: FloatArray, stat: PeriodStat) -> float:
    if stat == "count":
        return float(len(vals))
    if len(vals) == 0:
        return float("nan")
    if stat == "mean":
        return float(np.mean(vals))
    return float(np.median(vals) if stat == "median" else np.sum(vals))


@primitive(inputs=("values", "dates"), output="PeriodTable", units="same as input", cost="cheap")
def period_aggregate(
    values: ArrayLike,
    dates: ArrayLike,
    *,
    period: Period = "month",
    stat: PeriodStat = "mean",
    min_count: int = 1,
) -> PeriodTable:
    """Aggregate a daily series into ISO weeks, calendar months or calendar quarters.

    Args:
        values: Daily series (NaN = missing), any units.
        dates: ``datetime64[D]`` date of each value.
        period: ``"week"`` (ISO 8601, Monday start), ``"month"`` or ``"quarter"``.
        stat: ``"mean"``, ``"median"``, ``"sum"`` (input units) or ``"count"`` (days).
        min_count: Fewest non-missing days for a defined value (≥ 1); periods with fewer get NaN.
            Not applied to ``stat="count"``, whose value is the count itself.

    Returns:
        A :class:`PeriodTable` covering every period from the first to the last date; empty
        when the input is empty.
    """
    x = as_series(values)
    days = _as_dates(dates, len(x))
    check_choice("period", period, ("week", "month", "quarter"))
    check_choice("stat", stat, ("mean", "median", "sum", "count"))
    check_int("min_count", min_count, 1)
    if len(x) == 0:
        empty = np.empty(0)
        return PeriodTable(
            (), readonly(empty.astype("datetime64[D]")), readonly(empty), readonly(empty.astype(np.int64))
        )
    key, starts, step = _period_keys(days, period)
    slot = (key - starts[0]) // step
    keep = ~np.isnan(x)
    counts = np.bincount(slot[keep], minlength=len(starts)).astype(np.int64)
    out = np.array([_reduce(x[keep & (slot == i)], stat) for i in range(len(starts))], dtype=np.float64)
    if stat != "count":
        out[counts < min_count] = np.nan
    labels, first_days = _labels(starts, period)
    return PeriodTable(labels, readonly(first_days), readonly(out), readonly(counts))


@primitive(inputs=("values", "dates"), output="WeekSplit", units="same as input", cost="cheap")
def weekday_weekend(
    values: ArrayLike, dates: ArrayLike, *, stat: Literal["mean", "median"] = "mean"
) -> WeekSplit:
    """Compare weekdays (Monday–Friday) with weekends (Saturday–Sunday).

    Args:
        values: Daily series (NaN = missing), any units.
        dates: ``datetime64[D]`` date of each value.
        stat: ``"mean"`` or ``"median"``.

    Returns:
        A :class:`WeekSplit`; a side without data is NaN, and so is the difference.
    """
    x = as_series(values)
    days = _as_dates(dates, len(x))
    check_choice("stat", stat, ("mean", "median"))
    keep = ~np.isnan(x)
    weekend = _weekday(days) >= 5
    wd, we = x[keep & ~weekend], x[keep & weekend]
    a, b = _reduce(wd, stat), _reduce(we, stat)
    return WeekSplit(a, b, b - a, len(wd), len(we))
