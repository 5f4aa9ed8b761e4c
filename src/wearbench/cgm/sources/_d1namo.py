"""D1NAMO diabetes subset (``d1namo``): ``<pid>/glucose.csv`` and ``<pid>/insulin.csv``.

``glucose.csv``: ``date, time, glucose, type, comments``; glucose in mmol/L. ``type = cgm``
rows are readings (~5 min); ``manual`` rows (finger-prick) become ``fingerstick`` events in
mg/dL. ``insulin.csv``: ``date, time, fast_insulin, slow_insulin, comment`` → ``bolus`` and
``basal`` events (U, doses). ``food.csv`` has no timestamps and is not read. Subject id = the
folder name (``001`` …).
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

_WHAT = "d1namo"
_FMT = ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M")


def _subjects(path: Path) -> list[Path]:
    if (path / "glucose.csv").is_file():
        return [path]
    root = path / "diabetes_subset" if (path / "diabetes_subset").is_dir() else path
    if not root.is_dir():
        raise WearbenchError(f"{path}: not a folder")
    found = sorted(p for p in root.iterdir() if (p / "glucose.csv").is_file())
    if not found:
        raise WearbenchError(f"{root}: no <subject>/glucose.csv folders")
    return found


def _timed(frame: pd.DataFrame, log: ImportLog) -> pd.DataFrame:
    frame = frame.copy()
    frame["_ts"] = frame["date"].str.strip() + " " + frame["time"].str.strip()
    return times_or_reject(frame, "_ts", _FMT, log, _WHAT)


def _insulin(folder: Path, subject: str, log: ImportLog) -> list[dict[str, object]]:
    file = folder / "insulin.csv"
    if not file.is_file():
        return []
    frame = _timed(
        read_csv_strings(
            file, ["date", "time", "fast_insulin", "slow_insulin"], log, label=f"{subject}/{file.name}"
        ),
        log,
    )
    rows: list[dict[str, object]] = []
    for col, kind in (("fast_insulin", "bolus"), ("slow_insulin", "basal")):
        dose = pd.to_numeric(frame[col].str.strip(), errors="coerce")
        for t, v, c in zip(frame["time"], dose, frame.get("comment", ""), strict=False):
            if pd.notna(v):
                rows.append(
                    {"subject_id": subject, "time": t, "kind": kind, "value": v, "unit": "U", "detail": c}
                )
    return rows


@cgm_loader("d1namo", formats="D1NAMO diabetes_subset/<pid>/glucose.csv (+ insulin.csv)", units="mmol/L")
def load_d1namo(path: Path, log: ImportLog) -> CGMData:
    """Load D1NAMO (the dataset folder, ``diabetes_subset`` or one subject folder); mg/dL out.

    Raises:
        WearbenchError: No subject folders, an empty/unreadable file, or a missing column.
    """
    path = Path(path)
    parts, events = [], []
    for folder in _subjects(path):
        subject = folder.name
        frame = _timed(
            read_csv_strings(
                folder / "glucose.csv",
                ["date", "time", "glucose", "type"],
                log,
                label=f"{subject}/glucose.csv",
            ),
            log,
        )
        frame = numbers_or_reject(frame, "glucose", log, _WHAT)
        frame["glucose"] = to_mgdl(frame["glucose"], "mmol/L")
        frame["subject_id"] = subject
        kind = frame["type"].str.strip().str.lower()
        for _, r in frame[kind == "manual"].iterrows():
            events.append(
                {"subject_id": subject, "time": r["time"], "kind": "fingerstick", "value": r["glucose"]}
                | {"unit": "mg/dL", "detail": r.get("comments", "")}
            )
        other = ~kind.isin(["cgm", "manual"])
        if other.any():
            first = frame[other].iloc[0]
            log.reject(
                f"{_WHAT}: unknown glucose type",
                f"{first['_where']}, type = {first['type']!r}",
                int(other.sum()),
            )
        parts.append(frame.loc[kind == "cgm", ["subject_id", "time", "glucose", "_where"]])
        events.extend(_insulin(folder, subject, log))
    readings = clean_readings(pd.concat(parts, ignore_index=True), _WHAT, log)
    return CGMData(
        readings, make_events(events), {"name": _WHAT, "params": {"path": str(path), "unit": "mmol/L"}}
    )
