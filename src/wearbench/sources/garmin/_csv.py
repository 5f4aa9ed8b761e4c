"""Reading the T1D-UOM Garmin CSVs: header checks, timestamps, and rows that cannot be used.

Every problem is either a one-line :class:`~wearbench._errors.WearbenchError` naming the file
and line (unusable file: empty, wrong header, not CSV) or a counted rejection with an example
naming file, line, user, column and value (unusable row: truncated, unparseable timestamp or
number).
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from wearbench._errors import WearbenchError
from wearbench.sources._report import ImportLog


def read_table(path: Path, required: Sequence[str], log: ImportLog) -> pd.DataFrame:
    """Read one CSV as strings, check its header, and count its rows.

    Args:
        path: The CSV file.
        required: Columns that must be in the header line.
        log: Import log (``rows_read`` is counted under the file name).

    Returns:
        All columns as strings (empty unnamed columns dropped) plus ``_line``, the 1-based line
        number in the file (the header is line 1).

    Raises:
        WearbenchError: Empty file, unreadable CSV, or a required column missing.
    """
    if path.stat().st_size == 0:
        raise WearbenchError(f"{path}: line 1: empty file (expected a header with {', '.join(required)})")
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8-sig")
    except (pd.errors.ParserError, UnicodeDecodeError, csv.Error) as exc:
        detail = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
        raise WearbenchError(f"{path}: not a readable CSV ({detail})") from None
    except pd.errors.EmptyDataError:
        raise WearbenchError(f"{path}: line 1: empty file (no header)") from None
    frame = frame.loc[:, [c for c in frame.columns if not str(c).startswith("Unnamed:")]]
    missing = [c for c in required if c not in frame.columns]
    if missing:
        found = ", ".join(str(c) for c in frame.columns[:8])
        raise WearbenchError(f"{path}: line 1: missing column(s) {', '.join(missing)} (header has: {found})")
    frame["_line"] = range(2, len(frame) + 2)
    log.read(path.name, len(frame))
    return frame


def parse_times(
    frame: pd.DataFrame,
    column: str,
    fmt: str,
    path: Path,
    user: str,
    log: ImportLog,
    what: str,
    into: str = "_ts",
) -> pd.DataFrame:
    """Parse ``column`` with ``fmt`` into ``into``; reject (counted) rows that do not parse."""
    ts = pd.to_datetime(frame[column], format=fmt, errors="coerce")
    bad = ts.isna()
    if bad.any():
        first = frame[bad].iloc[0]
        example = f"{path.name} line {first['_line']}: user {user}, {column} = {first[column]!r}"
        log.reject(f"{what}: unparseable {column}", example, n=int(bad.sum()))
    out = frame[~bad].copy()
    out[into] = ts[~bad]
    return out


def require_numbers(
    frame: pd.DataFrame, columns: Sequence[str], path: Path, user: str, log: ImportLog, what: str
) -> pd.DataFrame:
    """Convert ``columns`` to float; reject (counted) rows where one is empty or not a number.

    A truncated last line (cut mid-row) lands here: its trailing columns are empty.
    """
    out = frame.copy()
    ok = pd.Series(True, index=out.index)
    for col in columns:
        values = pd.to_numeric(out[col], errors="coerce")
        bad = values.isna() & ok
        if bad.any():
            first = out[bad].iloc[0]
            where = f"{path.name} line {first['_line']}: user {user}, {column_date(first)}"
            example = f"{where}, {col} = {first[col]!r}"
            log.reject(f"{what}: row with an empty or non-numeric value", example, n=int(bad.sum()))
        ok &= values.notna()
        out[col] = values
    return out[ok]


def column_date(row: pd.Series) -> str:
    """The row's date for examples (``_ts`` when parsed, else ``?``)."""
    ts = row.get("_ts")
    return str(ts.date()) if isinstance(ts, pd.Timestamp) else "date ?"
