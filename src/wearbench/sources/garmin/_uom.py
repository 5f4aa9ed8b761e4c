"""``garmin-uom``: the Garmin part of T1D-UOM (Alsuhaymi et al. 2025, Univ. of Manchester).

Layout (the folder given is the dataset root)::

    Activity Data/UoMActivity<ID>.csv   Garmin Health API epochs (15 min, one row per activity type)
    Sleep Data/UoM<ID>sleeptime.csv     Garmin sleep summaries (one per wake date)
    Sleep Data/UoMsleep<ID>.csv         5-min monitoring: stress, device resting HR, HR

The user id is ``<ID>`` (``UoMActivity2301.csv`` → ``2301``).

* Epochs (``activity_ts`` is local time = ``start_time_s`` + ``start_time_offset_s``): per local
  day ``steps`` = Σ ``step_count``, ``active_kcal`` = Σ ``active_Kcal``, ``exercise_minutes`` =
  Σ ``active_time_s`` / 60 of rows with ``met`` ≥ 3 (moderate-to-vigorous activity, as
  Fitabase's very + fairly active minutes); epochs above 20 MET are implausible and not
  counted (counted repair). An epoch repeated with the same ``start_time_s``
  and ``activity_type`` (exact copies, or re-sent with another UTC offset after travel) is kept
  once (counted). A day whose epochs cover < 16 h (first and last days, gap edges) gets no
  activity metrics (counted).
* Sleep summaries: see :mod:`._uom_sleep`. 5-min monitoring: see :mod:`._uom_monitor`.
* Glucose and insulin are not read (not daily wearable metrics); nutrition logs are read only to
  check and report their dates (e.g. a meal dated 2204).
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

from wearbench._errors import WearbenchError
from wearbench.sources import ImportLog, LoadedSource, loader
from wearbench.sources.garmin._csv import parse_times, read_table, require_numbers
from wearbench.sources.garmin._uom_monitor import monitoring_daily
from wearbench.sources.garmin._uom_nutrition import check_nutrition
from wearbench.sources.garmin._uom_sleep import nights_daily

_ACTIVITY = re.compile(r"^UoMActivity(\w+?)\.csv$", re.IGNORECASE)
_NIGHTS = re.compile(r"^UoM(\w+?)sleeptime\.csv$", re.IGNORECASE)
_MONITOR = re.compile(r"^UoMsleep(\w+?)\.csv$", re.IGNORECASE)
_EPOCH_NUMBERS = (
    "active_Kcal",
    "step_count",
    "duration_s",
    "active_time_s",
    "start_time_s",
    "start_time_offset_s",
    "met",
)
#: Lowest MET value counted as exercise (moderate intensity).
MVPA_MET = 3.0
#: Fewest hours of epochs for a day's activity totals (first/last and gap-edge days are partial).
MIN_EPOCH_HOURS = 16.0
#: Highest plausible mean MET of an epoch (participant 2305's watch logs 15-min RUNNING and
#: WHEELCHAIR_PUSHING epochs at ~27 MET with ~30 steps).
MAX_EPOCH_MET = 20.0


def _unique_epochs(raw: pd.DataFrame, path: Path, user: str, log: ImportLog) -> pd.DataFrame:
    """Keep the first row per (``start_time_s``, ``activity_type``) (counted)."""
    dup = raw.duplicated(["start_time_s", "activity_type"])
    if dup.any():
        first = raw[dup].iloc[0]
        example = (
            f"{path.name} line {first['_line']}: user {user}, activity_ts = {first['activity_ts']}, "
            f"start_time_s = {first['start_time_s']} repeated"
        )
        log.repair(
            "activity: epoch repeated (same start_time_s and activity_type): kept the first",
            example,
            n=int(dup.sum()),
        )
    return raw[~dup]


def _exercise_epochs(rows: pd.DataFrame, path: Path, user: str, log: ImportLog) -> pd.Series:
    """Rows counted as exercise: ``met`` from :data:`MVPA_MET` to :data:`MAX_EPOCH_MET` (above: counted)."""
    implausible = rows["met"] > MAX_EPOCH_MET
    if implausible.any():
        first = rows[implausible].iloc[0]
        example = (
            f"{path.name} line {first['_line']}: user {user}, {first['_ts'].date()}, "
            f"activity_type = {first['activity_type']}, met = {first['met']:.1f}"
        )
        log.repair(
            f"activity: epoch met > {MAX_EPOCH_MET:g}: implausible, not counted as exercise",
            example,
            n=int(implausible.sum()),
        )
    exercise = (rows["met"] >= MVPA_MET) & ~implausible
    return exercise


def activity_daily(path: Path, user: str, log: ImportLog) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Daily ``steps``, ``active_kcal`` (kcal), ``exercise_minutes`` (min) from one epoch file.

    Returns:
        The daily table (``date`` + metrics) and the UTC-offset timeline the file records
        (``utc``, ``offset_s``), used to put the UTC monitoring file on local days.
    """
    raw = _unique_epochs(
        read_table(path, ("activity_ts", "activity_type", "intensity", *_EPOCH_NUMBERS), log), path, user, log
    )
    rows = parse_times(raw, "activity_ts", "%d/%m/%Y %H:%M", path, user, log, "activity")
    rows = require_numbers(rows, _EPOCH_NUMBERS, path, user, log, "activity")
    negative = (rows["step_count"] < 0) | (rows["active_Kcal"] < 0) | (rows["active_time_s"] < 0)
    if negative.any():
        first = rows[negative].iloc[0]
        example = (
            f"{path.name} line {first['_line']}: user {user}, {first['_ts'].date()}, "
            f"step_count = {first['step_count']:g}, active_Kcal = {first['active_Kcal']:g}"
        )
        log.reject(
            "activity: negative step_count, active_Kcal or active_time_s", example, n=int(negative.sum())
        )
        rows = rows[~negative]
    exercise = _exercise_epochs(rows, path, user, log)
    rows = rows.assign(
        date=rows["_ts"].dt.normalize(), mvpa=rows["active_time_s"].where(exercise, 0.0) / 60.0
    )
    daily = (
        rows.groupby("date")
        .agg(
            steps=("step_count", "sum"), active_kcal=("active_Kcal", "sum"), exercise_minutes=("mvpa", "sum")
        )
        .reset_index()
    )
    daily = _drop_partial_days(daily, rows, path, user, log)
    offsets = pd.DataFrame(
        {"utc": pd.to_datetime(rows["start_time_s"], unit="s"), "offset_s": rows["start_time_offset_s"]}
    )
    return daily, offsets


def _drop_partial_days(
    daily: pd.DataFrame, rows: pd.DataFrame, path: Path, user: str, log: ImportLog
) -> pd.DataFrame:
    """Days whose epochs cover less than :data:`MIN_EPOCH_HOURS` get no activity metrics (counted)."""
    epochs = rows.drop_duplicates(["date", "start_time_s"])
    hours = daily["date"].map(epochs.groupby("date")["duration_s"].sum() / 3600.0).fillna(0.0)
    short = hours < MIN_EPOCH_HOURS
    if short.any():
        first = daily[short].iloc[0]
        example = (
            f"{path.name}: user {user}, {first['date'].date()}, epochs cover {hours[short].iloc[0]:.2f} h"
        )
        log.reject(
            f"activity: day with epochs covering < {MIN_EPOCH_HOURS:g} h, no activity metrics",
            example,
            n=int(short.sum()),
        )
    return daily[~short]


def _files(root: Path) -> dict[str, dict[str, Path]]:
    """``{user: {"activity"|"nights"|"monitor": path}}`` from the dataset's file names."""
    found: dict[str, dict[str, Path]] = {}
    for folder in ("Activity Data", "Sleep Data"):
        if not (root / folder).is_dir():
            continue
        for f in sorted((root / folder).iterdir()):
            for kind, pattern in (("activity", _ACTIVITY), ("nights", _NIGHTS), ("monitor", _MONITOR)):
                match = pattern.match(f.name)
                if match and f.is_file():
                    found.setdefault(match.group(1), {})[kind] = f
                    break
    return found


def _user_daily(user: str, files: dict[str, Path], log: ImportLog) -> pd.DataFrame:
    parts: list[pd.DataFrame] = []
    offsets: list[pd.DataFrame] = []
    if "activity" in files:
        daily, timeline = activity_daily(files["activity"], user, log)
        parts.append(daily)
        offsets.append(timeline)
    if "nights" in files:
        daily, timeline = nights_daily(files["nights"], user, log)
        parts.append(daily)
        offsets.append(timeline)
    if "monitor" in files:
        known = pd.concat(offsets, ignore_index=True) if offsets else None
        parts.append(monitoring_daily(files["monitor"], user, known, log))
    merged = pd.DataFrame({"date": pd.Series(dtype="datetime64[ns]")})
    for part in parts:
        merged = merged.merge(part, on="date", how="outer")
    return merged.assign(user_id=user)


@loader(
    "garmin-uom",
    formats="T1D-UOM folder: 'Activity Data/UoMActivity<ID>.csv', 'Sleep Data/UoM<ID>sleeptime.csv', "
    "'Sleep Data/UoMsleep<ID>.csv'",
    description="Garmin watch data of T1D-UOM (Manchester): steps, kcal, MVPA minutes, sleep stages, "
    "stress, device resting HR",
)
def load_garmin_uom(path: Path, log: ImportLog) -> LoadedSource:
    """Load the Garmin part of T1D-UOM (see the module docstring); ``path`` is the dataset folder."""
    if not path.is_dir():
        raise WearbenchError(f"{path}: garmin-uom expects the T1D-UOM folder (with 'Activity Data/')")
    files = _files(path)
    if not files:
        raise WearbenchError(
            f"{path}: no UoMActivity<ID>.csv, UoM<ID>sleeptime.csv or UoMsleep<ID>.csv under "
            "'Activity Data/' or 'Sleep Data/'"
        )
    daily = pd.concat([_user_daily(u, f, log) for u, f in sorted(files.items())], ignore_index=True)
    log.note("garmin-uom: exercise_minutes = epoch active time with met >= 3 (MVPA; no session log)")
    log.note("garmin-uom: resting_hr is the device's value (UoMsleep<ID>.csv), not derived from HR")
    log.note("garmin-uom: not in this source: hrv, vo2max, bmr_kcal, exercise_count, exercise_avg_hr, mets")
    spans = {str(u): (g["date"].min(), g["date"].max()) for u, g in daily.groupby("user_id")}
    meals = check_nutrition(path / "Nutrition Data", spans, log)
    log.note("garmin-uom: Glucose and Insulin Data not read (no daily wearable metric)")
    log.note(f"garmin-uom: {meals} meals in Nutrition Data checked for dates only (no daily metric)")
    log.note("garmin-uom: no participant table (demographics unknown)")
    return LoadedSource(daily, None, extras={"users_with_files": {u: sorted(f) for u, f in files.items()}})
