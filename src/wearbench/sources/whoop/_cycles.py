"""``physiological_cycles.csv``: one WHOOP cycle (sleep onset to next sleep onset) → one local day."""

from __future__ import annotations

from datetime import tzinfo
from pathlib import Path

import numpy as np
import pandas as pd

from wearbench.sources._days import bedtime_regularity, onset_minutes
from wearbench.sources._report import ImportLog
from wearbench.sources.whoop._read import numeric, read_export
from wearbench.sources.whoop._time import parse_zone, read_times, wake_dates

START, END, ZONE = "Cycle start time", "Cycle end time", "Cycle timezone"
ONSET, WAKE = "Sleep onset", "Wake onset"
ASLEEP, DEEP, REM = "Asleep duration (min)", "Deep (SWS) duration (min)", "REM duration (min)"

#: WHOOP column → canonical metric, copied as is (units already canonical).
CYCLE_COLUMNS: dict[str, str] = {
    "Resting heart rate (bpm)": "resting_hr",
    "Heart rate variability (ms)": "hrv",
    ASLEEP: "sleep_minutes",
    "Sleep efficiency %": "sleep_efficiency",
}

_UNUSED = (
    "whoop: not mapped (no canonical metric): Recovery score %, Day Strain, Skin temp (celsius), "
    "Blood oxygen %, Respiratory rate (rpm), Max/Average HR, Sleep performance/need/debt/consistency"
)
_ENERGY = (
    "whoop: 'Energy burned (cal)' is total energy in kcal (basal + active) for the whole cycle; "
    "it is not split, so active_kcal and bmr_kcal are left missing"
)


def _times(frame: pd.DataFrame, file: str, user: str, log: ImportLog) -> pd.DataFrame:
    """Rows with a readable cycle start and timezone, plus ``zone``, ``start``, ``start_utc``, ``date``."""
    zones = frame[ZONE].fillna("").astype(str).map(parse_zone)
    start = read_times(frame[START])
    bad = zones.isna() | start.isna()
    kind = "whoop: cycle with unreadable start time or timezone, rejected"
    for _, row in frame[bad].head(5).iterrows():
        cells = f"{START!r} = {row[START]!r}, {ZONE!r} = {row[ZONE]!r}"
        log.reject(kind, f"{file} line {row['line']}, user {user}, {cells}", n=0)
    if bad.any():
        log.reject(kind, n=int(bad.sum()))
    out = frame[~bad].copy()
    out["start"] = start[~bad]
    out["start_utc"] = [_to_utc(t, z) for t, z in zip(out["start"], zones[~bad], strict=True)]
    out["end_utc"] = [_to_utc(t, z) for t, z in zip(read_times(out[END]), zones[~bad], strict=True)]
    out["onset"] = read_times(out[ONSET]) if ONSET in out else pd.NaT
    wake = read_times(out[WAKE]) if WAKE in out else pd.Series(pd.NaT, index=out.index)
    out["date"] = wake_dates(wake, out["start"])
    return out.sort_values("start_utc", kind="stable")


def _to_utc(local: pd.Timestamp, zone: tzinfo) -> pd.Timestamp:
    """The UTC instant of a local wall-clock time in ``zone`` (NaT stays NaT)."""
    if pd.isna(local):
        return pd.NaT
    offset = local.to_pydatetime().replace(tzinfo=zone).utcoffset()
    return local - (offset if offset is not None else pd.Timedelta(0))


def _boundaries(cycles: pd.DataFrame, log: ImportLog) -> None:
    """Note how many cycle ends meet the next cycle's start, compared in UTC."""
    ends = cycles["end_utc"].iloc[:-1].to_numpy()
    starts = cycles["start_utc"].iloc[1:].to_numpy()
    known = ~pd.isna(ends)
    meet = int((np.abs(starts[known] - ends[known]) <= np.timedelta64(60, "s")).sum())
    log.note(
        f"whoop: {meet} of {int(known.sum())} cycle ends meet the next cycle's start when each row's "
        "time is read in its own 'Cycle timezone' (compared in UTC)"
    )


def read_cycles(path: Path, user: str, log: ImportLog) -> pd.DataFrame:
    """Daily rows (``user_id``, ``date`` and canonical sleep/recovery metrics) from the cycles file.

    Units: resting_hr bpm, hrv ms (WHOOP's RMSSD), sleep_minutes min (asleep time of the cycle's
    main sleep), sleep_efficiency %, deep/REM % of asleep time, bedtime_regularity min.
    """
    file = path.name
    frame = read_export(path, (START, ZONE), log)
    cycles = _times(frame, file, user, log)
    out = pd.DataFrame({"user_id": user, "date": cycles["date"]}, index=cycles.index)
    for column, name in CYCLE_COLUMNS.items():
        out[name] = numeric(cycles, column, file, user, log)
    asleep = out["sleep_minutes"].where(out["sleep_minutes"] > 0)
    out["deep_sleep_pct"] = 100 * numeric(cycles, DEEP, file, user, log) / asleep
    out["rem_sleep_pct"] = 100 * numeric(cycles, REM, file, user, log) / asleep
    empty = out.drop(columns=["user_id", "date"]).isna().all(axis=1)
    kind = "whoop: cycle without sleep or recovery data, rejected"
    for line, day in zip(cycles.loc[empty, "line"].head(5), out.loc[empty, "date"].head(5), strict=True):
        log.reject(kind, f"{file} line {line}, user {user}, {pd.Timestamp(day):%Y-%m-%d}", n=0)
    if empty.any():
        log.reject(kind, n=int(empty.sum()))
    out["bedtime_regularity"] = bedtime_regularity(out["date"], onset_minutes(cycles["onset"]))
    _boundaries(cycles, log)
    log.note("whoop: a cycle's day is the local date of its wake onset (the night belongs to its wake date)")
    log.note("whoop: deep_sleep_pct and rem_sleep_pct = Deep (SWS) / REM duration ÷ Asleep duration × 100")
    log.note(_ENERGY)
    log.note(_UNUSED)
    return out[~empty].reset_index(drop=True)
