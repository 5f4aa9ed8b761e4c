"""Blood-panel primitives: HOMA-IR and clinical category flags from cited cut-offs.

Cut-offs live in ``data/cutoffs.json`` with explicit band boundaries and citations (ADA
Standards of Care 2024 for glycaemia, NCEP ATP III for lipids, a conventional HOMA-IR
threshold whose population dependence is noted in the file).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, overload

import numpy as np
from numpy.typing import NDArray

from wearbench.primitives._common import check_choice
from wearbench.primitives._cutoffs import ANY_SEX, FLAG_BIOMARKERS, Rule, cutoff_tables
from wearbench.primitives._registry import primitive


@dataclass(frozen=True)
class Flag:
    """Clinical category of one biomarker value.

    Attributes:
        biomarker: Canonical biomarker name (``"fasting_glucose"``, ``"hdl"``, ...).
        value: The value in its canonical unit (NaN when missing).
        category: Band name from the cut-off table (``"normal"``, ``"prediabetes"``,
            ``"borderline_high"``, ``"low"``, ...), ``"missing"`` for a NaN value, or
            ``"undefined"`` for a sex-specific cut-off when sex is unknown.
        flagged: Whether the category is outside the reference range.
        cutoff_source: Citation key in ``cutoffs.json`` ``sources``.
    """

    biomarker: str
    value: float
    category: str
    flagged: bool
    cutoff_source: str


@overload
def homa_ir(fasting_glucose_mg_dl: float, insulin_uiu_ml: float) -> float: ...
@overload
def homa_ir(
    fasting_glucose_mg_dl: NDArray[np.float64], insulin_uiu_ml: NDArray[np.float64] | float
) -> NDArray[np.float64]: ...


@primitive(
    inputs=("fasting_glucose_mg_dl", "insulin_uiu_ml"),
    output="float | array",
    units="HOMA-IR index",
    cost="cheap",
)
def homa_ir(
    fasting_glucose_mg_dl: float | NDArray[np.float64], insulin_uiu_ml: float | NDArray[np.float64]
) -> float | NDArray[np.float64]:
    """Homeostasis model assessment of insulin resistance, glucose × insulin / 405.

    Matthews et al., Diabetologia 1985;28:412 (doi:10.1007/BF00280883); the constant 405 is for
    glucose in mg/dL (22.5 for mmol/L).

    Args:
        fasting_glucose_mg_dl: Fasting plasma glucose in mg/dL (float or array).
        insulin_uiu_ml: Fasting insulin in µIU/mL (float or array, broadcast).

    Returns:
        The unitless index, a float for float inputs or an array; NaN propagates.
    """
    if np.ndim(fasting_glucose_mg_dl) == 0 and np.ndim(insulin_uiu_ml) == 0:
        return float(fasting_glucose_mg_dl) * float(insulin_uiu_ml) / 405.0
    g = np.asarray(fasting_glucose_mg_dl, dtype=np.float64)
    i = np.asarray(insulin_uiu_ml, dtype=np.float64)
    return g * i / 405.0


def _value(panel: Mapping[str, float | None], key: str) -> float:
    raw = panel.get(key)
    if raw is None:
        return math.nan
    if isinstance(raw, bool) or not isinstance(raw, int | float | np.integer | np.floating):
        raise ValueError(f"panel[{key!r}] must be a number or NaN, got {raw!r}")
    v = float(raw)
    if math.isinf(v):
        raise ValueError(f"panel[{key!r}] is {v}; values must be finite or NaN")
    return v


def _classify(rule: Rule, value: float, sex: str | None) -> Flag:
    if math.isnan(value):
        return Flag(rule.biomarker, value, "missing", False, rule.source)
    bands = rule.bands.get(ANY_SEX) or (rule.bands[sex] if sex is not None else None)
    if bands is None:
        return Flag(rule.biomarker, value, "undefined", False, rule.source)
    band = next(b for b in bands if b.contains(value))  # bands cover the real line
    return Flag(rule.biomarker, value, band.category, band.flagged, rule.source)


@primitive(inputs=("panel",), output="dict[str, Flag]", units="category", cost="cheap")
def threshold_flags(
    panel: Mapping[str, float | None],
    *,
    sex: Literal["F", "M"] | None = None,
    table: str = "default",
) -> dict[str, Flag]:
    """Classify a blood panel against cited clinical cut-offs.

    Reports every biomarker in :data:`FLAG_BIOMARKERS`. ``homa_ir`` is taken from the panel
    when present and not NaN, otherwise computed from ``fasting_glucose`` and ``insulin``. A missing or NaN
    value gets category ``"missing"``; HDL cut-offs are sex-specific, so without ``sex`` HDL gets
    category ``"undefined"`` and is not flagged. Panel keys outside the table are ignored.

    Args:
        panel: Biomarker name → value in canonical units (mg/dL, %, µIU/mL); NaN/None = missing.
        sex: ``"F"``, ``"M"`` or None (unknown).
        table: Name of a cut-off table in ``cutoffs.json``.

    Returns:
        Biomarker → :class:`Flag`, in :data:`FLAG_BIOMARKERS` order.

    Raises:
        ValueError: On an unknown table or sex, or a non-numeric or infinite value.
    """
    tables = cutoff_tables()
    check_choice("table", table, sorted(tables))
    if sex is not None:
        check_choice("sex", sex, ("F", "M"))
    values = {key: _value(panel, key) for key in FLAG_BIOMARKERS}
    if math.isnan(values["homa_ir"]):
        values["homa_ir"] = homa_ir(_value(panel, "fasting_glucose"), _value(panel, "insulin"))
    rules = tables[table]
    return {key: _classify(rules[key], values[key], sex) for key in FLAG_BIOMARKERS}
