"""Unit-scale diagnosis: which common unit mistake would explain a column of out-of-range values.

A column is diagnosed only as a whole (most of its values out of range, and one factor
bringing nearly all of them into range), never value by value. Named conversions for the
column's canonical unit are tried first (hours for minutes, mmol/L for glucose in mg/dL,
...), then generic powers of ten and of sixty.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: Share of non-missing values that must be out of range before the column is diagnosed.
COLUMN_SHARE = 0.5
#: Share of values a factor must bring into range to be named as the cause.
FIT_SHARE = 0.95
#: Fewest non-missing values for a column-level diagnosis.
MIN_VALUES = 3


@dataclass(frozen=True)
class Conversion:
    """A unit mistake.

    Attributes:
        likely_unit: The unit the values seem to be in (``"hours"``); empty when unnamed.
        factor: Multiply the stored values by this to get the canonical unit.
        label: How to print ``factor`` (``"60"``, ``"1/60"``).
        inverse: How to print ``1 / factor`` (the stored values are ×inverse of expected).
    """

    likely_unit: str
    factor: float
    label: str
    inverse: str


def _c(unit: str, num: float, den: float = 1.0) -> Conversion:
    def show(a: float, b: float) -> str:
        text = f"{a:g}" if b == 1 else f"{a:g}/{b:g}"
        return text

    return Conversion(unit, num / den, show(num, den), show(den, num))


_FRACTION = "a fraction (0–1)"

#: Named conversions by canonical unit (daily metrics).
_BY_UNIT: dict[str, tuple[Conversion, ...]] = {
    "min": (_c("hours", 60), _c("seconds", 1, 60)),
    "ms": (_c("seconds", 1000), _c("microseconds", 1, 1000)),
    "%": (_c(_FRACTION, 100),),
    "score 0-100": (_c(_FRACTION, 100),),
    "kcal": (_c("calories (cal)", 1, 1000), _c("kilojoules", 1, 4.184)),
    "MET-h": (_c("MET-minutes", 1, 60),),
    "steps": (_c("thousands of steps", 1000),),
    "bpm": (_c("beats per second", 60),),
}

#: Named conversions by column name (blood biomarkers: SI units to conventional units).
_BY_COLUMN: dict[str, tuple[Conversion, ...]] = {
    "fasting_glucose": (_c("mmol/L", 18.016),),
    "hdl": (_c("mmol/L", 38.67),),
    "ldl": (_c("mmol/L", 38.67),),
    "total_cholesterol": (_c("mmol/L", 38.67),),
    "triglycerides": (_c("mmol/L", 88.57),),
    "creatinine": (_c("µmol/L", 1, 88.42),),
    "uric_acid": (_c("µmol/L", 1, 59.48),),
    "vitamin_d": (_c("nmol/L", 1, 2.496),),
    "insulin": (_c("pmol/L", 1, 6),),
    "hs_crp": (_c("mg/dL", 10),),
    "hba1c": (_c(_FRACTION, 100),),
    "alt": (_c("µkat/L", 60),),
    "ast": (_c("µkat/L", 60),),
    "ggt": (_c("µkat/L", 60),),
}

_GENERIC: tuple[Conversion, ...] = (
    _c("", 1000),
    _c("", 1, 1000),
    _c("", 100),
    _c("", 1, 100),
    _c("", 60),
    _c("", 1, 60),
    _c("", 3600),
    _c("", 1, 3600),
)

_WORDS = {"min": "minutes", "ms": "milliseconds", "%": "percent", "bpm": "beats per minute", "h": "hours"}


def unit_words(unit: str) -> str:
    """Unit spelled out for prose (``"min"`` → ``"minutes"``)."""
    return _WORDS.get(unit, unit)


def diagnose_scale(values: np.ndarray, lo: float, hi: float, *, column: str, unit: str) -> Conversion | None:
    """Name the unit mistake that best explains an out-of-range column, if any.

    Args:
        values: Non-missing values of the column (canonical unit expected).
        lo: Lowest plausible value in the canonical unit.
        hi: Highest plausible value in the canonical unit.
        column: Column name (selects named biomarker conversions).
        unit: Canonical unit (selects named metric conversions).

    Returns:
        The conversion bringing at least :data:`FIT_SHARE` of values into range (named
        ones first, then the best generic one), or ``None``.
    """
    if values.size < MIN_VALUES:
        return None
    for group in (_BY_COLUMN.get(column, ()) + _BY_UNIT.get(unit, ()), _GENERIC):
        best: tuple[float, Conversion] | None = None
        for conv in group:
            scaled = values * conv.factor
            share = float(np.mean((scaled >= lo) & (scaled <= hi)))
            if share >= FIT_SHARE and (best is None or share > best[0]):
                best = (share, conv)
        if best is not None:
            return best[1]
    return None
