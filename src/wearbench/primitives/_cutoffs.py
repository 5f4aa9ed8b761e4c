"""Load and validate the clinical cut-off tables in ``data/cutoffs.json`` (read once, cached).

The file's schema is strict: unknown or missing keys, unknown source keys, and bands that
overlap, leave a gap, or do not cover the whole real line are rejected with the offending path.
"""

from __future__ import annotations

import functools
import itertools
import json
import math
from dataclasses import dataclass
from importlib import resources
from typing import Any

#: Biomarkers every cut-off table must define (and :func:`threshold_flags` reports), in order.
FLAG_BIOMARKERS: tuple[str, ...] = (
    "fasting_glucose",
    "hba1c",
    "triglycerides",
    "hdl",
    "ldl",
    "total_cholesterol",
    "homa_ir",
)

_TOP_KEYS = {"schema_version", "description", "sources", "tables"}
_SOURCE_KEYS = {"citation", "doi", "note"}
_BAND_KEYS = {"category", "lower", "lower_inclusive", "upper", "upper_inclusive", "flagged"}
_SEXES = ("F", "M")
ANY_SEX = "any"


@dataclass(frozen=True)
class Band:
    """One category on the value axis (bounds in the biomarker's unit; None = unbounded)."""

    category: str
    lower: float | None
    lower_inclusive: bool
    upper: float | None
    upper_inclusive: bool
    flagged: bool

    def contains(self, value: float) -> bool:
        """Whether ``value`` lies in this band, honouring each bound's inclusiveness."""
        above = self.lower is None or value > self.lower or (self.lower_inclusive and value == self.lower)
        below = self.upper is None or value < self.upper or (self.upper_inclusive and value == self.upper)
        return above and below


@dataclass(frozen=True)
class Rule:
    """Cut-offs for one biomarker: bands per sex (``"F"``/``"M"``) or for ``"any"`` sex."""

    biomarker: str
    unit: str
    source: str
    bands: dict[str, tuple[Band, ...]]


def _fail(path: str, problem: str) -> ValueError:
    return ValueError(f"cutoffs.json: {path}: {problem}")


def _keys(obj: Any, path: str, required: set[str], optional: frozenset[str] = frozenset()) -> None:
    if not isinstance(obj, dict):
        raise _fail(path, f"expected an object, got {type(obj).__name__}")
    missing, unknown = required - obj.keys(), obj.keys() - required - optional
    if missing or unknown:
        raise _fail(path, f"missing keys {sorted(missing)}, unknown keys {sorted(unknown)}")


def _bound(value: Any, path: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise _fail(path, f"bound must be a finite number or null, got {value!r}")
    return float(value)


def _bands(raw: Any, path: str) -> tuple[Band, ...]:
    if not isinstance(raw, list) or not raw:
        raise _fail(path, "expected a non-empty list of bands")
    bands = []
    for i, b in enumerate(raw):
        _keys(b, f"{path}[{i}]", _BAND_KEYS)
        if not all(isinstance(b[k], bool) for k in ("lower_inclusive", "upper_inclusive", "flagged")):
            raise _fail(f"{path}[{i}]", "inclusive/flagged fields must be booleans")
        lo, hi = _bound(b["lower"], f"{path}[{i}].lower"), _bound(b["upper"], f"{path}[{i}].upper")
        bands.append(
            Band(str(b["category"]), lo, b["lower_inclusive"], hi, b["upper_inclusive"], b["flagged"])
        )
    if bands[0].lower is not None or bands[-1].upper is not None:
        raise _fail(path, "the first band must start at -inf (lower null) and the last end at +inf")
    for i, (a, b) in enumerate(itertools.pairwise(bands)):
        if a.upper is None or a.upper != b.lower or a.upper_inclusive == b.lower_inclusive:
            raise _fail(
                f"{path}[{i}:{i + 2}]", "adjacent bands must share a boundary included by exactly one"
            )
        if b.upper is not None and b.upper <= a.upper:
            raise _fail(f"{path}[{i + 1}]", "bands must be increasing")
    if len({b.category for b in bands}) != len(bands):
        raise _fail(path, "category names must be unique")
    return tuple(bands)


def _rule(name: str, raw: Any, path: str, source_keys: set[str]) -> Rule:
    base = {"unit", "source"}
    by_sex = isinstance(raw, dict) and "bands_by_sex" in raw
    _keys(raw, path, base | ({"bands_by_sex"} if by_sex else {"bands"}))
    if raw["source"] not in source_keys:
        raise _fail(f"{path}.source", f"unknown source {raw['source']!r}; defined: {sorted(source_keys)}")
    if by_sex:
        _keys(raw["bands_by_sex"], f"{path}.bands_by_sex", set(_SEXES))
        bands = {s: _bands(raw["bands_by_sex"][s], f"{path}.bands_by_sex.{s}") for s in _SEXES}
    else:
        bands = {ANY_SEX: _bands(raw["bands"], f"{path}.bands")}
    return Rule(name, str(raw["unit"]), str(raw["source"]), bands)


def _parse(data: Any) -> tuple[dict[str, dict[str, Rule]], dict[str, dict[str, str]]]:
    _keys(data, "<root>", _TOP_KEYS)
    if data["schema_version"] != 1:
        raise _fail("schema_version", f"expected 1, got {data['schema_version']!r}")
    srcs = data["sources"]
    if not isinstance(srcs, dict):
        raise _fail("sources", "expected an object")
    for key, src in srcs.items():
        _keys(src, f"sources.{key}", {"citation", "doi"}, frozenset(_SOURCE_KEYS))
    tables: dict[str, dict[str, Rule]] = {}
    for tname, table in data["tables"].items():
        _keys(table, f"tables.{tname}", set(FLAG_BIOMARKERS))
        tables[tname] = {
            b: _rule(b, raw, f"tables.{tname}.{b}", set(srcs)) for b, raw in sorted(table.items())
        }
    return tables, {k: {f: str(v) for f, v in s.items()} for k, s in srcs.items()}


@functools.cache
def _load() -> tuple[dict[str, dict[str, Rule]], dict[str, dict[str, str]]]:
    text = resources.files("wearbench.primitives").joinpath("data/cutoffs.json").read_text("utf-8")
    return _parse(json.loads(text))


def cutoff_tables() -> dict[str, dict[str, Rule]]:
    """Table name → biomarker → :class:`Rule`, parsed from the packaged ``cutoffs.json``."""
    return _load()[0]


def sources() -> dict[str, dict[str, str]]:
    """Citation key → ``{"citation", "doi"[, "note"]}`` from the packaged ``cutoffs.json``."""
    return _load()[1]
