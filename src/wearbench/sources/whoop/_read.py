"""Reading one WHOOP export CSV into strings, with one-line errors for unreadable files."""

from __future__ import annotations

import difflib
from pathlib import Path

import pandas as pd

from wearbench._errors import WearbenchError
from wearbench.sources._report import ImportLog


def read_export(path: Path, required: tuple[str, ...], log: ImportLog) -> pd.DataFrame:
    """All cells of a WHOOP CSV as strings (NaN when empty); ``line`` holds the file line number.

    Raises:
        WearbenchError: Empty, unparseable or not UTF-8 file, or a required column missing
            (named, with the closest header names).
    """
    try:
        frame = pd.read_csv(path, dtype=str, skipinitialspace=True, encoding="utf-8-sig")
    except pd.errors.EmptyDataError:
        raise WearbenchError(f"{path}: file is empty (expected a WHOOP CSV header)") from None
    except (pd.errors.ParserError, UnicodeDecodeError, OSError) as exc:
        detail = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
        raise WearbenchError(f"{path}: cannot read as CSV: {detail}") from None
    frame.columns = [str(c).strip() for c in frame.columns]
    for col in required:
        if col not in frame.columns:
            near = difflib.get_close_matches(col, list(frame.columns), n=2, cutoff=0.6)
            hint = f"; closest: {', '.join(repr(n) for n in near)}" if near else ""
            raise WearbenchError(f"{path}: line 1: missing column {col!r}{hint} (is this a WHOOP export?)")
    frame.insert(0, "line", range(2, len(frame) + 2))
    log.read(path.name, len(frame))
    return frame


def numeric(frame: pd.DataFrame, column: str, file: str, user: str, log: ImportLog) -> pd.Series:
    """``column`` as floats; a non-empty cell that is not a number is set missing (counted repair)."""
    if column not in frame:
        return pd.Series(float("nan"), index=frame.index)
    cells = frame[column]
    values = pd.to_numeric(cells, errors="coerce").astype("float64")
    bad = cells.notna() & values.isna()
    for _, row in frame[bad].head(5).iterrows():
        example = f"{file} line {row['line']}, user {user}, column {column!r} = {row[column]!r}"
        log.repair(f"whoop: {column}: not a number, set missing", example, n=0)
    if bad.any():
        log.repair(f"whoop: {column}: not a number, set missing", n=int(bad.sum()))
    return values
