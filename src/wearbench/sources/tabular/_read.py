"""Chunked reading of the data file (CSV or Parquet) named by a mapping, and date parsing."""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from pathlib import Path

import pandas as pd

from wearbench._errors import WearbenchError

#: Rows per chunk when streaming a data file.
CHUNK_ROWS = 200_000
PARQUET_SUFFIXES = (".parquet", ".pq")
_OFFSET = r"(?:Z|[+-]\d{2}:?\d{2})$"
_DATE_ONLY = r"\d{4}-\d{2}-\d{2}"
#: A numeric date ``A/B/YYYY`` (``/``, ``.`` or ``-``) and anything after it (a time).
NUMERIC_DATE = r"^(\d{1,2})[/.\-](\d{1,2})[/.\-](\d{4})(.*)$"


def _check_columns(path: Path, have: list[str], need: list[str], where: str = "line 1") -> None:
    for col in need:
        if col not in have:
            near = difflib.get_close_matches(col, have, n=2, cutoff=0.6)
            hint = f"; closest: {', '.join(repr(n) for n in near)}" if near else ""
            shown = ", ".join(repr(h) for h in have[:12]) + (" ..." if len(have) > 12 else "")
            raise WearbenchError(f"{path}: {where}: no column {col!r}{hint} (header: {shown})")


def _csv_chunks(path: Path, need: list[str], delimiter: str, rows: int) -> Iterator[pd.DataFrame]:
    try:
        header = pd.read_csv(path, nrows=0, sep=delimiter, encoding="utf-8-sig")
        _check_columns(path, [str(c).strip() for c in header.columns], need)
        reader = pd.read_csv(
            path, sep=delimiter, dtype=str, chunksize=rows, encoding="utf-8-sig", skipinitialspace=True
        )
        first = 2
        for chunk in reader:
            chunk.columns = [str(c).strip() for c in chunk.columns]
            chunk = chunk[need].copy()
            chunk["__line__"] = range(first, first + len(chunk))
            first += len(chunk)
            yield chunk
    except pd.errors.EmptyDataError:
        raise WearbenchError(f"{path}: file is empty (expected a header line)") from None
    except (pd.errors.ParserError, UnicodeDecodeError, ValueError) as exc:
        detail = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
        raise WearbenchError(f"{path}: cannot read as CSV: {detail}") from None


def _parquet_chunks(path: Path, need: list[str], rows: int) -> Iterator[pd.DataFrame]:
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        source = pq.ParquetFile(path)
        _check_columns(path, list(source.schema_arrow.names), need, "schema")
        first = 1
        for batch in source.iter_batches(batch_size=rows, columns=need):
            chunk = batch.to_pandas()
            chunk["__line__"] = range(first, first + len(chunk))
            first += len(chunk)
            yield chunk
    except (pa.ArrowException, OSError) as exc:
        raise WearbenchError(f"{path}: cannot read as Parquet: {str(exc).splitlines()[0]}") from None


def chunks(
    path: Path, need: list[str], delimiter: str = ",", rows: int = CHUNK_ROWS
) -> Iterator[pd.DataFrame]:
    """The ``need`` columns of a CSV or Parquet file, ``rows`` at a time.

    Each chunk has a ``__line__`` column: the CSV line (header = line 1) or Parquet row (from 1).

    Raises:
        WearbenchError: Empty or unparseable file, or a needed column missing (with close matches).
    """
    if path.suffix.lower() in PARQUET_SUFFIXES:
        return _parquet_chunks(path, need, rows)
    return _csv_chunks(path, need, delimiter, rows)


def reorder(text: pd.Series, order: str) -> pd.Series:
    """Numeric ``A/B/YYYY[ time]`` cells rewritten as ISO ``YYYY-MM-DD[ time]`` in ``order``."""
    day, month = (1, 2) if order == "DMY" else (2, 1)

    def iso(m: object) -> str:
        g = m.group  # type: ignore[attr-defined]
        return f"{g(3)}-{int(g(month)):02d}-{int(g(day)):02d}{g(4)}"

    out: pd.Series = text.str.replace(NUMERIC_DATE, iso, regex=True)
    return out


def parse_dates(cells: pd.Series, fmt: str | None, zone: str | None, order: str | None = None) -> pd.Series:
    """Local wall-clock datetimes (naive; NaT when unreadable) from a date or timestamp column.

    Without ``zone`` the times are taken as written (a trailing UTC offset is ignored). With an
    IANA ``zone`` timestamps are instants (naive ones read as UTC) converted into ``zone``;
    date-only cells (``YYYY-MM-DD``) are already local days and are never shifted. ``order``
    (``"DMY"`` or ``"MDY"``, without ``fmt``) reads numeric ``A/B/YYYY`` cells in that order.

    Raises:
        WearbenchError: An unusable ``fmt`` (the caller adds the mapping file).
    """
    if pd.api.types.is_datetime64_any_dtype(cells):
        times = cells
        date_only = pd.Series(False, index=cells.index)
    else:
        text = cells.astype("string").str.strip()
        if order is not None and fmt is None:
            text = reorder(text, order)
        date_only = text.str.fullmatch(_DATE_ONLY).fillna(False).astype(bool)
        if zone is None and fmt is None:
            text = text.str.replace(_OFFSET, "", regex=True)
        try:
            times = pd.to_datetime(
                text.astype(object), format=fmt or "ISO8601", errors="coerce", utc=zone is not None
            )
        except (ValueError, TypeError) as exc:
            raise WearbenchError(f"date.format {fmt!r} is not usable: {exc}") from None
    if zone is None:
        naive: pd.Series = times.dt.tz_localize(None) if times.dt.tz is not None else times
        return naive
    if times.dt.tz is None:
        times = times.dt.tz_localize("UTC")
    local: pd.Series = times.dt.tz_convert(zone).dt.tz_localize(None)
    if date_only.any():
        local = local.where(~date_only, times.dt.tz_localize(None))
    return local
