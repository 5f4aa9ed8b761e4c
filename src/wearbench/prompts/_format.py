"""Shared text pieces: number formatting, the static context block and summary statistics.

Missing values print as ``NA`` (CSV tables leave the cell empty instead). Series values
print with their :attr:`Series.decimals`; statistics that average (mean, SD, median,
last-7-day mean) get one more decimal, at most 3.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from wearbench.cohort import ReferenceCell, metric
from wearbench.prompts._view import DataView, Series

NA = "NA"
_LAST_DAYS = 7


def fmt(value: float, decimals: int, missing: str = NA) -> str:
    """``value`` with ``decimals`` decimals (``missing`` for NaN); never prints ``-0``."""
    if not math.isfinite(value):
        return missing
    text = f"{value:.{decimals}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def compact(value: object) -> str:
    """A static value (blood, reference, demographics): ≤ 2 decimals, trailing zeros dropped."""
    if isinstance(value, bool) or not isinstance(value, int | float | np.floating | np.integer):
        return NA if value is None else str(value)
    x = float(value)
    if not math.isfinite(x):
        return NA
    text = fmt(x, 2).rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def _demographics(view: DataView) -> str:
    d = view.demographics
    return (
        f"Age {compact(d.get('age'))} years, sex {compact(d.get('sex'))}, "
        f"BMI {compact(d.get('bmi'))} kg/m2, ethnicity {compact(d.get('ethnicity'))}."
    )


def _label(name: str, description: str) -> str:
    """``name (description)``, or just ``name`` when the description only repeats it."""
    same = description.lower().replace(" ", "_") == name.lower()
    return name if same else f"{name} ({description})"


def _blood(view: DataView) -> list[str]:
    if view.blood_date is None:
        return [f"No blood draw on or before {view.end_date}."]
    lines = [f"Latest blood draw on or before {view.end_date}: drawn {view.blood_date}."]
    lines += [f"- {_label(b.name, b.description)}: {compact(b.value)} {b.unit}" for b in view.blood]
    return lines


def _reference(view: DataView) -> list[str]:
    if not view.reference and not view.reference_cells:
        return ["No cohort reference percentiles are available for this user."]
    units = {s.name: s.unit for s in view.series}
    lines: list[str] = []
    for name, cell in view.reference_cells.items():
        unit = units.get(name) or metric(name).unit
        lines.append(f"Reference this question compares {name} against ({cell.describe()}):")
        lines.append(f"- {name} ({unit}): {_cell_values(cell)}")
    if view.reference:
        group = "" if view.reference_group is None else ", age band {}, sex {}".format(*view.reference_group)
        lines.append(f"Cohort reference percentiles of per-user medians{group}:")
        for name, pct in view.reference.items():
            unit = units.get(name) or metric(name).unit
            values = ", ".join(f"P{p}={compact(v)}" for p, v in pct.items())
            lines.append(f"- {name} ({unit}): {values}")
    return lines


def _cell_values(cell: ReferenceCell) -> str:
    """``mean=…, SD=…, P5=…, …`` of a reference cell (the parts it has)."""
    parts = [] if cell.mean is None else [f"mean={cell.mean:.2f}"]
    parts += [] if cell.sd is None else [f"SD={cell.sd:.2f}"]
    parts += [f"P{p}={compact(v)}" for p, v in sorted(cell.percentiles.items())]
    return ", ".join(parts)


def context_text(view: DataView) -> str:
    """The static context as ``## `` sections, ablated ones left out entirely.

    Sections: user profile; blood panel (unless ``no_blood``); cohort reference percentiles
    (unless ``no_cohort``).
    """
    parts = ["## User profile\n" + _demographics(view)]
    if "no_blood" not in view.ablations:
        parts.append("## Blood panel\n" + "\n".join(_blood(view)))
    if "no_cohort" not in view.ablations:
        parts.append("## Cohort reference\n" + "\n".join(_reference(view)))
    return "\n\n".join(parts)


def series_header(view: DataView, missing: str = NA) -> str:
    """First lines of the daily-records section: span, window, missing marker, hidden metrics."""
    n = len(view.dates)
    window = min(view.window_days, n)
    lines = [
        "## Daily records",
        f"{n} days from {view.dates[0]} to {view.dates[-1]}, oldest first; the question window is "
        f"the last {window} days (from {view.dates[n - window]}). Missing values: {missing}.",
    ]
    if view.no_data:
        lines.append(f"Not shown (no data in this span): {', '.join(view.no_data)}.")
    return "\n".join(lines)


@dataclass(frozen=True)
class SummaryStats:
    """Summary statistics of one shown series (values in the metric's unit; NaN = undefined).

    Attributes:
        name, unit: Metric and unit.
        n: Days with a value.
        missing: Days without one.
        mean, sd: Mean and sample standard deviation (ddof=1; NaN when n < 2).
        min, median, max: Order statistics of the values.
        mean_last7: Mean of the values of the last 7 shown days (NaN when none).
        decimals: The series' print decimals.
    """

    name: str
    unit: str
    n: int
    missing: int
    mean: float
    sd: float
    min: float
    median: float
    max: float
    mean_last7: float
    decimals: int

    def cells(self) -> list[str]:
        """Printed values: name, unit, n, missing, mean, sd, min, median, max, mean_last7."""
        d, d1 = self.decimals, min(self.decimals + 1, 3)
        return [
            self.name,
            self.unit,
            str(self.n),
            str(self.missing),
            fmt(self.mean, d1),
            fmt(self.sd, d1),
            fmt(self.min, d),
            fmt(self.median, d1),
            fmt(self.max, d),
            fmt(self.mean_last7, d1),
        ]


STATS_COLUMNS: tuple[str, ...] = (
    "metric",
    "unit",
    "n",
    "missing",
    "mean",
    "sd",
    "min",
    "median",
    "max",
    "mean_last7",
)


def _stats(s: Series) -> SummaryStats:
    x = np.array(s.values, dtype=np.float64)
    ok = x[np.isfinite(x)]
    last = x[-_LAST_DAYS:]
    last = last[np.isfinite(last)]
    return SummaryStats(
        name=s.name,
        unit=s.unit,
        n=int(ok.size),
        missing=int(x.size - ok.size),
        mean=float(ok.mean()) if ok.size else math.nan,
        sd=float(ok.std(ddof=1)) if ok.size > 1 else math.nan,
        min=float(ok.min()) if ok.size else math.nan,
        median=float(np.median(ok)) if ok.size else math.nan,
        max=float(ok.max()) if ok.size else math.nan,
        mean_last7=float(last.mean()) if last.size else math.nan,
        decimals=s.decimals,
    )


def summary_stats(series: Sequence[Series]) -> list[SummaryStats]:
    """Per-series summary statistics, in the given order."""
    return [_stats(s) for s in series]
