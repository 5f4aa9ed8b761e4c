"""Shared cleaning for every real CGM loader: range, duplicates, clock changes, sensor warm-up.

A loader parses its format into a *raw* readings frame — ``subject_id``, ``time`` (naive local
wall clock), ``glucose`` (mg/dL, already converted) and ``_where`` (``"file line N"``, for
examples) — in file order, and hands it to :func:`clean_readings`, which applies the same rules
to every source, each one counted in the :class:`~wearbench.sources.ImportLog`:

* blocks written in the other glucose unit (mmol/L in a mg/dL file, or the reverse) are found
  from values and rate of change and converted, each a counted repair naming its rows, or the
  file is refused naming them (:mod:`wearbench.cgm.sources._units`);
* a second header line inside a file (two exports concatenated) starts a new segment: it is
  read as a header, never as a data row (:func:`read_csv_strings`);
* glucose outside :data:`PLAUSIBLE_MGDL` (20–600 mg/dL, 1.1–33.3 mmol/L) is rejected;
* time going backwards within a subject (a device clock change, or files concatenated out of
  order) is counted as ``clock went backwards`` and the rows are sorted into time order;
  forward jumps over :data:`JUMP` are counted as gaps and kept as gaps (nothing is filled);
* exact duplicates (same subject, time, glucose) are dropped; conflicting duplicates (same
  subject and time, different glucose) keep the first row in file order;
* readings within :data:`WARMUP` (2 h) after a sensor start are dropped, when the source marks
  sensor starts.
"""

from __future__ import annotations

import csv
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from wearbench._errors import WearbenchError
from wearbench.cgm._record import EVENT_COLUMNS, check_readings
from wearbench.cgm.sources._units import fix_units
from wearbench.sources import ImportLog

#: Glucose kept, mg/dL (inclusive); sensors report 40–400 (Dexcom) or 40–500 (Libre).
PLAUSIBLE_MGDL = (20.0, 600.0)
#: Sensor warm-up dropped after a marked sensor start.
WARMUP = pd.Timedelta(hours=2)
#: A forward step longer than this is reported as a gap (kept as a gap).
JUMP = pd.Timedelta(hours=1)


def read_csv_strings(
    path: Path,
    required: Sequence[str],
    log: ImportLog,
    *,
    header_line: int = 1,
    sep: str = ",",
    label: str | None = None,
) -> pd.DataFrame:
    """Read a delimited file as strings with ``_line`` (1-based file line) and count its rows.

    Args:
        path: The file.
        required: Columns the header must have.
        log: Import log (``rows_read`` counted under the file name).
        header_line: 1-based line number of the header (earlier lines are metadata).
        sep: Field separator.
        label: Name used in examples and ``rows_read`` (default: the file name).

    Raises:
        WearbenchError: Empty file, unreadable text, or a required column missing.
    """
    if not path.is_file():
        raise WearbenchError(f"{path}: not a file")
    if path.stat().st_size == 0:
        raise WearbenchError(f"{path}: line 1: empty file (expected a header with {', '.join(required)})")
    try:
        frame = pd.read_csv(
            path, dtype=str, keep_default_na=False, encoding="utf-8-sig", skiprows=header_line - 1, sep=sep
        )
    except pd.errors.EmptyDataError:
        raise WearbenchError(f"{path}: line {header_line}: no header (file too short)") from None
    except (pd.errors.ParserError, UnicodeDecodeError, csv.Error) as exc:
        detail = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
        raise WearbenchError(f"{path}: not a readable CSV ({detail})") from None
    frame.columns = [str(c).strip() for c in frame.columns]
    missing = [c for c in required if c not in frame.columns]
    if missing:
        found = ", ".join(str(c) for c in frame.columns[:8])
        raise WearbenchError(
            f"{path}: line {header_line}: missing column(s) {', '.join(missing)} (header has: {found})"
        )
    name = label or path.name
    frame["_where"] = [f"{name} line {i}" for i in range(header_line + 1, header_line + 1 + len(frame))]
    frame = _segments(frame, required, name, log)
    log.read(name, len(frame))
    return frame


def _segments(frame: pd.DataFrame, required: Sequence[str], name: str, log: ImportLog) -> pd.DataFrame:
    """Drop repeated header rows (concatenated exports), numbering the segments they start.

    A row whose required columns hold their own names is a header: it starts segment 1, 2, …
    (``_segment``; 0 before it). Its cells, keyed by the first header's column names, are kept in
    ``frame.attrs["segment_headers"][k]`` so a loader can read a unit that differs per segment.
    """
    cells = frame[list(required)].apply(lambda c: c.str.strip())
    is_header = (cells == pd.Series({c: c for c in required})).all(axis=1)
    frame["_segment"] = is_header.cumsum().astype(int)
    if not is_header.any():
        return frame
    heads = frame[is_header]
    columns = [c for c in frame.columns if not c.startswith("_")]
    frame.attrs["segment_headers"] = {
        int(seg): {c: str(row[c]).strip() for c in columns} | {"_where": str(row["_where"])}
        for seg, (_, row) in zip(heads["_segment"], heads.iterrows(), strict=True)
    }
    log.note(
        f"{name}: {len(heads)} further header line(s) inside the file (concatenated exports) each start "
        f"a new segment, read as a header (first at {heads['_where'].iloc[0]})"
    )
    out: pd.DataFrame = frame[~is_header].copy()
    out.attrs = frame.attrs
    return out


def times_or_reject(
    frame: pd.DataFrame, column: str, formats: Sequence[str], log: ImportLog, what: str
) -> pd.DataFrame:
    """Parse ``column`` into ``time`` trying ``formats`` in order; reject (counted) rows that fail."""
    text = frame[column].astype(str).str.strip()
    ts = pd.Series(pd.NaT, index=frame.index, dtype="datetime64[ns]")
    for fmt in formats:
        todo = ts.isna()
        if not todo.any():
            break
        ts[todo] = pd.to_datetime(text[todo], format=fmt, errors="coerce")
    bad = ts.isna()
    if bad.any():
        first = frame[bad].iloc[0]
        log.reject(
            f"{what}: unparseable {column}",
            f"{first['_where']}, {column} = {first[column]!r}",
            n=int(bad.sum()),
        )
    out = frame[~bad].copy()
    out["time"] = ts[~bad].astype("datetime64[ns]")
    return out


def numbers_or_reject(
    frame: pd.DataFrame, column: str, log: ImportLog, what: str, into: str = "glucose"
) -> pd.DataFrame:
    """Convert ``column`` to float into ``into``; reject (counted) empty or non-numeric rows."""
    values = pd.to_numeric(frame[column].astype(str).str.strip().str.replace(",", "."), errors="coerce")
    bad = values.isna() | ~np.isfinite(values.to_numpy(dtype=float, na_value=np.nan))
    if bad.any():
        first = frame[bad].iloc[0]
        when = first.get("time", "time ?")
        log.reject(
            f"{what}: empty or non-numeric {column}",
            f"{first['_where']}, {when}, {column} = {first[column]!r}",
            n=int(bad.sum()),
        )
    out: pd.DataFrame = frame[~bad].copy()
    out[into] = values[~bad].astype("float64")
    return out


def _span(delta: pd.Timedelta) -> str:
    """A readable duration: ``2 h``, ``6 h 40 min``, ``34 d 15 h 38 min``."""
    minutes = int(delta.total_seconds() // 60)
    d, rest = divmod(minutes, 1440)
    h, m = divmod(rest, 60)
    parts = [f"{d} d" if d else "", f"{h} h" if h else "", f"{m} min" if m else ""]
    return " ".join(p for p in parts if p) or f"{delta.total_seconds():g} s"


def _example(row: pd.Series, extra: str = "") -> str:
    head = f"{row['_where']}: subject {row['subject_id']}, {row['time']}"
    return f"{head}, glucose {row['glucose']:g} mg/dL{extra}"


def _reject_range(raw: pd.DataFrame, what: str, log: ImportLog) -> pd.DataFrame:
    g = raw["glucose"].to_numpy(dtype=float)
    bad = (g < PLAUSIBLE_MGDL[0]) | (g > PLAUSIBLE_MGDL[1])
    if bad.any():
        lo, hi = PLAUSIBLE_MGDL
        log.reject(
            f"{what}: glucose outside {lo:g}-{hi:g} mg/dL", _example(raw[bad].iloc[0]), n=int(bad.sum())
        )
    return raw[~bad]


def _clock(raw: pd.DataFrame, what: str, log: ImportLog) -> pd.DataFrame:
    """Count backward steps and long forward jumps per subject (file order); sort into time order."""
    step = raw.groupby("subject_id", sort=False)["time"].diff()
    back = step < pd.Timedelta(0)
    if back.any():
        row = raw[back].iloc[0]
        log.repair(
            f"{what}: clock went backwards (rows sorted into time order)",
            _example(row, f", {_span(-step[back].iloc[0])} earlier than the row before"),
            n=int(back.sum()),
        )
    jump = step > JUMP
    if jump.any():
        log.note(
            f"{what}: {int(jump.sum())} gap(s) longer than {_span(JUMP)} kept as gaps "
            f"(longest {_span(step[jump].max())}; e.g. before {raw[jump].iloc[0]['_where']})"
        )
    return raw.sort_values(["subject_id", "time"], kind="stable")


def _duplicates(raw: pd.DataFrame, what: str, log: ImportLog) -> pd.DataFrame:
    exact = raw.duplicated(["subject_id", "time", "glucose"], keep="first")
    if exact.any():
        log.repair(
            f"{what}: exact duplicate reading dropped", _example(raw[exact].iloc[0]), n=int(exact.sum())
        )
    raw = raw[~exact]
    clash = raw.duplicated(["subject_id", "time"], keep="first")
    if clash.any():
        row = raw[clash].iloc[0]
        kept = raw[(raw["subject_id"] == row["subject_id"]) & (raw["time"] == row["time"])].iloc[0]
        log.repair(
            f"{what}: conflicting duplicate (same time, other glucose) dropped, first kept",
            _example(row, f" (kept {kept['glucose']:g} from {kept['_where']})"),
            n=int(clash.sum()),
        )
    return raw[~clash]


def _warmup(raw: pd.DataFrame, starts: pd.DataFrame | None, what: str, log: ImportLog) -> pd.DataFrame:
    if starts is None or starts.empty or raw.empty:
        return raw
    drop = pd.Series(False, index=raw.index)
    for subject, start in starts[["subject_id", "time"]].itertuples(index=False):
        drop |= (raw["subject_id"] == subject) & (raw["time"] >= start) & (raw["time"] < start + WARMUP)
    if drop.any():
        log.reject(
            f"{what}: reading within {_span(WARMUP)} of a sensor start (warm-up)",
            _example(raw[drop].iloc[0]),
            n=int(drop.sum()),
        )
    return raw[~drop]


def clean_readings(
    raw: pd.DataFrame, what: str, log: ImportLog, *, sensor_starts: pd.DataFrame | None = None
) -> pd.DataFrame:
    """Apply the shared rules (module docstring) to raw readings in file order.

    Args:
        raw: ``subject_id``, ``time``, ``glucose`` (mg/dL), ``_where``, in file order.
        what: Source name for log kinds.
        log: Import log.
        sensor_starts: ``subject_id``, ``time`` of sensor starts, when the source marks them.

    Returns:
        Canonical readings (see :mod:`wearbench.cgm._record`).

    Raises:
        WearbenchError: When no reading is left.
    """
    raw = raw.reset_index(drop=True)
    raw = fix_units(raw, what, log)
    raw = _reject_range(raw, what, log)
    raw = _clock(raw, what, log)
    raw = _duplicates(raw, what, log)
    raw = _warmup(raw, sensor_starts, what, log)
    if raw.empty:
        raise WearbenchError(f"{what}: no usable glucose readings (see rejections: {dict(log.rejections)})")
    return check_readings(raw, what)


def make_events(rows: list[dict[str, object]]) -> pd.DataFrame | None:
    """An events table (``EVENT_COLUMNS``) sorted by subject and time, or None when empty."""
    if not rows:
        return None
    frame = pd.DataFrame(rows, columns=list(EVENT_COLUMNS))
    frame["subject_id"] = frame["subject_id"].astype(str)
    frame["time"] = pd.to_datetime(frame["time"]).astype("datetime64[ns]")
    frame["value"] = pd.to_numeric(frame["value"], errors="coerce").astype("float64")
    frame["unit"] = frame["unit"].astype(str)
    frame["detail"] = frame["detail"].fillna("").astype(str)
    return frame.sort_values(["subject_id", "time"], kind="stable").reset_index(drop=True)
