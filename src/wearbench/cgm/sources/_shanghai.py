"""ShanghaiT1DM / T2DM (``shanghai``): one spreadsheet per patient period.

Files ``<patient>_<period>_<date>.xlsx`` with columns ``Date`` (Excel serial day number or
``YYYY/M/D HH:MM`` text), ``CGM (mg / dl)`` (15-min), ``CBG (mg / dl)``, ``Dietary intake``,
``Insulin dose - s.c.`` (text such as ``Humulin R, 5 IU``), ``CSII - bolus insulin (… IU)``,
``CSII - basal insulin (… IU / H)``. Column names vary slightly; they are matched by prefix.
Subject id = patient (periods merged). CGM values carry Excel float noise (``113.39999…``)
and are rounded to 0.1 mg/dL. Events: ``bolus`` (U; CSII bolus and s.c. doses), ``basal``
(U/h), ``fingerstick`` (CBG, mg/dL), ``meal`` (dietary text; ``data not available`` skipped).
Legacy ``.xls`` (BIFF8) files are read with the small stdlib reader in ``_xls``; ``.xlsx`` with
the xlsx reader of the Fitbit overview loader.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from wearbench._errors import WearbenchError
from wearbench._registry import registered
from wearbench.cgm._record import CGMData
from wearbench.cgm.sources._common import clean_readings, make_events, numbers_or_reject, times_or_reject
from wearbench.cgm.sources._xls import read_xls_rows
from wearbench.sources import ImportLog
from wearbench.sources.fitbit import read_xlsx_rows

cgm_loader = registered("cgm_loader")

_WHAT = "shanghai"
_EXCEL_EPOCH = pd.Timestamp("1899-12-30")
_DOSE = re.compile(r"(\d+(?:\.\d+)?)\s*IU", re.IGNORECASE)
_PREFIX = {
    "date": "date",
    "cgm": "cgm",
    "cbg": "cbg",
    "diet": "dietary intake",
    "sc": "insulin dose - s.c",
    "bolus": "csii - bolus",
    "basal": "csii - basal",
}


def _files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise WearbenchError(f"{path}: not a file or folder")
    sub = [p for p in sorted(path.iterdir()) if p.is_dir() and p.name.lower().startswith("shanghai_t")]
    folders = sub or [path]
    files = [f for d in folders for f in sorted(d.iterdir()) if re.match(r"\d+_\d+_\d+\.xlsx?$", f.name)]
    if not files:
        raise WearbenchError(f"{path}: no <patient>_<period>_<date>.xlsx files")
    return files


def _table(file: Path, log: ImportLog) -> pd.DataFrame:
    rows = read_xls_rows(file) if file.suffix.lower() == ".xls" else read_xlsx_rows(file)
    if not rows or not any(c.strip() for c in rows[0]):
        raise WearbenchError(f"{file}: row 1: empty sheet (expected a header with Date, CGM (mg / dl))")
    header = [" ".join(c.split()).lower() for c in rows[0]]
    cols: dict[str, str] = {}
    for key, prefix in _PREFIX.items():
        idx = next((i for i, h in enumerate(header) if h.startswith(prefix)), None)
        if idx is not None:
            cols[key] = str(idx)
    missing = [k for k in ("date", "cgm") if k not in cols]
    if missing:
        raise WearbenchError(
            f"{file}: row 1: missing column(s) {', '.join(missing)} (header has: {', '.join(rows[0][:6])})"
        )
    width = len(header)
    body = [r + [""] * (width - len(r)) for r in rows[1:]]
    frame = pd.DataFrame(
        body, columns=[str(i) for i in range(max(width, *(len(r) for r in body)) if body else width)]
    )
    frame = frame.rename(columns={v: k for k, v in cols.items()})
    frame["_where"] = [f"{file.name} row {i}" for i in range(2, len(frame) + 2)]
    log.read(file.name, len(frame))
    return frame


def _times(frame: pd.DataFrame, log: ImportLog) -> pd.DataFrame:
    serial = pd.to_numeric(frame["date"].str.strip(), errors="coerce")
    from_serial = (_EXCEL_EPOCH + pd.to_timedelta(serial, unit="D")).dt.round("s")
    frame = frame.copy()
    frame["_date"] = frame["date"].where(serial.isna(), from_serial.dt.strftime("%Y-%m-%d %H:%M:%S"))
    fmts = ("%Y-%m-%d %H:%M:%S", "%Y/%m/%d %H:%M", "%Y/%m/%d %H:%M:%S", "%Y-%m-%d %H:%M")
    out = times_or_reject(frame.rename(columns={"_date": "Date"}), "Date", fmts, log, _WHAT)
    return out.drop(columns=["Date"])


def _events(frame: pd.DataFrame, subject: str) -> list[dict[str, object]]:
    rows: list[dict[str, object]] = []
    base = {"subject_id": subject}
    for key, kind, unit in (
        ("bolus", "bolus", "U"),
        ("basal", "basal", "U/h"),
        ("cbg", "fingerstick", "mg/dL"),
    ):
        if key in frame.columns:
            values = pd.to_numeric(frame[key].str.strip(), errors="coerce")
            for t, v in zip(frame["time"], values, strict=True):
                if pd.notna(v):
                    rows.append(base | {"time": t, "kind": kind, "value": v, "unit": unit, "detail": ""})
    for key, kind in (("sc", "bolus"), ("diet", "meal")):
        if key not in frame.columns:
            continue
        for t, text in zip(frame["time"], frame[key].str.strip(), strict=True):
            if not text or text.lower() == "data not available":
                continue
            dose = _DOSE.search(text) if kind == "bolus" else None
            value = float(dose.group(1)) if dose else float("nan")
            rows.append(
                base | {"time": t, "kind": kind, "value": value, "unit": "U" if dose else "", "detail": text}
            )
    return rows


@cgm_loader("shanghai", formats="ShanghaiT1DM/T2DM folder or <patient>_<period>_<date>.xlsx", units="mg/dL")
def load_shanghai(path: Path, log: ImportLog) -> CGMData:
    """Load ShanghaiT1DM/T2DM spreadsheets (15-min CGM, mg/dL; subject id = patient number).

    Raises:
        WearbenchError: No files, an unreadable/empty sheet, a missing column, or no readings.
    """
    path = Path(path)
    parts, events = [], []
    for file in _files(path):
        subject = file.name.split("_")[0]
        frame = _times(_table(file, log), log)
        events.extend(_events(frame, subject))
        cgm = frame[frame["cgm"].str.strip() != ""]
        cgm = numbers_or_reject(cgm, "cgm", log, _WHAT)
        cgm["glucose"] = cgm["glucose"].round(1)
        cgm["subject_id"] = subject
        parts.append(cgm[["subject_id", "time", "glucose", "_where"]])
    log.note(f"{_WHAT}: CGM rounded to 0.1 mg/dL (Excel float noise); rows without CGM are event-only rows")
    readings = clean_readings(pd.concat(parts, ignore_index=True), _WHAT, log)
    return CGMData(readings, make_events(events), {"name": _WHAT, "params": {"path": str(path)}})
