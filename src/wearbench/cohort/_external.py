"""Published population references by age band and sex (see ``docs/external-reference.md``).

The table is package data, read once on first use: ``data/external_reference.csv`` (long
format, one published number a row, each naming its source and the source's own row and
column) and ``data/external_sources.json`` (citation, DOI/PMID, where each number was
checked, and the measurement caveat). Values are in the canonical units of
:mod:`wearbench.cohort._schema`. Only metrics with a checked source are present; any other
(metric, age band, sex) has no external reference and :func:`external_reference` returns
``None``.
"""

from __future__ import annotations

import csv
import functools
import io
import json
from collections.abc import Mapping
from dataclasses import dataclass
from importlib import resources
from types import MappingProxyType
from typing import Any

from wearbench.cohort._schema import AGE_BANDS, PERCENTILES, SEXES

#: Metrics with a checked external reference (kept equal to the CSV's metrics by a test).
EXTERNAL_METRICS: tuple[str, ...] = ("resting_hr", "vo2max")

_CSV = "data/external_reference.csv"
_JSON = "data/external_sources.json"
_COLUMNS = ("metric", "age_band", "sex", "stat", "value", "source_id", "source_cell")
_SOURCE_KEYS = ("citation", "short", "doi", "pmid", "url", "table", "verification", "verified_from", "caveat")
_STATS = {f"p{p}" for p in PERCENTILES} | {"mean", "sd", "n"}
_BANDS = tuple(label for label, _, _ in AGE_BANDS)


@dataclass(frozen=True)
class ExternalReference:
    """A published reference distribution for one metric, age band and sex.

    Attributes:
        metric: Canonical metric name (e.g. ``"vo2max"``).
        age_band: Our age band label (e.g. ``"30-39"``); the source's own age group is
            named in ``citation`` and the band mapping in ``caveat``.
        sex: ``"F"`` or ``"M"``.
        percentiles: Percentile (5, 10, 25, 50, 75, 90 or 95) → value in the metric's
            canonical unit; only those the source publishes (may be empty).
        mean: Published mean in the canonical unit, if the source gives one.
        sd: Published standard deviation in the canonical unit, if given.
        n: Number of people in the source's group, if given.
        source_id: Key into :func:`external_sources`.
        citation: Short citation of this cell: "Author Year, Journal; DOI or PMID; the
            source's table and row".
        caveat: What the source measured (and how it differs from a wearable reading),
            and how the source's age group maps onto ``age_band``.
    """

    metric: str
    age_band: str
    sex: str
    percentiles: Mapping[int, float]
    mean: float | None
    sd: float | None
    n: int | None
    source_id: str
    citation: str
    caveat: str


def _read(name: str) -> str:
    return resources.files("wearbench.cohort").joinpath(name).read_text("utf-8")


def _fail(name: str, where: str, problem: str) -> ValueError:
    return ValueError(f"{name}: {where}: {problem}")


def _parse_sources(text: str) -> dict[str, dict[str, Any]]:
    data = json.loads(text)
    if not isinstance(data, dict):
        raise _fail(_JSON, "top level", "expected an object of source id → source")
    for sid, src in data.items():
        missing = [k for k in (*_SOURCE_KEYS, "band_map") if k not in src]
        if missing:
            raise _fail(_JSON, sid, f"missing keys {missing}")
        if not (src["doi"] or src["pmid"]):
            raise _fail(_JSON, sid, "needs a DOI or a PMID")
    return data


def _parse_row(row: dict[str, str], line: int, sources: Mapping[str, Any]) -> tuple[str, float]:
    where = f"line {line}"
    if tuple(row) != _COLUMNS:
        raise _fail(_CSV, where, f"columns {tuple(row)}, expected {_COLUMNS}")
    if row["age_band"] not in _BANDS or row["sex"] not in SEXES:
        raise _fail(
            _CSV, where, f"age band {row['age_band']!r} / sex {row['sex']!r} not in {_BANDS} / {SEXES}"
        )
    if row["stat"] not in _STATS:
        raise _fail(_CSV, where, f"stat {row['stat']!r} not in {sorted(_STATS)}")
    if row["source_id"] not in sources:
        raise _fail(_CSV, where, f"source {row['source_id']!r} is not in {_JSON}")
    if row["age_band"] not in sources[row["source_id"]]["band_map"]:
        raise _fail(_CSV, where, f"source {row['source_id']!r} has no band mapping for {row['age_band']!r}")
    try:
        return row["stat"], float(row["value"])
    except ValueError as e:
        raise _fail(_CSV, where, f"value {row['value']!r} is not a number") from e


def _cell(
    key: tuple[str, str, str], rows: list[dict[str, str]], sources: Mapping[str, Any]
) -> ExternalReference:
    metric, band, sex = key
    source_ids = {r["source_id"] for r in rows}
    source_rows = {r["source_cell"].split(" | ")[0] for r in rows}
    if len(source_ids) != 1 or len(source_rows) != 1:
        raise _fail(
            _CSV, f"{key}", f"one cell mixes sources {sorted(source_ids)} / rows {sorted(source_rows)}"
        )
    sid, source_row = source_ids.pop(), source_rows.pop()
    src = sources[sid]
    stats = {r["stat"]: float(r["value"]) for r in rows}
    ident = f"doi:{src['doi']}" if src["doi"] else f"PMID {src['pmid']}"
    n = stats.get("n")
    return ExternalReference(
        metric=metric,
        age_band=band,
        sex=sex,
        percentiles=MappingProxyType({p: stats[f"p{p}"] for p in PERCENTILES if f"p{p}" in stats}),
        mean=stats.get("mean"),
        sd=stats.get("sd"),
        n=None if n is None else int(n),
        source_id=sid,
        citation=f"{src['short']}; {ident}; {source_row}",
        caveat=f"{src['caveat']} Age band: our {band} ← {src['band_map'][band]}.",
    )


@functools.cache
def _tables() -> tuple[dict[tuple[str, str, str], ExternalReference], dict[str, dict[str, Any]]]:
    sources = _parse_sources(_read(_JSON))
    grouped: dict[tuple[str, str, str], list[dict[str, str]]] = {}
    seen: set[tuple[str, str, str, str]] = set()
    for line, row in enumerate(csv.DictReader(io.StringIO(_read(_CSV))), start=2):
        stat, _ = _parse_row(row, line, sources)
        key = (row["metric"], row["age_band"], row["sex"])
        if (*key, stat) in seen:
            raise _fail(_CSV, f"line {line}", f"duplicate {stat} for {key}")
        seen.add((*key, stat))
        grouped.setdefault(key, []).append(row)
    cells = {key: _cell(key, rows, sources) for key, rows in grouped.items()}
    return cells, sources


def external_reference(metric: str, age_band: str, sex: str) -> ExternalReference | None:
    """The published reference for ``metric`` in ``age_band`` and ``sex``, if one was checked.

    Args:
        metric: Canonical metric name (see ``METRIC_NAMES``).
        age_band: Age band label from ``AGE_BANDS`` (e.g. ``"40-49"``).
        sex: ``"F"`` or ``"M"``.

    Returns:
        The reference in the metric's canonical unit, or ``None`` when no checked source
        covers that metric, band and sex (an unknown name also gives ``None``).
    """
    return _tables()[0].get((metric, age_band, sex))


def external_sources() -> Mapping[str, Mapping[str, str]]:
    """The sources of the external table, id → their fields.

    Returns:
        Source id → ``citation``, ``short``, ``doi``, ``pmid``, ``url``, ``table``,
        ``verification``, ``verified_from`` and ``caveat``, all strings (``doi`` is empty when
        the source has only a PMID). Read-only.
    """
    return MappingProxyType(
        {sid: MappingProxyType({k: str(src[k]) for k in _SOURCE_KEYS}) for sid, src in _tables()[1].items()}
    )
