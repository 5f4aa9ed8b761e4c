"""Nightscout ``entries.json`` (``nightscout``): a JSON array of entries.

Each ``type: sgv`` entry has ``sgv`` (mg/dL), ``date`` (ms since the Unix epoch, UTC) and
usually ``dateString`` (ISO 8601 with the uploader's UTC offset) and ``utcOffset`` (minutes).
Local wall-clock time is ``dateString`` as written (offset dropped); without an offset in
``dateString``, ``date`` + ``utcOffset``; with neither, UTC (noted). Other types (``mbg``,
``cal``) are counted and not used. Sensor error codes (``sgv`` < 20) fall out as out of range.
Subject id = file stem.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from wearbench._errors import WearbenchError
from wearbench._registry import registered
from wearbench.cgm._record import CGMData
from wearbench.cgm.sources._common import clean_readings
from wearbench.sources import ImportLog

cgm_loader = registered("cgm_loader")

_WHAT = "nightscout"


def _entries(path: Path) -> list[Any]:
    if not path.is_file():
        raise WearbenchError(f"{path}: not a file")
    text = path.read_text(encoding="utf-8-sig", errors="replace")
    if not text.strip():
        raise WearbenchError(f"{path}: line 1: empty file (expected a JSON array of entries)")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise WearbenchError(f"{path}: line {exc.lineno}: not valid JSON ({exc.msg})") from None
    if not isinstance(data, list):
        raise WearbenchError(f"{path}: line 1: expected a JSON array of entries, got {type(data).__name__}")
    return data


def _local_time(entry: dict[str, Any], log: ImportLog) -> pd.Timestamp | None:
    text = entry.get("dateString")
    if isinstance(text, str) and text.strip():
        ts = pd.Timestamp(text.strip())
        if ts.tzinfo is not None and not text.strip().endswith("Z"):
            return ts.tz_localize(None)
    if isinstance(entry.get("date"), int | float):
        ts = pd.Timestamp(int(entry["date"]), unit="ms")
        offset = entry.get("utcOffset")
        if isinstance(offset, int | float):
            return ts + pd.Timedelta(minutes=float(offset))
        log.note(f"{_WHAT}: entries without a UTC offset kept in UTC")
        return ts
    if isinstance(text, str) and text.strip():
        ts = pd.Timestamp(text.strip())
        log.note(f"{_WHAT}: entries without a UTC offset kept in UTC")
        return ts.tz_convert(None) if ts.tzinfo is not None else ts
    return None


def _row(entry: Any, i: int, path: Path, log: ImportLog) -> dict[str, Any] | None:
    where = f"{path.name} entry {i}"
    if not isinstance(entry, dict):
        log.reject(f"{_WHAT}: entry is not an object", f"{where}: {str(entry)[:40]!r}")
        return None
    kind = str(entry.get("type", "sgv"))
    if kind != "sgv":
        log.reject(f"{_WHAT}: entry type {kind!r} not used", where)
        return None
    try:
        time = _local_time(entry, log)
    except (ValueError, TypeError, OverflowError):
        time = None
    if time is None:
        log.reject(
            f"{_WHAT}: entry without a usable date/dateString", f"{where}: {entry.get('dateString')!r}"
        )
        return None
    value = pd.to_numeric(pd.Series([entry.get("sgv")]), errors="coerce").iloc[0]
    if pd.isna(value):
        log.reject(f"{_WHAT}: entry without a numeric sgv", f"{where}, {time}, sgv = {entry.get('sgv')!r}")
        return None
    return {"subject_id": path.stem, "time": time, "glucose": float(value), "_where": where}


@cgm_loader("nightscout", formats="Nightscout entries JSON array (.json)", units="mg/dL")
def load_nightscout(path: Path, log: ImportLog) -> CGMData:
    """Load a Nightscout entries JSON export (``sgv`` mg/dL, local wall clock).

    Raises:
        WearbenchError: Empty or invalid JSON, not an array, or no usable ``sgv`` entry.
    """
    path = Path(path)
    entries = _entries(path)
    log.read(path.name, len(entries))
    rows = [r for i, e in enumerate(entries) if (r := _row(e, i, path, log)) is not None]
    raw = pd.DataFrame(rows, columns=["subject_id", "time", "glucose", "_where"])
    raw["time"] = pd.to_datetime(raw["time"]).astype("datetime64[ns]")
    # Nightscout serves newest first: reverse into upload order so backward steps mean clock changes.
    raw = raw.iloc[::-1] if _newest_first(raw) else raw
    readings = clean_readings(raw, _WHAT, log)
    return CGMData(readings, None, {"name": _WHAT, "params": {"path": str(path)}})


def _newest_first(raw: pd.DataFrame) -> bool:
    if len(raw) < 2:
        return False
    step = raw["time"].diff().dropna()
    return bool((step < pd.Timedelta(0)).mean() > 0.5)
