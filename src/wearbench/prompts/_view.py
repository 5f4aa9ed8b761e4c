"""What a model is shown for one item: the :class:`Setting` and the :class:`DataView` it renders.

A :class:`Setting` names the representation, the mode and the ablations of a run.

The view holds the daily records of the ``history_days`` days ending at the item's
``end_date`` (only the last ``window_days`` under ``no_history``, none under ``no_series``),
every metric with at least one value in that span (schema order, canonical units), the
user's demographics, the latest blood draw on or before ``end_date`` (unless ``no_blood``)
and the cohort reference percentiles of the user's age band and sex (unless ``no_cohort``): the
reference cells the item compares against (stored in its graph, with their kind and size), and
for other metrics the cohort's static percentiles when they come from a population independent
of the cohort's users.
Days before the first day of the user's record are not shown (there is no record for them).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import pandas as pd

from wearbench._errors import WearbenchError
from wearbench.cohort import BIOMARKERS, METRICS, ReferenceCell, age_band
from wearbench.questions import Item, UserContext, graph_references

Mode = Literal["direct", "cot", "agent", "multiview"]
MODES: tuple[Mode, ...] = ("direct", "cot", "agent", "multiview")
#: Ablations from the WearableQA paper: drop the time series, the long history (window only),
#: the cohort reference percentiles, or the blood panel.
ABLATIONS: tuple[str, ...] = ("no_series", "no_history", "no_cohort", "no_blood")

_MAX_DECIMALS = 2


@dataclass(frozen=True)
class Series:
    """One daily metric as shown.

    Attributes:
        name: Canonical metric name.
        unit: Canonical unit (e.g. ``bpm``).
        description: One-line meaning.
        values: One value per shown date, float, NaN = missing.
        decimals: Digits after the decimal point used to print values (0 for counts; else the
            fewest, at most 2, that print every shown value exactly).
    """

    name: str
    unit: str
    description: str
    values: tuple[float, ...]
    decimals: int

    @property
    def n_missing(self) -> int:
        """Shown days without a value."""
        return sum(1 for v in self.values if math.isnan(v))


@dataclass(frozen=True)
class BloodValue:
    """One biomarker of the shown blood draw (``value`` NaN = not measured)."""

    name: str
    unit: str
    description: str
    value: float


@dataclass(frozen=True)
class DataView:
    """Everything shown to a model for one item, before formatting.

    Attributes:
        user_id: User.
        end_date: Last shown day (ISO), the item's end date.
        window_days: Days in the question window (the last ``window_days`` shown days).
        dates: Shown days (ISO, consecutive, oldest first); empty under ``no_series``.
        series: Shown metrics in schema order, aligned with ``dates``.
        no_data: Metrics hidden because they have no value in the shown span (schema order).
        demographics: ``age`` (years), ``sex`` (F/M), ``bmi`` (kg/m2), ``ethnicity``.
        blood_date: Date of the shown blood draw (ISO), or None (none on or before the end
            date, or ablated).
        blood: Biomarkers of that draw in schema order (empty when none is shown).
        reference_group: ``(age band, sex)`` of the shown reference percentiles, or None.
        reference: Metric → {percentile: value in the metric's unit}, schema order (empty when
            ablated or unavailable); static context, for metrics the item does not compare.
        reference_cells: Metric → the reference the item compares that metric against (kind,
            group, size, percentiles, mean, SD), schema order (empty when ablated or none).
        ablations: Sorted ablations applied.
    """

    user_id: str
    end_date: str
    window_days: int
    dates: tuple[str, ...]
    series: tuple[Series, ...]
    no_data: tuple[str, ...]
    demographics: Mapping[str, Any]
    blood_date: str | None
    blood: tuple[BloodValue, ...]
    reference_group: tuple[str, str] | None
    reference: Mapping[str, Mapping[int, float]]
    ablations: tuple[str, ...]
    reference_cells: Mapping[str, ReferenceCell] = field(default_factory=dict)

    @property
    def metric_names(self) -> tuple[str, ...]:
        """Names of the shown metrics."""
        return tuple(s.name for s in self.series)


def column_name(name: str, unit: str) -> str:
    """Table/DataFrame column name of a metric: ``"<metric> [<unit>]"``, e.g. ``"resting_hr [bpm]"``."""
    return f"{name} [{unit}]"


def _check_ablations(ablations: Iterable[str]) -> tuple[str, ...]:
    out = tuple(sorted(set(ablations)))
    bad = [a for a in out if a not in ABLATIONS]
    if bad:
        raise WearbenchError(f"unknown ablation {bad[0]!r}; valid: {', '.join(ABLATIONS)}")
    return out


@dataclass(frozen=True)
class Setting:
    """How items are shown to a model.

    Attributes:
        representation: Registered representation name (``csv``, ``markdown``, ``row``, …).
        mode: ``direct`` (letter only), ``cot`` (reasoning then a letter), ``agent`` (Python
            tool over the data) or ``multiview`` (the model first picks a representation).
        ablations: Sorted subset of :data:`ABLATIONS`.
    """

    representation: str = "csv"
    mode: Mode = "direct"
    ablations: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise WearbenchError(f"unknown mode {self.mode!r}; valid: {', '.join(MODES)}")
        object.__setattr__(self, "ablations", _check_ablations(self.ablations))

    def key(self) -> str:
        """Stable text form, e.g. ``repr=csv|mode=cot|ablate=no_blood``."""
        return f"repr={self.representation}|mode={self.mode}|ablate={','.join(self.ablations) or '-'}"

    @classmethod
    def from_key(cls, key: str) -> Setting:
        """Inverse of :meth:`key`."""
        parts = dict(p.split("=", 1) for p in key.split("|"))
        ablate = parts.get("ablate", "-")
        return cls(parts["repr"], parts["mode"], tuple(a for a in ablate.split(",") if a and a != "-"))  # type: ignore[arg-type]


def _decimals(values: np.ndarray, integer: bool) -> int:
    """Fewest decimals (≤ 2) printing every finite value exactly; 0 for count metrics."""
    if integer:
        return 0
    finite = values[np.isfinite(values)]
    for d in range(_MAX_DECIMALS + 1):
        if np.all(np.abs(np.round(finite, d) - finite) < 1e-9):
            return d
    return _MAX_DECIMALS


def _span(item: Item, ctx: UserContext, ablations: tuple[str, ...]) -> tuple[int, int]:
    """(end index, shown days) of the item's span, clipped to the record start."""
    end = ctx.index(item.end_date)
    days = item.window_days if "no_history" in ablations else item.history_days
    if days < 1:
        raise WearbenchError(f"item {item.id}: span of {days} days (window/history must be ≥ 1)")
    return end, min(days, end + 1)


def _series(ctx: UserContext, end: int, days: int) -> tuple[tuple[Series, ...], tuple[str, ...]]:
    shown: list[Series] = []
    empty: list[str] = []
    for m in METRICS:
        if m.name not in ctx.metrics:
            continue
        values = ctx.span(m.name, end, days).astype(np.float64)
        if not np.isfinite(values).any():
            empty.append(m.name)
            continue
        vals = tuple(float(v) if math.isfinite(v) else math.nan for v in values)
        shown.append(Series(m.name, m.unit, m.description, vals, _decimals(values, m.integer)))
    return tuple(shown), tuple(empty)


def _blood(ctx: UserContext, end: int) -> tuple[str | None, tuple[BloodValue, ...]]:
    draw = ctx.blood_at(end)
    if draw is None:
        return None, ()
    values = tuple(
        BloodValue(b.name, b.unit, b.description, float(draw.get(b.name, math.nan))) for b in BIOMARKERS
    )
    return str(draw["draw_date"]), values


def _reference(ctx: UserContext) -> tuple[tuple[str, str] | None, dict[str, dict[int, float]]]:
    ref = {
        m.name: {int(p): float(v) for p, v in sorted(ctx.reference[m.name].items())}
        for m in METRICS
        if m.name in ctx.reference
    }
    age = ctx.demographics.get("age")
    sex = ctx.demographics.get("sex")
    if not ref or not isinstance(age, int | float) or not math.isfinite(age) or sex is None:
        return None, ref
    try:
        band = age_band(float(age))
    except ValueError:  # below the first band: percentiles are shown without a group label
        return None, ref
    return (band, str(sex)), ref


def data_view(item: Item, ctx: UserContext, ablations: Iterable[str] = ()) -> DataView:
    """Collect what the model sees for ``item`` under ``ablations``.

    Args:
        item: The benchmark item (its ``end_date``, ``window_days``, ``history_days``).
        ctx: The item user's context.
        ablations: Subset of :data:`ABLATIONS`.

    Returns:
        The :class:`DataView`.

    Raises:
        WearbenchError: If the item's user differs from the context's, the end date is outside
            the record, or an ablation is unknown.
    """
    abl = _check_ablations(ablations)
    if item.user_id != ctx.user_id:
        raise WearbenchError(f"item {item.id} is for user {item.user_id}, context is for {ctx.user_id}")
    end, days = _span(item, ctx, abl)
    if "no_series" in abl:
        dates: tuple[str, ...] = ()
        series: tuple[Series, ...] = ()
        empty: tuple[str, ...] = ()
    else:
        dates = tuple(str(d) for d in ctx.span_dates(end, days))
        series, empty = _series(ctx, end, days)
    blood_date, blood = (None, ()) if "no_blood" in abl else _blood(ctx, end)
    group, ref = (None, {}) if "no_cohort" in abl else _reference(ctx)
    found = {} if "no_cohort" in abl else graph_references(item.graph)
    cells = {m.name: found[m.name] for m in METRICS if m.name in found}
    ref = {m: pct for m, pct in ref.items() if m not in cells}
    return DataView(
        user_id=ctx.user_id,
        end_date=item.end_date,
        window_days=item.window_days,
        dates=dates,
        series=series,
        no_data=empty,
        demographics=dict(ctx.demographics),
        blood_date=blood_date,
        blood=blood,
        reference_group=group,
        reference=ref,
        ablations=abl,
        reference_cells=cells,
    )


def view_frame(view: DataView) -> pd.DataFrame:
    """The series of ``view`` as a DataFrame (see :func:`agent_frame` for the layout)."""
    index = pd.DatetimeIndex(pd.to_datetime(list(view.dates)), name="date")
    data = {column_name(s.name, s.unit): np.array(s.values, dtype=np.float64) for s in view.series}
    frame = pd.DataFrame(data, index=index)
    frame.attrs["units"] = {s.name: s.unit for s in view.series}
    return frame


def agent_frame(item: Item, ctx: UserContext, ablations: Iterable[str] = ()) -> pd.DataFrame:
    """The item's daily records as the DataFrame an agent's Python tool holds as ``df``.

    Layout: a ``DatetimeIndex`` named ``date`` (one row per shown day, oldest first; the same
    span as :func:`data_view`), one float64 column per shown metric named
    ``"<metric> [<unit>]"`` (e.g. ``"resting_hr [bpm]"``, ``"steps [steps]"``), NaN for missing
    days, and ``df.attrs["units"]`` mapping bare metric names to units. Under ``no_series``
    the frame has no rows and no columns.

    Raises:
        WearbenchError: As :func:`data_view`.
    """
    return view_frame(data_view(item, ctx, ablations))
