"""Units a mapping file may name for each canonical metric, with the factor to the canonical unit."""

from __future__ import annotations

from wearbench._errors import WearbenchError
from wearbench.cohort import metric

_TIME = {"min": 1.0, "minutes": 1.0, "h": 60.0, "hours": 60.0, "s": 1 / 60, "seconds": 1 / 60}
_PERCENT = {"%": 1.0, "percent": 1.0, "fraction": 100.0}

#: Per canonical unit: accepted unit name (lower case) → multiply by this to get the canonical unit.
UNITS: dict[str, dict[str, float]] = {
    "bpm": {"bpm": 1.0, "beats/min": 1.0},
    "ms": {"ms": 1.0, "milliseconds": 1.0, "s": 1000.0, "seconds": 1000.0},
    "mL/kg/min": {"ml/kg/min": 1.0},
    "steps": {"steps": 1.0, "count": 1.0},
    "kcal": {"kcal": 1.0, "kilocalories": 1.0, "small_cal": 1 / 1000, "kj": 1 / 4.184, "j": 1 / 4184},
    "sessions": {"sessions": 1.0, "count": 1.0},
    "min": _TIME,
    "MET-h": {"met-h": 1.0, "met-hours": 1.0, "met-min": 1 / 60, "met-minutes": 1 / 60},
    "%": _PERCENT,
    "score 0-100": {"score": 1.0, **_PERCENT},
}

_AMBIGUOUS = {"cal": "'cal' is ambiguous (WHOOP and food labels mean kcal): write kcal or small_cal"}


def unit_factor(name: str, unit: object, where: str) -> float:
    """Factor from ``unit`` to the canonical unit of metric ``name``.

    Raises:
        WearbenchError: Unknown unit (``where`` names the mapping file and key), listing the valid ones.
    """
    key = str(unit).strip().lower()
    table = UNITS[metric(name).unit]
    if key in table:
        return table[key]
    hint = _AMBIGUOUS.get(key, f"valid for {name} ({metric(name).unit}): {', '.join(table)}")
    raise WearbenchError(f"{where}: unknown unit {unit!r} for {name}; {hint}")
