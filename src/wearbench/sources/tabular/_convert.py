"""Per-chunk conversion of mapped columns: users, dates and metric values in canonical units."""

from __future__ import annotations

import numpy as np
import pandas as pd

from wearbench._errors import WearbenchError
from wearbench.cohort import metric
from wearbench.sources._report import ImportLog
from wearbench.sources.tabular._mapping import Mapping, MetricMap
from wearbench.sources.tabular._read import parse_dates
from wearbench.sources.tabular._units import UNITS

LINE = "__line__"


def _where(file: str, chunk: pd.DataFrame, mask: pd.Series) -> list[str]:
    """``file line N`` for the first few rows of ``mask``."""
    word = "row" if file.lower().endswith((".parquet", ".pq")) else "line"
    return [f"{file} {word} {n}" for n in chunk.loc[mask, LINE].head(5)]


def _log(log: ImportLog, method: str, kind: str, examples: list[str], n: int) -> None:
    if n == 0:
        return
    record = log.repair if method == "repair" else log.reject
    for example in examples:
        record(kind, example, n=0)
    record(kind, n=n)


def _values(chunk: pd.DataFrame, m: MetricMap, file: str, log: ImportLog, ids: pd.DataFrame) -> pd.Series:
    """Column ``m.column`` as floats in the canonical unit of ``m.name``."""
    cells = chunk[m.column]
    values = pd.to_numeric(cells, errors="coerce").astype("float64")
    bad = cells.notna() & (cells.astype("string").str.strip() != "") & values.isna()
    texts = [
        f"{w}, user {u}, {d}, column {m.column!r} = {c!r}"
        for w, u, d, c in _rows(chunk, bad, file, ids, m.column)
    ]
    _log(log, "repair", f"{m.name}: not a number, set missing", texts, int(bad.sum()))
    if m.factor is not None:
        factor = pd.Series(m.factor, index=chunk.index)
    else:
        table = UNITS[metric(m.name).unit]
        units = chunk[str(m.unit_column)].astype("string").str.strip().str.lower()
        factor = units.map(lambda u: table.get(str(u), np.nan)).astype("float64")
        unknown = values.notna() & factor.isna()
        kind = f"{m.name}: unit in column {m.unit_column!r} not one of {', '.join(table)}, value set missing"
        texts = [
            f"{w}, user {u}, {d}, column {m.unit_column!r} = {c!r}"
            for w, u, d, c in _rows(chunk, unknown, file, ids, str(m.unit_column))
        ]
        _log(log, "repair", kind, texts, int(unknown.sum()))
    converted = values.notna() & factor.notna() & (factor != 1.0)
    if converted.any():
        pos = int(np.argmax(converted.to_numpy()))
        old, new = float(values.iloc[pos]), float(values.iloc[pos] * factor.iloc[pos])
        example = f"{_where(file, chunk, converted)[0]}, {m.column!r} = {old:g} → {new:g}"
        log.repair(f"{m.name}: converted to {metric(m.name).unit}", example, n=int(converted.sum()))
    return values * factor


def _rows(
    chunk: pd.DataFrame, mask: pd.Series, file: str, ids: pd.DataFrame, column: str
) -> list[tuple[str, str, str, object]]:
    """(where, user, date, cell) of the first few rows of ``mask``."""
    idx = chunk.index[mask][:5]
    dates = ids.loc[idx, "date"].dt.strftime("%Y-%m-%d").fillna("?")
    return list(
        zip(_where(file, chunk, mask), ids.loc[idx, "user_id"], dates, chunk.loc[idx, column], strict=True)
    )


def chunk_rows(
    chunk: pd.DataFrame, mp: Mapping, file: str, log: ImportLog, order: str | None = None
) -> tuple[pd.DataFrame, str | None]:
    """Narrow rows (``user_id``, ``date``, one float column per metric, demographics as read).

    Rows without a user or a readable date are rejected (counted, with examples). Returns the rows
    and the first unreadable date cell (``file line N: 'cell'``), or None. ``order`` is the
    day/month order the data proved (see :func:`~wearbench.sources.tabular._dates.date_order`).
    """
    if mp.user_column is not None:
        users = chunk[mp.user_column].astype("string").str.strip()
    else:
        users = pd.Series(mp.user_id, index=chunk.index, dtype="string")
    no_user = users.isna() | (users == "")
    try:
        dates = parse_dates(chunk[mp.date_column], mp.date_format, mp.timezone, order).dt.normalize()
    except WearbenchError as exc:
        raise WearbenchError(f"{mp.path}: {exc}") from None
    ids = pd.DataFrame({"user_id": users.fillna("?"), "date": dates})
    _log(
        log,
        "reject",
        f"row without a user in column {mp.user_column!r}, rejected",
        _where(file, chunk, no_user),
        int(no_user.sum()),
    )
    bad_date = dates.isna() & ~no_user
    cells = chunk.loc[bad_date, mp.date_column].head(5).tolist()
    texts = [
        f"{w}, user {u}, column {mp.date_column!r} = {c!r}"
        for w, u, c in zip(_where(file, chunk, bad_date), users[bad_date].head(5), cells, strict=True)
    ]
    fmt = mp.date_format or {"DMY": "day/month/year", "MDY": "month/day/year"}.get(order or "", "ISO 8601")
    _log(log, "reject", f"date not readable as {fmt}, row rejected", texts, int(bad_date.sum()))
    keep = ~(no_user | bad_date)
    chunk, out = chunk[keep], ids[keep].copy()
    for m in mp.metrics:
        out[m.name] = _values(chunk, m, file, log, out)
    for key, (kind, value) in mp.demographics.items():
        if kind == "column":
            out[f"demo:{key}"] = chunk[value]
    return out, texts[0] if texts else None
