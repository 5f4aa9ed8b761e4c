"""Dexcom Clarity CSV export (``dexcom-clarity``).

One header line (``Index, Timestamp (YYYY-MM-DDThh:mm:ss), Event Type, Event Subtype, …,
Glucose Value (mg/dL)`` — or ``(mmol/L)`` in mmol exports), then rows of patient/device info and
alert settings (no timestamp, skipped), then ``EGV`` rows (5-min sensor glucose) and events.
``Low``/``High`` EGV text (below 40 / above 400 mg/dL) is repaired to 39 / 401 mg/dL (mmol/L
exports likewise, exactly 39 / 401 mg/dL after conversion) and counted, so time below/above
range stays right. Events: ``Insulin`` (Fast-Acting → bolus U, Long-Acting → basal U),
``Carbs`` (g), ``Exercise`` (duration, min), ``Calibration`` (fingerstick, mg/dL). Rows whose
type or subtype says ``Sensor Start`` mark sensor starts (2-h warm-up dropped). The subject id
is the file stem. Two exports concatenated into one file are read per segment: a header line
inside the file starts a segment with its own glucose unit (``Glucose Value (mmol/L)`` after a
``(mg/dL)`` export), and blocks written in the other unit are found from the values
(:mod:`wearbench.cgm.sources._units`).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from wearbench._errors import WearbenchError
from wearbench._registry import registered
from wearbench.cgm._record import MMOL_TO_MGDL, CGMData, to_mgdl
from wearbench.cgm.sources._common import (
    clean_readings,
    make_events,
    numbers_or_reject,
    read_csv_strings,
    times_or_reject,
)
from wearbench.sources import ImportLog

cgm_loader = registered("cgm_loader")

_TIME = "Timestamp (YYYY-MM-DDThh:mm:ss)"
_FORMATS = ("%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M")
_TEXT_MGDL = {"low": 39.0, "high": 401.0}
_WHAT = "dexcom-clarity"


def _glucose_column(frame: pd.DataFrame, path: Path) -> tuple[str, str]:
    for col, unit in (("Glucose Value (mg/dL)", "mg/dL"), ("Glucose Value (mmol/L)", "mmol/L")):
        if col in frame.columns:
            return col, unit
    raise WearbenchError(
        f"{path}: line 1: no 'Glucose Value (mg/dL)' or 'Glucose Value (mmol/L)' column "
        f"(header has: {', '.join(map(str, frame.columns[:8]))})"
    )


def _by_unit(
    egv: pd.DataFrame, headers: dict[int, dict[str, str]], col: str, unit: str, path: Path
) -> list[tuple[str, pd.DataFrame]]:
    """EGV rows grouped by the glucose unit their segment's header declares.

    A second header inside the file (two exports concatenated) may declare the other unit in the
    glucose column's place: ``Glucose Value (mmol/L)`` where the first says ``(mg/dL)``.

    Raises:
        WearbenchError: A later header without a glucose column in that place.
    """
    units = pd.Series(unit, index=egv.index)
    for seg, header in headers.items():
        text = header.get(col, "").lower()
        seg_unit = "mmol/L" if "mmol/l" in text else "mg/dL" if "mg/dl" in text else None
        if seg_unit is None:
            raise WearbenchError(
                f"{path}: {header['_where']}: a further header has {header.get(col, '')!r} where the first "
                f"has {col!r} (expected a Glucose Value column in mg/dL or mmol/L)"
            )
        units[egv["_segment"] == seg] = seg_unit
    return [(u, egv[units == u]) for u in ("mg/dL", "mmol/L") if (units == u).any()] or [(unit, egv)]


def _repair_text(egv: pd.DataFrame, col: str, unit: str, log: ImportLog) -> pd.DataFrame:
    egv = egv.copy()
    text = egv[col].astype(str).str.strip().str.lower()
    for word, mgdl in _TEXT_MGDL.items():
        hit = text == word
        if hit.any():
            first = egv[hit].iloc[0]
            value = mgdl if unit == "mg/dL" else mgdl / MMOL_TO_MGDL
            log.repair(
                f"{_WHAT}: EGV '{word.title()}' set to {mgdl:g} mg/dL",
                f"{first['_where']}, {first['time']}, {col} = {first[col]!r}",
                n=int(hit.sum()),
            )
            egv.loc[hit, col] = repr(value)
    return egv


def _events(rows: pd.DataFrame, subject: str, col: str, unit: str) -> list[dict[str, object]]:
    out: list[dict[str, object]] = []
    for _, r in rows.iterrows():
        kind, sub = str(r["Event Type"]).strip(), str(r["Event Subtype"]).strip()
        base = {"subject_id": subject, "time": r["time"], "detail": sub}
        if kind == "Insulin":
            is_basal = "long" in sub.lower()
            out.append(
                base
                | {"kind": "basal" if is_basal else "bolus", "value": r["Insulin Value (u)"], "unit": "U"}
            )
        elif kind == "Carbs":
            out.append(base | {"kind": "carbs", "value": r["Carb Value (grams)"], "unit": "g"})
        elif kind == "Exercise":
            minutes = _minutes(str(r.get("Duration (hh:mm:ss)", "")))
            out.append(base | {"kind": "exercise", "value": minutes, "unit": "min"})
        elif kind == "Calibration":
            mg = to_mgdl(pd.to_numeric(pd.Series([r[col]]), errors="coerce"), unit)[0]
            out.append(base | {"kind": "fingerstick", "value": mg, "unit": "mg/dL"})
    return out


def _minutes(text: str) -> float:
    """``hh:mm:ss`` → minutes (NaN when empty or malformed)."""
    parts = text.strip().split(":")
    try:
        h, m, s = (float(p) for p in parts) if len(parts) == 3 else (float("nan"),) * 3
    except ValueError:
        return float("nan")
    return h * 60 + m + s / 60


def _sensor_starts(rows: pd.DataFrame, subject: str) -> pd.DataFrame:
    label = (rows["Event Type"].astype(str) + " " + rows["Event Subtype"].astype(str)).str.lower()
    hit = label.str.contains("sensor start", regex=False)
    return pd.DataFrame({"subject_id": subject, "time": rows.loc[hit, "time"]})


@cgm_loader("dexcom-clarity", formats="Dexcom Clarity CSV export (.csv)", units="mg/dL or mmol/L")
def load_dexcom_clarity(path: Path, log: ImportLog) -> CGMData:
    """Load one Dexcom Clarity CSV export (subject id = file stem; glucose in mg/dL).

    Raises:
        WearbenchError: Empty/unreadable file, missing columns, or no usable EGV row.
    """
    path = Path(path)
    frame = read_csv_strings(path, [_TIME, "Event Type", "Event Subtype"], log)
    col, unit = _glucose_column(frame, path)
    timed = frame[frame[_TIME].str.strip() != ""]
    log.note(f"{_WHAT}: {len(frame) - len(timed)} untimed header row(s) (patient, device, alerts) skipped")
    timed = times_or_reject(timed, _TIME, _FORMATS, log, _WHAT)
    subject = path.stem
    is_egv = timed["Event Type"].str.strip() == "EGV"
    parts = []
    for seg_unit, rows in _by_unit(timed[is_egv], frame.attrs.get("segment_headers", {}), col, unit, path):
        egv = numbers_or_reject(_repair_text(rows, col, seg_unit, log), col, log, _WHAT)
        egv["glucose"] = to_mgdl(egv["glucose"], seg_unit)
        parts.append(egv)
    egv = pd.concat(parts).sort_index()
    egv["subject_id"] = subject
    starts = _sensor_starts(timed[~is_egv], subject)
    readings = clean_readings(egv, _WHAT, log, sensor_starts=starts)
    events = make_events(_events(timed[~is_egv], subject, col, unit))
    return CGMData(readings, events, {"name": _WHAT, "params": {"path": str(path), "unit": unit}})
