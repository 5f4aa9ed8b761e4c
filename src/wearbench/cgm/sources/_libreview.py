"""LibreView (FreeStyle Libre) CSV export (``libreview``).

Two metadata lines (``Glucose Data,Generated on,…`` / ``Patient,…``), then the header on line 3
(the header line is found among the first five lines by ``Device Timestamp``). Columns:
``Device, Serial Number, Device Timestamp, Record Type, Historic Glucose mg/dL`` (or
``… mmol/L``), ``Scan Glucose …``, ``Rapid-Acting Insulin (units)``, ``Carbohydrates (grams)``,
``Long-Acting Insulin Value (units)`` … Record types: 0 historic glucose (15-min; the readings),
1 scan (not used: counted), 4 insulin (bolus / basal U), 5 food (carbs g), 6 time change
(counted as a clock change; the clean-up sorts rows into time order). Timestamps are
``MM-DD-YYYY HH:MM`` (also with AM/PM, or ``YYYY-MM-DD HH:MM``). Subject id = file stem.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from wearbench._errors import WearbenchError
from wearbench._registry import registered
from wearbench.cgm._record import CGMData, to_mgdl
from wearbench.cgm.sources._common import (
    clean_readings,
    make_events,
    numbers_or_reject,
    read_csv_strings,
    times_or_reject,
)
from wearbench.sources import ImportLog

cgm_loader = registered("cgm_loader")

_WHAT = "libreview"
_TIME = "Device Timestamp"
_FMT = ("%m-%d-%Y %H:%M", "%m-%d-%Y %I:%M %p", "%Y-%m-%d %H:%M", "%m/%d/%Y %H:%M", "%Y-%m-%d %H:%M:%S")
_EVENTS = (
    ("4", "Rapid-Acting Insulin (units)", "bolus", "U"),
    ("4", "Long-Acting Insulin Value (units)", "basal", "U"),
    ("4", "Long-Acting Insulin (units)", "basal", "U"),
    ("5", "Carbohydrates (grams)", "carbs", "g"),
)


def _header_line(path: Path) -> int:
    try:
        with path.open(encoding="utf-8-sig", errors="replace") as fh:
            head = [fh.readline() for _ in range(5)]
    except OSError as exc:
        raise WearbenchError(f"{path}: unreadable ({type(exc).__name__})") from None
    for i, line in enumerate(head, start=1):
        if _TIME in line:
            return i
    if not any(line.strip() for line in head):
        raise WearbenchError(f"{path}: line 1: empty file (expected a LibreView header with {_TIME!r})")
    raise WearbenchError(f"{path}: lines 1-5: no LibreView header line with {_TIME!r}")


def _glucose_column(frame: pd.DataFrame, path: Path, line: int) -> tuple[str, str]:
    for unit in ("mg/dL", "mmol/L"):
        if f"Historic Glucose {unit}" in frame.columns:
            return f"Historic Glucose {unit}", unit
    raise WearbenchError(
        f"{path}: line {line}: no 'Historic Glucose mg/dL' or 'Historic Glucose mmol/L' column"
    )


def _events(frame: pd.DataFrame, subject: str) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    for rtype, col, kind, unit in _EVENTS:
        if col not in frame.columns:
            continue
        sel = frame[frame["Record Type"].str.strip() == rtype]
        values = pd.to_numeric(sel[col].str.strip(), errors="coerce")
        for t, v in zip(sel["time"], values, strict=True):
            if pd.notna(v):
                rows.append(
                    {"subject_id": subject, "time": t, "kind": kind, "value": v, "unit": unit, "detail": ""}
                )
    return rows


@cgm_loader("libreview", formats="LibreView / FreeStyle Libre CSV export (.csv)", units="mg/dL or mmol/L")
def load_libreview(path: Path, log: ImportLog) -> CGMData:
    """Load one LibreView CSV export (historic glucose; subject id = file stem; mg/dL out).

    Raises:
        WearbenchError: Empty file, no header, no historic-glucose column, or no usable reading.
    """
    path = Path(path)
    line = _header_line(path)
    frame = read_csv_strings(path, [_TIME, "Record Type"], log, header_line=line)
    col, unit = _glucose_column(frame, path, line)
    frame = times_or_reject(frame, _TIME, _FMT, log, _WHAT)
    rtype = frame["Record Type"].str.strip()
    for code, label in (
        ("1", "scan glucose (not used; historic kept)"),
        ("6", "time change record (device clock changed; not used, clock check applies)"),
    ):
        n = int((rtype == code).sum())
        if n:
            first = frame[rtype == code].iloc[0]
            log.reject(f"{_WHAT}: {label}", f"{first['_where']}, {first['time']}", n)
    hist = numbers_or_reject(frame[rtype == "0"], col, log, _WHAT)
    hist["glucose"] = to_mgdl(hist["glucose"], unit)
    hist["subject_id"] = path.stem
    readings = clean_readings(hist, _WHAT, log)
    events = make_events(_events(frame, path.stem))
    return CGMData(readings, events, {"name": _WHAT, "params": {"path": str(path), "unit": unit}})
