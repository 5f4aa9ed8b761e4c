"""Readers both Fitbit layouts share: checked CSV and JSON reads that fail in one line, never deep."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from wearbench._errors import WearbenchError
from wearbench.sources._report import ImportLog


def read_csv_checked(path: Path, required: Sequence[str], name: str | None = None) -> pd.DataFrame:
    """Read a CSV (plain, ``.gz`` or a one-file ``.zip``) as text columns and check its header.

    Args:
        path: The file.
        required: Columns that must be in the header.
        name: Name used in messages (default: the file name).

    Returns:
        The table, every column as text (``line`` column added: the 1-based file line of the row).

    Raises:
        WearbenchError: Empty or unreadable file, or a required column missing (one line naming the file).
    """
    label = name or path.name
    try:
        frame = pd.read_csv(path, dtype=str, keep_default_na=False, skipinitialspace=True)
    except pd.errors.EmptyDataError:
        raise WearbenchError(f"{label}: empty file (no header line)") from None
    except (pd.errors.ParserError, UnicodeDecodeError, OSError, ValueError) as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise WearbenchError(f"{label}: unreadable CSV ({first})") from None
    frame.columns = [str(c).strip() for c in frame.columns]
    missing = [c for c in required if c not in frame.columns]
    if missing:
        raise WearbenchError(
            f"{label}: line 1: missing column(s) {', '.join(missing)} (header has {', '.join(frame.columns)})"
        )
    frame["line"] = np.arange(2, len(frame) + 2)
    return frame


def numbers_or_reject(
    frame: pd.DataFrame, columns: Sequence[str], label: str, log: ImportLog
) -> pd.DataFrame:
    """Convert ``columns`` to float; drop rows where one is empty or not a number (a counted rejection).

    A truncated last line (the file cut mid-row) shows up here: its trailing columns are empty.
    """
    out = frame.copy()
    bad = pd.Series(False, index=out.index)
    for col in columns:
        values = pd.to_numeric(out[col].str.strip(), errors="coerce")
        wrong = values.isna()
        for _, row in out[wrong & ~bad].head(3).iterrows():
            log.reject(
                f"{label}: row with a missing or non-numeric value",
                f"{label} line {row['line']}: user {row.get('Id', '?')}, column {col} = {row[col]!r}",
                n=0,
            )
        bad |= wrong
        out[col] = values
    if bad.any():
        log.reject(f"{label}: row with a missing or non-numeric value", n=int(bad.sum()))
    return out[~bad]


def dates_or_reject(
    frame: pd.DataFrame, column: str, fmt: str, label: str, log: ImportLog
) -> tuple[pd.DataFrame, pd.Series]:
    """Parse ``column`` with ``fmt``; drop rows that do not parse (a counted rejection).

    Returns:
        The kept rows and their parsed timestamps (aligned index).
    """
    stamps = pd.to_datetime(frame[column].str.strip(), format=fmt, errors="coerce")
    bad = stamps.isna()
    if bad.any():
        kind = f"{label}: row with an unreadable {column}"
        for _, row in frame[bad].head(3).iterrows():
            log.reject(
                kind, f"{label} line {row['line']}: user {row.get('Id', '?')}, {column} = {row[column]!r}", 0
            )
        log.reject(kind, n=int(bad.sum()))
    return frame[~bad], stamps[~bad]


def load_json_list(
    path: Path, label: str, keys: Sequence[str], log: ImportLog | None = None
) -> list[dict[str, Any]]:
    """Read a Fitbit JSON export file: a list of objects, each with ``keys``.

    With ``log``, a record that is not an object or lacks a key is rejected and counted (kind
    ``"<file>: record not an object or missing a field, rejected"``) and the others are kept.

    Raises:
        WearbenchError: Unreadable or truncated JSON (names the line and column), or the wrong shape
            (names the record index; per record only without ``log``).
    """
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise WearbenchError(f"{label}: unreadable ({type(exc).__name__})") from None
    if not text.strip():
        raise WearbenchError(f"{label}: empty file")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise WearbenchError(
            f"{label}: line {exc.lineno}, column {exc.colno}: invalid JSON ({exc.msg})"
        ) from None
    if not isinstance(data, list):
        raise WearbenchError(f"{label}: expected a JSON list of records, found {type(data).__name__}")
    kept = []
    for i, record in enumerate(data):
        if not isinstance(record, dict):
            problem = f"{label}: record {i}: expected an object, found {type(record).__name__}"
        elif absent := [k for k in keys if k not in record]:
            problem = f"{label}: record {i}: missing field(s) {', '.join(absent)}"
        else:
            kept.append(record)
            continue
        if log is None:
            raise WearbenchError(problem)
        log.reject(f"{path.name}: record not an object or missing a field, rejected", problem)
    return kept
