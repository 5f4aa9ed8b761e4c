"""T1D-UOM 5-min monitoring (``Sleep Data/UoMsleep<ID>.csv``): daily stress and device resting HR.

``sleep_ts`` is **UTC** (DD/MM/YYYY HH:MM): the file's "too much motion" stress code lines up
with the epoch file's steps one hour earlier in British Summer Time and at the same time in
winter, and the device's resting HR is stamped at 23:00 in summer, 00:00 in winter and 16:00 for
a participant at UTC+8 (local midnight). Each timestamp is put on local time with the UTC offset
in effect then, taken from the same participant's epoch and sleep files (nearest record).

* ``stress`` = mean of the valid (0–100) ``stress_level_value`` samples of the local day, from
  :data:`MIN_STRESS_SAMPLES` samples on. Garmin's negative codes (-1 not enough data / off
  wrist, -2 too much motion) are not values: rejected and counted per code.
* ``resting_hr`` = the device's ``resting_heart_rate`` (0 = none), the last value stamped in
  (D 00:00, D+1 00:00] local, i.e. the value standing at the end of day D. It moves ≤ 1–2 bpm a
  day, so it is likely Garmin's 7-day average rather than the single day's value.
* ``heart_rate`` is not used: its night mean is above its day mean in every file and its
  lowest night-time 30-min mean sits 7–17 bpm above the device's resting HR, so a derived
  resting HR would not be comparable. ``step_count`` (per-type cumulative counters) and
  ``sleep_level`` (0/1, mostly daytime) are not used either.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from wearbench.sources import ImportLog
from wearbench.sources.garmin._csv import parse_times, read_table, require_numbers

#: Fewest valid 5-min stress samples (1 h) for a daily mean.
MIN_STRESS_SAMPLES = 12
#: Garmin's negative stress codes.
STRESS_CODES = {-1: "not enough data / off wrist", -2: "too much motion"}


def local_times(utc: pd.Series, timeline: pd.DataFrame | None, what: str, log: ImportLog) -> pd.Series:
    """UTC timestamps → local wall-clock, with the nearest offset of ``timeline`` (``utc``, ``offset_s``).

    Without a timeline the times stay UTC (noted).
    """
    if timeline is None or timeline.empty:
        log.note(f"garmin-uom: {what}: no epoch or sleep file with UTC offsets; times taken as UTC")
        return utc
    line = timeline.dropna().sort_values("utc").drop_duplicates("utc")
    frame = pd.DataFrame({"utc": utc.to_numpy(), "_i": np.arange(len(utc))}).sort_values("utc")
    frame["utc"] = frame["utc"].astype(line["utc"].dtype)
    merged = pd.merge_asof(frame, line, on="utc", direction="nearest")
    merged = merged.sort_values("_i")
    local = merged["utc"] + pd.to_timedelta(merged["offset_s"].fillna(0), unit="s")
    return pd.Series(local.to_numpy(), index=utc.index)


def _stress(rows: pd.DataFrame, path: Path, user: str, log: ImportLog) -> pd.Series:
    value = rows["stress_level_value"]
    for code in sorted(set(value[value < 0].astype(int)), reverse=True):
        hit = rows[value == code]
        meaning = STRESS_CODES.get(code, "unknown negative code")
        first = hit.iloc[0]
        where = f"{path.name} line {first['_line']}: user {user}, {first['local'].date()}"
        example = f"{where}, stress_level_value = {code}"
        log.reject(f"stress: Garmin code {code} ({meaning}), not a value", example, n=len(hit))
    high = value > 100
    if high.any():
        first = rows[high].iloc[0]
        where = f"{path.name} line {first['_line']}: user {user}, {first['local'].date()}"
        example = f"{where}, stress_level_value = {first['stress_level_value']:g}"
        log.reject("stress: above 100", example, n=int(high.sum()))
    valid = rows[(value >= 0) & (value <= 100)]
    per_day = valid.groupby(valid["local"].dt.normalize())["stress_level_value"].agg(["mean", "size"])
    few = per_day["size"] < MIN_STRESS_SAMPLES
    if few.any():
        log.reject(
            f"stress: day with fewer than {MIN_STRESS_SAMPLES} valid samples, no daily value",
            f"{path.name}: user {user}, {per_day.index[few][0].date()}, "
            f"{int(per_day['size'][few].iloc[0])} valid stress_level_value sample(s)",
            n=int(few.sum()),
        )
    return per_day.loc[~few, "mean"].rename("stress")


def _resting_hr(rows: pd.DataFrame) -> pd.Series:
    given = rows[rows["resting_heart_rate"] > 0]
    day = (given["local"] - pd.Timedelta(minutes=1)).dt.normalize()
    return given.groupby(day)["resting_heart_rate"].last().rename("resting_hr")


def monitoring_daily(path: Path, user: str, timeline: pd.DataFrame | None, log: ImportLog) -> pd.DataFrame:
    """Daily ``stress`` (score 0–100) and ``resting_hr`` (bpm) from one 5-min monitoring file.

    Args:
        path: ``UoMsleep<ID>.csv``.
        user: Participant id.
        timeline: UTC offsets (``utc``, ``offset_s``) from the participant's other files, or None.
        log: Import log.
    """
    numbers = ("stress_level_value", "resting_heart_rate")
    raw = read_table(path, ("sleep_ts", *numbers), log)
    rows = parse_times(raw, "sleep_ts", "%d/%m/%Y %H:%M", path, user, log, "monitoring")
    rows = require_numbers(rows, numbers, path, user, log, "monitoring")
    rows = rows.assign(local=local_times(rows["_ts"], timeline, path.name, log))
    daily = pd.concat([_stress(rows, path, user, log), _resting_hr(rows)], axis=1, sort=True)
    daily.index.name = "date"
    return daily.reset_index()
