"""T1D-UOM glucose folder (``t1d-uom``): ``Glucose Data/UoMGlucose<ID>.csv``.

Columns ``bg_ts, value``; ``value`` in mmol/L (converted to mg/dL). The dataset README says
``bg_ts`` is MM/DD/YYYY HH:MM, but the files are day-first (``13/10/2023 00:00`` occurs; a
UK study), so DD/MM/YYYY HH:MM is parsed. Subject id = ``<ID>``. The files hold many exact
duplicate rows (e.g. 7,048 in UoMGlucose2301.csv), dropped and counted. Given the dataset folder,
insulin and nutrition events are read too (see ``_t1d_uom_events``).
"""

from __future__ import annotations

import re
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
from wearbench.cgm.sources._t1d_uom_events import t1d_uom_events
from wearbench.sources import ImportLog

cgm_loader = registered("cgm_loader")

_WHAT = "t1d-uom"
_NAME = re.compile(r"UoMGlucose(\w+)\.csv$", re.IGNORECASE)


def _files(path: Path) -> list[Path]:
    if path.is_file():
        return [path]
    folder = path / "Glucose Data" if (path / "Glucose Data").is_dir() else path
    if not folder.is_dir():
        raise WearbenchError(f"{path}: not a file or folder")
    files = sorted(p for p in folder.iterdir() if _NAME.search(p.name))
    if not files:
        raise WearbenchError(f"{folder}: no UoMGlucose<ID>.csv files")
    return files


@cgm_loader("t1d-uom", formats="T1D-UOM Glucose Data folder or UoMGlucose<ID>.csv", units="mmol/L")
def load_t1d_uom(path: Path, log: ImportLog) -> CGMData:
    """Load T1D-UOM CGM (the dataset folder, its ``Glucose Data`` folder, or one file); mg/dL out.

    Raises:
        WearbenchError: No glucose files, an empty/unreadable file, or a missing column.
    """
    path = Path(path)
    parts = []
    for file in _files(path):
        match = _NAME.search(file.name)
        frame = read_csv_strings(file, ["bg_ts", "value"], log)
        frame = times_or_reject(frame, "bg_ts", ("%d/%m/%Y %H:%M", "%d/%m/%Y %H:%M:%S"), log, _WHAT)
        frame = numbers_or_reject(frame, "value", log, _WHAT)
        frame["glucose"] = to_mgdl(frame["glucose"], "mmol/L")
        frame["subject_id"] = match.group(1) if match else file.stem
        parts.append(frame[["subject_id", "time", "glucose", "_where"]])
    readings = clean_readings(pd.concat(parts, ignore_index=True), _WHAT, log)
    log.note(f"{_WHAT}: bg_ts read day-first (DD/MM/YYYY), value mmol/L x 18.0156 -> mg/dL")
    root = path if (path / "Glucose Data").is_dir() else None
    events = make_events(t1d_uom_events(root, set(readings["subject_id"]), log)) if root else None
    return CGMData(readings, events, {"name": _WHAT, "params": {"path": str(path), "unit": "mmol/L"}})
