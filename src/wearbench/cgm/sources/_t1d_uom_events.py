"""T1D-UOM events: ``Insulin Data/Bolus Data``, ``Insulin Data/Basal Data`` and ``Nutrition Data``.

* ``UoMBolus<ID>.csv`` (``bolus_ts, bolus_dose``) → ``bolus`` (U).
* ``UoMBasal<ID>.csv`` (``basal_ts, basal_dose, insulin_kind``) → ``basal``. ``insulin_kind R``
  (rapid-acting, pump) rows are rates (U/h: many per day, a few tenths to ~2, summing to far
  more than a daily dose); ``L`` (long-acting injection) rows are doses (U, about one a day).
  This reading is inferred from the data (the README says only "basal_dose").
* ``UoMNutrition<ID>.csv`` (``meal_ts, meal_type, meal_tag, carbs_g, …``) → ``carbs`` (g),
  detail = meal type and tag.

All timestamps DD/MM/YYYY HH:MM like the glucose files. Rows with an unparseable time or an
empty value are counted as rejected.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from wearbench.cgm.sources._common import numbers_or_reject, read_csv_strings, times_or_reject
from wearbench.sources import ImportLog

_WHAT = "t1d-uom"
_FMT = ("%d/%m/%Y %H:%M", "%d/%m/%Y %H:%M:%S")
#: (folder, file prefix, time column, value column)
_TABLES = (
    ("Insulin Data/Bolus Data", "UoMBolus", "bolus_ts", "bolus_dose"),
    ("Insulin Data/Basal Data", "UoMBasal", "basal_ts", "basal_dose"),
    ("Nutrition Data", "UoMNutrition", "meal_ts", "carbs_g"),
)


def _text(frame: pd.DataFrame, column: str) -> pd.Series:
    """``column`` stripped, or empty strings when the file lacks it."""
    if column not in frame.columns:
        return pd.Series("", index=frame.index, dtype=str)
    return frame[column].astype(str).str.strip()


def _rows(frame: pd.DataFrame, prefix: str, subject: str) -> list[dict[str, object]]:
    if prefix == "UoMBolus":
        kinds = [("bolus", "U", "")] * len(frame)
    elif prefix == "UoMBasal":
        kinds = [("basal", "U/h" if k == "R" else "U", k) for k in _text(frame, "insulin_kind")]
    else:
        tag = _text(frame, "meal_type") + " " + _text(frame, "meal_tag")
        kinds = [("carbs", "g", t.strip()) for t in tag]
    return [
        {"subject_id": subject, "time": t, "kind": k, "value": v, "unit": u, "detail": d}
        for t, v, (k, u, d) in zip(frame["time"], frame["value"], kinds, strict=True)
    ]


def t1d_uom_events(root: Path, subjects: set[str], log: ImportLog) -> list[dict[str, object]]:
    """Bolus, basal and carbs events of the T1D-UOM folder ``root`` for ``subjects``."""
    rows: list[dict[str, object]] = []
    for folder, prefix, tcol, vcol in _TABLES:
        if not (root / folder).is_dir():
            continue
        pattern = re.compile(rf"{prefix}(\w+)\.csv$", re.IGNORECASE)
        for file in sorted((root / folder).iterdir()):
            match = pattern.search(file.name)
            if not match or match.group(1) not in subjects:
                continue
            frame = read_csv_strings(file, [tcol, vcol], log)
            frame = frame[frame[vcol].str.strip() != ""] if prefix == "UoMNutrition" else frame
            frame = times_or_reject(frame, tcol, _FMT, log, f"{_WHAT} events")
            frame = numbers_or_reject(frame, vcol, log, f"{_WHAT} events", into="value")
            rows.extend(_rows(frame, prefix, match.group(1)))
    return rows
