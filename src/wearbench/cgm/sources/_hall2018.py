"""Hall et al. 2018 glucotypes CGM (``hall2018``).

Reads ``example_data_hall.csv`` (``id, time, gl, diagnosis``; 5-min CGM, mg/dL, 19 subjects) —
or ``hall_meals_std.tsv`` (``Meal, userID, time, GlucoseValue``; CGM around standard meals) when
given that file. From the dataset folder it also reads ``example_meals_hall.csv`` (``id, meal,
mealtime``) as ``meal`` events (value NaN, detail = meal code such as ``PB 1``).
"""

from __future__ import annotations

from pathlib import Path

from wearbench._errors import WearbenchError
from wearbench._registry import registered
from wearbench.cgm._record import CGMData
from wearbench.cgm.sources._common import (
    clean_readings,
    make_events,
    numbers_or_reject,
    read_csv_strings,
    times_or_reject,
)
from wearbench.sources import ImportLog

cgm_loader = registered("cgm_loader")

_WHAT = "hall2018"
_FMT = ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M")
#: file name → (separator, subject column, time column, glucose column)
_LAYOUTS = {
    "example_data_hall.csv": (",", "id", "time", "gl"),
    "hall_meals_std.tsv": ("\t", "userID", "time", "GlucoseValue"),
}


def _readings_file(path: Path) -> Path:
    if path.is_file():
        return path
    if path.is_dir() and (path / "example_data_hall.csv").is_file():
        return path / "example_data_hall.csv"
    raise WearbenchError(f"{path}: expected example_data_hall.csv, hall_meals_std.tsv or their folder")


def _meals(folder: Path, log: ImportLog) -> list[dict[str, object]]:
    file = folder / "example_meals_hall.csv"
    if not file.is_file():
        return []
    frame = times_or_reject(
        read_csv_strings(file, ["id", "meal", "mealtime"], log), "mealtime", _FMT, log, _WHAT
    )
    return [
        {"subject_id": s, "time": t, "kind": "meal", "value": float("nan"), "unit": "", "detail": m}
        for s, t, m in zip(frame["id"], frame["time"], frame["meal"], strict=True)
    ]


@cgm_loader(
    "hall2018", formats="Hall 2018 example_data_hall.csv / hall_meals_std.tsv or folder", units="mg/dL"
)
def load_hall2018(path: Path, log: ImportLog) -> CGMData:
    """Load Hall et al. 2018 CGM (mg/dL; subject id = the study id such as ``1636-69-001``).

    Raises:
        WearbenchError: Unknown file, empty/unreadable file, or a missing column.
    """
    path = Path(path)
    file = _readings_file(path)
    sep, sid, tcol, gcol = _LAYOUTS.get(
        file.name, ("\t" if file.suffix == ".tsv" else ",", "id", "time", "gl")
    )
    frame = read_csv_strings(file, [sid, tcol, gcol], log, sep=sep)
    frame = times_or_reject(frame, tcol, _FMT, log, _WHAT)
    frame = numbers_or_reject(frame, gcol, log, _WHAT)
    frame["subject_id"] = frame[sid].str.strip()
    readings = clean_readings(frame, _WHAT, log)
    events = make_events(_meals(file.parent, log)) if path.is_dir() else None
    return CGMData(readings, events, {"name": _WHAT, "params": {"path": str(path), "file": file.name}})
