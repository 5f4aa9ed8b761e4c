"""The YAML mapping file of the ``csv`` loader: reading and strict validation."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from wearbench._errors import WearbenchError
from wearbench.cohort import DEMOGRAPHIC_COLUMNS, METRIC_NAMES
from wearbench.sources.tabular._units import unit_factor

#: How several rows of one user-day are combined.
AGGREGATES = ("sum", "mean", "min", "max", "first", "last")
_TOP = ("file", "delimiter", "user", "date", "metrics", "demographics")
_USER = ("column", "id")
_DATE = ("column", "format", "timezone")
_METRIC = ("column", "unit", "unit_column", "aggregate")


@dataclass(frozen=True)
class MetricMap:
    """One canonical metric: ``column``, fixed ``factor`` (or per-row ``unit_column``), ``aggregate``."""

    name: str
    column: str
    factor: float | None
    unit_column: str | None
    aggregate: str | None


@dataclass(frozen=True)
class Mapping:
    """A validated mapping file (see ``docs/sources-whoop-csv.md``).

    Attributes:
        path: The mapping file.
        file: Data file named in the mapping (relative to it), or None.
        delimiter: CSV field separator (None: tab for ``.tsv``, else comma).
        user_column, user_id: Where the user comes from (exactly one is set).
        date_column, date_format, timezone: The date column, its strptime format (None = ISO 8601)
            and the participants' IANA zone (None = timestamps are local wall-clock times).
        metrics: One :class:`MetricMap` per mapped canonical metric.
        demographics: Demographic column → ``("column", name)`` or ``("value", constant)``.
    """

    path: Path
    file: str | None
    delimiter: str | None
    user_column: str | None
    user_id: str | None
    date_column: str
    date_format: str | None
    timezone: str | None
    metrics: tuple[MetricMap, ...]
    demographics: dict[str, tuple[str, Any]] = field(default_factory=dict)

    def columns(self) -> list[str]:
        """Every data column the mapping reads (no duplicates, in mapping order)."""
        cols = [self.user_column, self.date_column]
        for m in self.metrics:
            cols += [m.column, m.unit_column]
        cols += [v for kind, v in self.demographics.values() if kind == "column"]
        return list(dict.fromkeys(c for c in cols if c is not None))


def _fail(path: Path, where: str, message: str) -> WearbenchError:
    return WearbenchError(f"{path}: {where}: {message}")


def _section(path: Path, where: str, value: object, allowed: tuple[str, ...]) -> dict[str, Any]:
    """``value`` as a mapping whose keys are all in ``allowed`` (else a one-line error)."""
    if not isinstance(value, dict):
        raise _fail(path, where, f"expected a mapping with keys {', '.join(allowed)}, got {value!r}")
    for key in value:
        if key not in allowed:
            near = difflib.get_close_matches(str(key), allowed, n=1)
            hint = f"; did you mean {near[0]!r}?" if near else ""
            raise _fail(path, where, f"unknown key {key!r}{hint} (allowed: {', '.join(allowed)})")
    return value


def _text(path: Path, where: str, value: object) -> str:
    if not isinstance(value, str | int) or isinstance(value, bool) or str(value).strip() == "":
        raise _fail(path, where, f"expected a column name or text, got {value!r}")
    return str(value)


def _metric(path: Path, name: object, spec: object) -> MetricMap:
    where = f"metrics.{name}"
    if name not in METRIC_NAMES:
        near = difflib.get_close_matches(str(name), METRIC_NAMES, n=2, cutoff=0.5)
        hint = f"; did you mean {', '.join(repr(n) for n in near)}?" if near else ""
        raise _fail(path, where, f"unknown metric {name!r}{hint} (valid: {', '.join(METRIC_NAMES)})")
    spec = _section(path, where, spec, _METRIC)
    if "column" not in spec:
        raise _fail(path, where, "missing key 'column'")
    if ("unit" in spec) == ("unit_column" in spec):
        raise _fail(path, where, "give exactly one of 'unit' (fixed) or 'unit_column' (per row)")
    agg = spec.get("aggregate")
    if agg is not None and agg not in AGGREGATES:
        raise _fail(path, f"{where}.aggregate", f"unknown {agg!r}; valid: {', '.join(AGGREGATES)}")
    factor = unit_factor(str(name), spec["unit"], f"{path}: {where}.unit") if "unit" in spec else None
    unit_col = _text(path, f"{where}.unit_column", spec["unit_column"]) if "unit_column" in spec else None
    return MetricMap(str(name), _text(path, f"{where}.column", spec["column"]), factor, unit_col, agg)


def _demographic(path: Path, key: object, value: object) -> tuple[str, Any]:
    if key not in DEMOGRAPHIC_COLUMNS:
        near = difflib.get_close_matches(str(key), DEMOGRAPHIC_COLUMNS, n=1)
        hint = f"; did you mean {near[0]!r}?" if near else ""
        raise _fail(
            path, f"demographics.{key}", f"unknown field{hint} (valid: {', '.join(DEMOGRAPHIC_COLUMNS)})"
        )
    if isinstance(value, dict):
        spec = _section(path, f"demographics.{key}", value, ("column",))
        return ("column", _text(path, f"demographics.{key}.column", spec.get("column")))
    if value is None or isinstance(value, list):
        raise _fail(path, f"demographics.{key}", f"expected a constant or {{column: NAME}}, got {value!r}")
    return ("value", value)


def _zone(path: Path, value: object) -> str | None:
    if value is None:
        return None
    try:
        ZoneInfo(str(value))
    except (ZoneInfoNotFoundError, ValueError):
        raise _fail(
            path, "date.timezone", f"unknown IANA time zone {value!r} (e.g. Europe/London, UTC)"
        ) from None
    return str(value)


def _load_yaml(path: Path) -> object:
    import yaml  # type: ignore[import-untyped]  # lazy: importing wearbench stays fast and silent

    try:
        text = path.read_text(encoding="utf-8")
        return yaml.safe_load(text)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        place = f"line {mark.line + 1}, column {mark.column + 1}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise WearbenchError(f"{path}: {place}bad YAML: {problem}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise WearbenchError(f"{path}: cannot read mapping file: {exc}") from None


def read_mapping(path: Path) -> Mapping:
    """Read and validate a mapping file.

    Raises:
        WearbenchError: Bad YAML (with line and column), an unknown key, metric (with close
            matches), unit (with the valid ones) or aggregation, or a missing required key.
    """
    raw = _section(path, "top level", _load_yaml(path), _TOP)
    user = _section(path, "user", raw.get("user"), _USER)
    if len(user) != 1:
        raise _fail(path, "user", "give exactly one of 'column' (a user column) or 'id' (one constant user)")
    date = _section(path, "date", raw.get("date"), _DATE)
    if "column" not in date:
        raise _fail(path, "date", "missing key 'column'")
    metrics = raw.get("metrics")
    if not isinstance(metrics, dict) or not metrics:
        raise _fail(
            path, "metrics", "expected at least one canonical metric (e.g. steps: {column: ..., unit: ...})"
        )
    demo = raw.get("demographics") or {}
    if not isinstance(demo, dict):
        raise _fail(path, "demographics", f"expected a mapping, got {demo!r}")
    return Mapping(
        path=path,
        file=str(raw["file"]) if raw.get("file") is not None else None,
        delimiter=str(raw["delimiter"]) if raw.get("delimiter") is not None else None,
        user_column=_text(path, "user.column", user["column"]) if "column" in user else None,
        user_id=_text(path, "user.id", user["id"]) if "id" in user else None,
        date_column=_text(path, "date.column", date["column"]),
        date_format=str(date["format"]) if date.get("format") is not None else None,
        timezone=_zone(path, date.get("timezone")),
        metrics=tuple(_metric(path, name, spec) for name, spec in metrics.items()),
        demographics={str(k): _demographic(path, k, v) for k, v in demo.items()},
    )
