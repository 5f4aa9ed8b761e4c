"""Day/month order of a date column: proven by the data, stated by the mapping, or refused.

A cell such as ``04/12/2016`` reads as 4 December or as 12 April. Without ``date.format`` the
loader scans the whole date column first: a first field above 12 proves day/month order, a
second field above 12 proves month/day order; if no field proves either, or both orders occur,
the import is refused with one line naming file, column and the fix. With a stated format that
has both ``%d`` and ``%m``, the scan refuses a format the data contradict (cells unreadable as
stated but all readable with day and month swapped).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from wearbench._errors import WearbenchError
from wearbench.sources._report import ImportLog
from wearbench.sources.tabular._mapping import Mapping
from wearbench.sources.tabular._read import NUMERIC_DATE, chunks

_LINE = "__line__"


@dataclass
class _Scan:
    """What the scan of one date column found (counts and the first example of each kind)."""

    numeric: int = 0
    day_first: int = 0
    month_first: int = 0
    day_example: str = ""
    month_example: str = ""
    stated_bad: int = 0
    swapped_bad: int = 0
    stated_example: str = ""

    def add(self, file: str, chunk: pd.DataFrame, column: str, fmt: str | None) -> None:
        text = chunk[column].astype("string").str.strip()
        parts = text.str.extract(NUMERIC_DATE)
        ok = parts[0].notna()
        self.numeric += int(ok.sum())
        a = pd.to_numeric(parts[0], errors="coerce")
        b = pd.to_numeric(parts[1], errors="coerce")
        for mask, attr in ((a > 12, "day"), (b > 12, "month")):
            n = int(mask.fillna(False).sum())
            setattr(self, f"{attr}_first", getattr(self, f"{attr}_first") + n)
            if n and not getattr(self, f"{attr}_example"):
                pos = int(mask.fillna(False).to_numpy().argmax())
                setattr(self, f"{attr}_example", _cell(file, chunk, column, pos))
        if fmt is not None and "%d" in fmt and "%m" in fmt:
            self._check(file, chunk, column, text, fmt)

    def _check(self, file: str, chunk: pd.DataFrame, column: str, text: pd.Series, fmt: str) -> None:
        given = text.notna() & (text != "")
        swapped = fmt.replace("%d", "\0").replace("%m", "%d").replace("\0", "%m")
        cells = text.astype(object)
        bad = given & pd.to_datetime(cells, format=fmt, errors="coerce").isna()
        self.stated_bad += int(bad.sum())
        self.swapped_bad += int((given & pd.to_datetime(cells, format=swapped, errors="coerce").isna()).sum())
        if bad.any() and not self.stated_example:
            self.stated_example = _cell(file, chunk, column, int(bad.to_numpy().argmax()))


def _cell(file: str, chunk: pd.DataFrame, column: str, pos: int) -> str:
    return f"{file} line {chunk[_LINE].iloc[pos]}: {chunk[column].iloc[pos]!r}"


def _fix(column: str, fmt: str) -> str:
    return f'state the order in the mapping: date: {{column: {column}, format: "{fmt}"}}'


def date_order(data: Path, mp: Mapping, delimiter: str, rows: int, log: ImportLog) -> str | None:
    """``"DMY"`` or ``"MDY"`` for a numeric ``A/B/YYYY`` date column without ``date.format``, else None.

    Args:
        data: The data file.
        mp: Its mapping (date column and stated format).
        delimiter: CSV field separator.
        rows: Rows per chunk while scanning.
        log: Gets a note saying which order the data proved, with an example cell.

    Raises:
        WearbenchError: One line naming file, column and the fix when the order is ambiguous
            (no day or month field above 12), mixed, or contradicts the stated ``date.format``.
    """
    col = mp.date_column
    scan = _Scan()
    for chunk in chunks(data, [col], delimiter, rows):
        if pd.api.types.is_datetime64_any_dtype(chunk[col]):
            return None
        scan.add(data.name, chunk, col, mp.date_format)
    where = f"{data}: column {col!r}"
    if mp.date_format is not None:
        if scan.stated_bad and scan.swapped_bad == 0:
            raise WearbenchError(
                f"{where}: {scan.stated_bad} date(s) unreadable as {mp.date_format!r} (e.g. "
                f"{scan.stated_example}) but all read with day and month swapped; fix date.format in "
                f"{mp.path.name}"
            )
        return None
    if scan.numeric == 0:
        return None
    if scan.day_first and scan.month_first:
        raise WearbenchError(
            f"{where}: dates mix day/month ({scan.day_example}) and month/day ({scan.month_example}) "
            f"order; fix the file or {_fix(col, '%d/%m/%Y')} in {mp.path.name}"
        )
    if not scan.day_first and not scan.month_first:
        raise WearbenchError(
            f"{where}: ambiguous dates: all {scan.numeric} numeric dates read both as day/month and "
            f"month/day (no field above 12); {_fix(col, '%d/%m/%Y')} or '%m/%d/%Y' in {mp.path.name}"
        )
    order, n, example = (
        ("DMY", scan.day_first, scan.day_example)
        if scan.day_first
        else ("MDY", scan.month_first, scan.month_example)
    )
    words = "day/month/year" if order == "DMY" else "month/day/year"
    log.note(f"csv: column {col!r} read as {words}: {n} date(s) prove it (e.g. {example})")
    return order
