"""Table layouts and the conversions pandas ⇄ Arrow used by IO, hashing and validation.

Both directions are lenient: a column of the wrong type is carried through (as whatever
Arrow infers) rather than raising, so that validation can name it as a problem. The
canonical Arrow types are ``string`` (user ids, labels), ``date32`` (days), ``float64``
(measurements, NaN/null = missing) and ``int64`` (counts).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
import pandas as pd
import pyarrow as pa

from wearbench._errors import WearbenchError
from wearbench.cohort._problems import Findings, fmt_value, iso_date
from wearbench.cohort._schema import (
    BIOMARKER_NAMES,
    DEMOGRAPHIC_COLUMNS,
    EXTRA_PERCENTILES,
    METRIC_NAMES,
    PERCENTILES,
)

ColumnKind = Literal["string", "date", "float", "int"]

_ARROW: dict[ColumnKind, pa.DataType] = {
    "string": pa.string(),
    "date": pa.date32(),
    "float": pa.float64(),
    "int": pa.int64(),
}
_EXPECTED: dict[ColumnKind, str] = {
    "string": "string (text)",
    "date": "date32 (calendar days)",
    "float": "float64 (numbers, null = missing)",
    "int": "int64 (whole numbers)",
}


@dataclass(frozen=True)
class TableSpec:
    """Layout of one cohort table.

    Attributes:
        name: Table name, also the attribute of :class:`~wearbench.cohort.Cohort`.
        keys: Columns that identify a row, in sort order.
        columns: ``(name, kind)`` of every canonical column, in file order.
        user_column: Column holding the user id, if any.
        date_column: Column holding the day, if any.
        optional: Canonical columns a file may lack (read as absent, not as a problem).
    """

    name: str
    keys: tuple[str, ...]
    columns: tuple[tuple[str, ColumnKind], ...]
    user_column: str | None
    date_column: str | None
    optional: tuple[str, ...] = ()

    @property
    def filename(self) -> str:
        """Parquet file name inside a cohort folder."""
        return f"{self.name}.parquet"

    @property
    def column_names(self) -> tuple[str, ...]:
        """Canonical column names in file order."""
        return tuple(c for c, _ in self.columns)

    def kind(self, column: str) -> ColumnKind | None:
        """Kind of a canonical column, ``None`` for an unexpected one."""
        return dict(self.columns).get(column)


DAILY = TableSpec(
    "daily",
    ("user_id", "date"),
    (("user_id", "string"), ("date", "date"), *((m, "float") for m in METRIC_NAMES)),
    "user_id",
    "date",
)
DEMOGRAPHICS = TableSpec(
    "demographics",
    ("user_id",),
    (
        ("user_id", "string"),
        *((c, "string" if c in ("sex", "ethnicity") else "float") for c in DEMOGRAPHIC_COLUMNS),
    ),
    "user_id",
    None,
)
BLOOD = TableSpec(
    "blood",
    ("user_id", "draw_date"),
    (("user_id", "string"), ("draw_date", "date"), *((b, "float") for b in BIOMARKER_NAMES)),
    "user_id",
    "draw_date",
)
REFERENCE = TableSpec(
    "reference",
    ("metric", "age_band", "sex"),
    (
        ("metric", "string"),
        ("age_band", "string"),
        ("sex", "string"),
        ("n_users", "int"),
        *((f"p{p}", "float") for p in PERCENTILES),
        *((f"p{p}", "float") for p in EXTRA_PERCENTILES),
        ("mean", "float"),
        ("sd", "float"),
    ),
    None,
    None,
    optional=(*(f"p{p}" for p in EXTRA_PERCENTILES), "mean", "sd"),
)
TABLES: tuple[TableSpec, ...] = (DAILY, DEMOGRAPHICS, BLOOD, REFERENCE)


def is_string_type(t: pa.DataType) -> bool:
    """Whether ``t`` holds text (any Arrow string flavour or a string dictionary)."""
    if pa.types.is_dictionary(t):
        return is_string_type(t.value_type)
    return bool(pa.types.is_string(t) or pa.types.is_large_string(t) or pa.types.is_string_view(t))


# ---------------------------------------------------------------------------- pandas → Arrow


def frame_to_arrow(frame: pd.DataFrame, spec: TableSpec) -> pa.Table:
    """Convert an in-memory table to Arrow in canonical column and row order.

    Canonical columns get their canonical type when the data allow it; otherwise (and for
    unexpected columns) the type Arrow infers, so validation can report it.

    Raises:
        WearbenchError: If the frame has duplicate column names.
    """
    names = [str(c) for c in frame.columns]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise WearbenchError(f"{spec.name}: duplicate column name(s) {', '.join(dupes)}")
    arrays: dict[str, pa.Array] = {}
    for name, col in zip(names, frame.columns, strict=True):
        series = frame[col].reset_index(drop=True)
        kind = spec.kind(name)
        arrays[name] = _inferred(series) if kind is None else _to_arrow(series, kind)
    table = pa.table(arrays) if arrays else pa.table({})
    return canonical_table(table, spec)


def _to_arrow(s: pd.Series, kind: ColumnKind) -> pa.Array:
    if bool(s.isna().all()):  # empty or all missing: typed nulls, whatever the dtype
        return pa.nulls(len(s), type=_ARROW[kind])
    try:
        if kind == "float" and _is_numeric(s):
            return pa.array(
                s.to_numpy(dtype=np.float64, na_value=np.nan), type=pa.float64(), from_pandas=True
            )
        if kind == "int" and pd.api.types.is_integer_dtype(s.dtype) and not s.isna().any():
            return pa.array(s.to_numpy(dtype=np.int64), type=pa.int64())
        if kind == "string" and _all_text(s):
            return pa.array(s.astype(object), type=pa.string(), from_pandas=True)
        if kind == "date":
            return _dates_to_arrow(s)
    except (pa.ArrowException, ValueError, TypeError, OverflowError):
        pass
    return _inferred(s)


def _is_numeric(s: pd.Series) -> bool:
    return bool(pd.api.types.is_numeric_dtype(s.dtype) and not pd.api.types.is_bool_dtype(s.dtype))


def _all_text(s: pd.Series) -> bool:
    if pd.api.types.is_string_dtype(s.dtype) and not pd.api.types.is_object_dtype(s.dtype):
        return True
    if not (pd.api.types.is_object_dtype(s.dtype) or isinstance(s.dtype, pd.CategoricalDtype)):
        return False
    present = s[s.notna()]
    return bool(present.map(lambda v: isinstance(v, str)).all())


def _dates_to_arrow(s: pd.Series) -> pa.Array:
    if pd.api.types.is_datetime64_dtype(s.dtype):  # tz-naive only
        values = s.to_numpy()
        days = values.astype("datetime64[D]")
        whole = np.isnat(values) | (days.astype(values.dtype) == values)
        if bool(whole.all()):
            return pa.array(days, type=pa.date32())
        return pa.array(values)  # keeps the time of day: validation reports it
    return _inferred(s)


def _inferred(s: pd.Series) -> pa.Array:
    try:
        return pa.array(s, from_pandas=True)
    except (pa.ArrowException, ValueError, TypeError, OverflowError):
        return pa.array([None if _missing(v) else str(v) for v in s], type=pa.string())


def _missing(v: Any) -> bool:
    return v is None or (isinstance(v, float) and math.isnan(v)) or v is pd.NaT or v is pd.NA


def canonical_table(table: pa.Table, spec: TableSpec) -> pa.Table:
    """Reorder columns (canonical ones in schema order, then the rest by name) and sort rows.

    Rows are sorted by the key columns, then by every other sortable column, so equal
    content gives an identical table whatever the input order.
    """
    known = [c for c in spec.column_names if c in table.column_names]
    extra = sorted(c for c in table.column_names if c not in spec.column_names)
    table = table.select(known + extra)
    if table.num_rows < 2:
        return table
    order = [c for c in spec.keys if c in known] + [c for c in known + extra if c not in spec.keys]
    sortable = [c for c in order if _sortable(table.schema.field(c).type)]
    if not sortable:
        return table
    return table.sort_by([(c, "ascending") for c in sortable])


def _sortable(t: pa.DataType) -> bool:
    types = pa.types
    return bool(
        is_string_type(t)
        or types.is_integer(t)
        or types.is_floating(t)
        or types.is_date(t)
        or types.is_timestamp(t)
        or types.is_boolean(t)
    )


# ---------------------------------------------------------------------------- Arrow → pandas


def arrow_to_frame(table: pa.Table, spec: TableSpec, file: str) -> tuple[pd.DataFrame, Findings]:
    """Convert a table read from disk (or from :func:`frame_to_arrow`) to canonical pandas.

    Dates become ``datetime64[us]`` at midnight, text becomes ``str``, measurements
    ``float64``. Missing, unexpected and wrongly typed columns are reported; a wrongly
    typed column is still coerced (unparseable → missing) so later checks can run.

    Returns:
        ``(frame, findings)``; the frame holds the canonical columns that are present, in
        schema order, rows in the input order.
    """
    found = Findings()
    names = set(table.column_names)
    expected = ", ".join(spec.column_names)
    for c in spec.column_names:
        if c not in names and c not in spec.optional:
            found.error(
                "missing_column",
                file,
                f"column {c} is missing; expected columns: {expected} (add it; use null for missing values)",
                column=c,
            )
    for c in table.column_names:
        if spec.kind(c) is None:
            t = table.schema.field(c).type
            found.error(
                "unexpected_column", file, f"unexpected column {c!r} ({t}); drop or rename it", column=c
            )
    data: dict[str, Any] = {}
    for c, kind in spec.columns:
        if c in names:
            data[c] = _column_to_pandas(table, c, kind, spec, file, found)
    return pd.DataFrame(data, index=pd.RangeIndex(table.num_rows)), found


def _column_to_pandas(
    table: pa.Table, name: str, kind: ColumnKind, spec: TableSpec, file: str, found: Findings
) -> Any:
    col = table.column(name)
    t = col.type
    if pa.types.is_dictionary(t):
        col = col.cast(t.value_type)
        t = col.type
    if pa.types.is_null(t):  # all missing (another writer's untyped column)
        col = col.cast(_ARROW[kind])
        t = col.type
    if kind == "float":
        return _float_column(table, col, name, spec, file, found)
    if kind == "int":
        if pa.types.is_integer(t) and col.null_count == 0:
            return col.cast(pa.int64()).to_numpy()
        _type_error(found, file, name, t, kind, "must be whole numbers without missing values")
        return _coerce_numeric(col)
    if kind == "string":
        if is_string_type(t):
            return col.to_pandas()
        _type_error(found, file, name, t, kind, "store it as text")
        return pd.Series(_as_text(col), dtype=object)
    return _date_column(col, name, file, found)


def _float_column(
    table: pa.Table, col: pa.ChunkedArray, name: str, spec: TableSpec, file: str, found: Findings
) -> np.ndarray:
    t = col.type
    if pa.types.is_floating(t) or pa.types.is_integer(t) or pa.types.is_decimal(t):
        return np.asarray(col.cast(pa.float64()).to_numpy(), dtype=np.float64)
    values = _coerce_numeric(col)
    if not is_string_type(t):
        _type_error(found, file, name, t, "float", "store numbers (null for missing)")
        return values
    raw = col.to_pylist()
    bad = [i for i, v in enumerate(raw) if v is not None and str(v).strip() != "" and np.isnan(values[i])]
    if not bad:
        _type_error(found, file, name, t, "float", "the text holds numbers: store them as numbers")
        return values
    i = bad[0]
    where = _row_where(table, spec, i)
    found.error(
        "bad_type",
        file,
        f"{name} = {fmt_value(raw[i])} is not a number: column {name} has type {t}, expected "
        f"{_EXPECTED['float']}; {len(bad)} value(s) are not numbers; store numbers (null for missing)",
        column=name,
        value=raw[i],
        **where,
    )
    return values


def _date_column(col: pa.ChunkedArray, name: str, file: str, found: Findings) -> Any:
    t = col.type
    if pa.types.is_date(t):
        days = np.asarray(col.cast(pa.date32()).to_numpy(), dtype="datetime64[D]")
        return days.astype("datetime64[us]")
    if pa.types.is_timestamp(t) and t.tz is None:
        values = np.asarray(col.cast(pa.timestamp("us")).to_numpy(), dtype="datetime64[us]")
        days = values.astype("datetime64[D]").astype("datetime64[us]")
        off = ~np.isnat(values) & (days != values)
        if bool(off.any()):
            first = str(values[np.flatnonzero(off)[0]])
            _type_error(
                found, file, name, t, "date", f"{int(off.sum())} value(s) have a time of day (first {first})"
            )
        return values
    _type_error(found, file, name, t, "date", "store calendar days (date32)")
    try:
        parsed = pd.to_datetime(pd.Series(_as_text(col), dtype=object), errors="coerce", format="ISO8601")
        return parsed.to_numpy(dtype="datetime64[us]")
    except (ValueError, TypeError, OverflowError):
        return np.full(len(col), np.datetime64("NaT"), dtype="datetime64[us]")


def _type_error(found: Findings, file: str, name: str, t: pa.DataType, kind: ColumnKind, fix: str) -> None:
    found.error(
        "bad_type", file, f"column {name} has type {t}, expected {_EXPECTED[kind]}; {fix}", column=name
    )


def _coerce_numeric(col: pa.ChunkedArray) -> np.ndarray:
    t = col.type
    if pa.types.is_floating(t) or pa.types.is_integer(t):
        return np.asarray(col.cast(pa.float64()).to_numpy(), dtype=np.float64)
    if pa.types.is_boolean(t) or not (is_string_type(t)):
        return np.full(len(col), np.nan)
    text = pd.Series(col.to_pylist(), dtype=object)
    return np.asarray(pd.to_numeric(text, errors="coerce"), dtype=np.float64)


def _as_text(col: pa.ChunkedArray) -> list[str | None]:
    return [None if v is None else str(v) for v in col.to_pylist()]


def _row_where(table: pa.Table, spec: TableSpec, i: int) -> dict[str, Any]:
    where: dict[str, Any] = {}
    names = table.column_names
    if spec.user_column in names:
        where["user_id"] = table.column(spec.user_column)[i].as_py()
    if spec.date_column in names:
        where["date"] = iso_date(table.column(spec.date_column)[i].as_py())
    return where


def iter_rows(frame: pd.DataFrame, spec: TableSpec, rows: np.ndarray) -> Iterator[dict[str, Any]]:
    """Yield ``{"user_id", "date"}`` for each row index in ``rows`` (for messages)."""
    users = frame[spec.user_column].to_numpy() if spec.user_column in frame else None
    dates = frame[spec.date_column].to_numpy() if spec.date_column in frame else None
    for i in rows:
        where: dict[str, Any] = {}
        if users is not None:
            where["user_id"] = users[i]
        if dates is not None:
            where["date"] = iso_date(dates[i])
        yield where
