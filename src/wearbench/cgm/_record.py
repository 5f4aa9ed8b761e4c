"""The canonical CGM record: glucose readings (mg/dL, local time) plus optional events.

Every CGM source — the simulator, a real export — produces a :class:`CGMData`. Readings are
one row per sensor value: ``subject_id`` (str), ``time`` (``datetime64[ns]``, naive local wall
clock of the subject), ``glucose`` (float64, mg/dL; NaN never stored — a gap is a missing row).
Events are optional: ``subject_id``, ``time``, ``kind`` (``carbs``, ``bolus``, ``basal``,
``exercise``, …), ``value`` (float), ``unit`` (``g``, ``U``, ``U/h``, ``min`` …) and ``detail``
(str, e.g. meal type). Units: mmol/L → mg/dL multiplies by :data:`MMOL_TO_MGDL`.

A CGM folder (written by ``wearbench cgm import`` and ``wearbench cgm simulate``) holds the
readings in :data:`READINGS_FILE` and the events, when there are any, in :data:`EVENTS_FILE`;
:func:`write_cgm_tables` writes them and :func:`read_cgm` reads them back (or any CGM export).

A simulated folder may hold readings that are not glucose values: NaN while a fault cuts the
signal, 0 mg/dL for a ``zero_reading`` fault (``docs/cgm-faults.md``). :func:`read_cgm` applies an
explicit policy to a folder's readings (``invalid="drop"`` by default): a NaN glucose is dropped
and counted as *missing*, a glucose outside :data:`GLUCOSE_RANGE` as *out of range*, per subject in
:attr:`CGMData.dropped` (:func:`screen_readings`); ``invalid="error"`` raises on the first one.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from wearbench._errors import WearbenchError
from wearbench._registry import registry

#: mg/dL per mmol/L for glucose (molar mass 180.16 g/mol / 10), as the consensus reports use.
MMOL_TO_MGDL = 18.0156
READING_COLUMNS: tuple[str, ...] = ("subject_id", "time", "glucose")
EVENT_COLUMNS: tuple[str, ...] = ("subject_id", "time", "kind", "value", "unit", "detail")
READINGS_FILE = "readings.parquet"  #: readings table of a CGM folder
EVENTS_FILE = "events.parquet"  #: events table of a CGM folder (absent when there are none)
#: Physiologically possible sensor values, mg/dL (sensors report 39/40–400/500).
GLUCOSE_RANGE = (10.0, 1000.0)
#: Columns of :attr:`CGMData.dropped`: readings dropped per subject by :func:`screen_readings`.
DROP_COLUMNS: tuple[str, ...] = ("subject_id", "dropped_missing", "dropped_out_of_range")


def to_mgdl(values: np.ndarray | pd.Series, unit: str) -> np.ndarray:
    """Glucose in mg/dL from ``unit`` (``mg/dL`` or ``mmol/L``, case-insensitive).

    Raises:
        WearbenchError: For any other unit.
    """
    u = unit.strip().lower().replace(" ", "")
    arr = np.asarray(values, dtype=np.float64)
    if u in ("mg/dl", "mgdl"):
        return arr
    if u in ("mmol/l", "mmol"):
        return arr * MMOL_TO_MGDL
    raise WearbenchError(f"unknown glucose unit {unit!r}; valid: mg/dL, mmol/L")


def check_readings(readings: pd.DataFrame, what: str) -> pd.DataFrame:
    """Canonical readings table: columns, dtypes, sorted by subject then time.

    Raises:
        WearbenchError: If a column is missing, a time is missing, or a glucose value is not a
            finite number in :data:`GLUCOSE_RANGE` (loaders repair or reject those first).
    """
    missing = [c for c in READING_COLUMNS if c not in readings]
    if missing:
        raise WearbenchError(f"{what}: CGM readings lack column(s) {', '.join(missing)}")
    out = readings.loc[:, list(READING_COLUMNS)].copy()
    out["subject_id"] = out["subject_id"].astype(str)
    out["time"] = pd.to_datetime(out["time"])
    out["glucose"] = pd.to_numeric(out["glucose"], errors="coerce").astype("float64")
    if out["time"].isna().any():
        raise WearbenchError(f"{what}: CGM readings with a missing time")
    g = out["glucose"].to_numpy()
    bad = ~np.isfinite(g) | (g < GLUCOSE_RANGE[0]) | (g > GLUCOSE_RANGE[1])
    if bad.any():
        row = out[bad].iloc[0]
        raise WearbenchError(
            f"{what}: glucose {row['glucose']} mg/dL at {row['time']} (subject {row['subject_id']}) "
            f"is missing or outside {GLUCOSE_RANGE[0]:g}–{GLUCOSE_RANGE[1]:g} "
            f"({int(bad.sum())} such reading(s))"
        )
    return out.sort_values(["subject_id", "time"], kind="stable").reset_index(drop=True)


@dataclass(frozen=True)
class CGMData:
    """A CGM dataset: readings, optional events, provenance.

    Attributes:
        readings: See the module docstring (sorted by subject, time).
        events: Events table, or None.
        source: Provenance (``{"name": ..., "params": {...}}``).
        dropped: Readings dropped when read (:data:`DROP_COLUMNS`, one row per subject of the
            file, zeros included), or None when nothing was screened (a loader, which rejects
            and counts bad rows in its import report instead).
    """

    readings: pd.DataFrame
    events: pd.DataFrame | None = None
    source: Mapping[str, Any] = field(default_factory=dict)
    dropped: pd.DataFrame | None = None

    @property
    def subjects(self) -> list[str]:
        """Sorted subject ids."""
        return sorted(self.readings["subject_id"].astype(str).unique().tolist())

    def subject(self, subject_id: str) -> pd.DataFrame:
        """One subject's readings (time, glucose), in time order.

        Raises:
            WearbenchError: For an unknown subject.
        """
        rows = self.readings[self.readings["subject_id"] == subject_id]
        if rows.empty:
            raise WearbenchError(f"no CGM readings for subject {subject_id!r}; subjects: {self.subjects[:5]}")
        return rows[["time", "glucose"]].reset_index(drop=True)


def screen_readings(readings: pd.DataFrame, what: str) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Drop, and count per subject, the readings that are not a glucose value.

    A glucose that is NaN (or not a number at all) is *missing*; a finite glucose outside
    :data:`GLUCOSE_RANGE` (10–1000 mg/dL, e.g. a 0 mg/dL ``zero_reading`` fault) is *out of
    range*. What is left is exactly what :func:`check_readings` accepts.

    Args:
        readings: ``subject_id``, ``time``, ``glucose`` (mg/dL), any order.
        what: Name for error messages (a path).

    Returns:
        The canonical readings kept, and the counts (:data:`DROP_COLUMNS`, one row per subject
        of ``readings``, sorted, zeros included).

    Raises:
        WearbenchError: If a column or a time is missing.
    """
    missing = [c for c in READING_COLUMNS if c not in readings]
    if missing:
        raise WearbenchError(f"{what}: CGM readings lack column(s) {', '.join(missing)}")
    subject = readings["subject_id"].astype(str)
    g = pd.to_numeric(readings["glucose"], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
    nan = np.isnan(g)
    out = ~nan & ((g < GLUCOSE_RANGE[0]) | (g > GLUCOSE_RANGE[1]))
    counts = pd.DataFrame({"subject_id": subject, DROP_COLUMNS[1]: nan, DROP_COLUMNS[2]: out})
    dropped = counts.groupby("subject_id", sort=True)[list(DROP_COLUMNS[1:])].sum().astype("int64")
    kept = check_readings(readings[~(nan | out)], what)
    return kept, dropped.reset_index()


def write_cgm_tables(readings: pd.DataFrame, events: pd.DataFrame | None, out: Path) -> list[Path]:
    """Write a CGM folder's tables into the existing folder ``out``: readings, and events if given.

    Returns:
        The files written, readings first.
    """
    written = [out / READINGS_FILE]
    readings.to_parquet(written[0], index=False)
    if events is not None:
        written.append(out / EVENTS_FILE)
        events.to_parquet(written[-1], index=False)
    return written


def read_cgm(
    path: str | Path, source: str | None = None, *, invalid: Literal["drop", "error"] = "drop"
) -> CGMData:
    """A CGM dataset from a CGM folder (imported or simulated), or any file or folder a loader reads.

    Args:
        path: A folder with :data:`READINGS_FILE` (and maybe :data:`EVENTS_FILE`), or a CGM export.
        source: CGM loader name (``registry.names("cgm_loader")``); ``None``: a CGM folder, else
            the first loader that reads at least one reading.
        invalid: Policy for a folder's readings that are not a glucose value (NaN, or outside
            :data:`GLUCOSE_RANGE`): ``"drop"`` them, counted per subject in
            :attr:`CGMData.dropped` (:func:`screen_readings`), or raise (``"error"``). A loader
            applies its own rules to an export (rejected rows are counted in its import report).

    Returns:
        The data; ``source["read_as"]`` says how it was read (``"imported folder"``, the loader
        name, or ``"<loader> (auto-detected)"``).

    Raises:
        WearbenchError: If ``path`` does not exist, nothing reads it (naming the loaders tried),
            or (``invalid="error"``) a folder holds a reading that is not a glucose value.
    """
    path = Path(path)
    if invalid not in ("drop", "error"):
        raise WearbenchError(f"invalid={invalid!r}: valid policies are 'drop' and 'error'")
    if not path.exists():
        raise WearbenchError(f"{path}: no such file or folder")
    if source is None and (path / READINGS_FILE).is_file():
        raw = pd.read_parquet(path / READINGS_FILE)
        what = str(path / READINGS_FILE)
        if invalid == "drop":
            readings, dropped = screen_readings(raw, what)
        else:
            readings, dropped = check_readings(raw, what), None
        events = path / EVENTS_FILE
        return CGMData(
            readings,
            pd.read_parquet(events) if events.is_file() else None,
            {"read_as": "imported folder", "invalid": invalid},
            dropped,
        )
    # The loaders (0.8 s of imports) load only when one is needed, not for a CGM folder.
    from wearbench.cgm.sources import import_cgm

    if source is not None:
        data = import_cgm(source, path)[0]
        return replace(data, source={**data.source, "read_as": source})
    for name in registry.names("cgm_loader"):
        try:
            data = import_cgm(name, path)[0]
        except WearbenchError:
            continue
        if len(data.readings):
            return replace(data, source={**data.source, "read_as": f"{name} (auto-detected)"})
    tried = ", ".join(registry.names("cgm_loader"))
    raise WearbenchError(f"{path}: no CGM loader reads it (tried {tried}); name one with --source")
