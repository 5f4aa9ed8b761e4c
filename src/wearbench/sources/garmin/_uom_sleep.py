"""T1D-UOM sleep summaries (``Sleep Data/UoM<ID>sleeptime.csv``): one Garmin sleep per wake date.

Columns used: ``calendar_date`` (the wake date, DD/MM/YYYY), ``start_date_ts`` (sleep start in
**UTC**; checked against the ``startTimeInSeconds`` of the stage maps), ``start_time_offset_s``
(local − UTC, s), ``duration_in_sec`` (asleep = deep + light + REM + unmeasurable, s),
``deep_sleep_s``, ``light_sleep_s``, ``rem_sleep_s``, ``unmeasurable_sleep_s``, ``awake_s``,
``validation`` (Garmin's ``ENHANCED_FINAL``, ``AUTO_FINAL``, ``ENHANCED_TENTATIVE`` …).

* ``sleep_minutes`` = ``duration_in_sec`` / 60.
* ``deep_sleep_pct``, ``rem_sleep_pct`` = stage / (deep + light + REM) × 100 (staged sleep; the
  unmeasurable part is left out). A night of ≥ 3 h staged sleep with REM = 0 was not REM-staged
  (``AUTO`` or tentative nights): ``rem_sleep_pct`` set missing (counted).
* ``sleep_efficiency`` = asleep / (asleep + awake) × 100.
* ``bedtime_regularity``: SD of local onsets (``start_date_ts`` + offset) over 7 days, wake-dated.
* Several sleeps for one wake date: the best-validated (final before tentative), then the
  longest, is kept (counted).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from wearbench.sources import ImportLog, bedtime_regularity, onset_minutes
from wearbench.sources.garmin._csv import parse_times, read_table, require_numbers

_NUMBERS = (
    "duration_in_sec",
    "start_time_offset_s",
    "unmeasurable_sleep_s",
    "deep_sleep_s",
    "light_sleep_s",
    "rem_sleep_s",
    "awake_s",
)
_VALIDATION_RANK = {"ENHANCED_FINAL": 0, "AUTO_FINAL": 1, "MANUAL": 2, "ENHANCED_TENTATIVE": 3}
#: Staged sleep (s) from which REM = 0 means "not REM-staged" rather than "no REM".
REM_STAGED_MIN_S = 3 * 3600


def _one_per_date(rows: pd.DataFrame, path: Path, user: str, log: ImportLog) -> pd.DataFrame:
    rank = rows["validation"].map(_VALIDATION_RANK).fillna(9)
    rows = rows.assign(_rank=rank).sort_values(
        ["date", "_rank", "duration_in_sec"], ascending=[True, True, False], kind="stable"
    )
    dup = rows.duplicated("date")
    if dup.any():
        first = rows[dup].iloc[0]
        example = (
            f"{path.name} line {first['_line']}: user {user}, {first['date'].date()}, calendar_date repeated"
        )
        log.repair(
            "sleep: several sleeps for one wake date: kept the best-validated", example, n=int(dup.sum())
        )
    return rows[~dup]


def nights_daily(path: Path, user: str, log: ImportLog) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Wake-dated sleep metrics from one ``UoM<ID>sleeptime.csv`` (minutes, %).

    Returns:
        The daily table (``date`` + sleep metrics) and the UTC-offset timeline (``utc``,
        ``offset_s``) of the sleep starts.
    """
    raw = read_table(path, ("calendar_date", "start_date_ts", "validation", *_NUMBERS), log)
    rows = parse_times(raw, "calendar_date", "%d/%m/%Y", path, user, log, "sleep", into="date")
    rows = parse_times(rows, "start_date_ts", "%d/%m/%Y %H:%M", path, user, log, "sleep")
    rows = require_numbers(rows, _NUMBERS, path, user, log, "sleep")
    rows = _one_per_date(rows, path, user, log)
    staged = rows["deep_sleep_s"] + rows["light_sleep_s"] + rows["rem_sleep_s"]
    asleep = rows["duration_in_sec"]
    unstaged_rem = (rows["rem_sleep_s"] == 0) & (staged >= REM_STAGED_MIN_S)
    if unstaged_rem.any():
        first = rows[unstaged_rem].iloc[0]
        example = f"{path.name} line {first['_line']}: user {user}, {first['date'].date()}, rem_sleep_s = 0"
        log.repair(
            "sleep: REM = 0 over ≥ 3 h staged sleep: not REM-staged, rem_sleep_pct set missing",
            example,
            n=int(unstaged_rem.sum()),
        )
    positive = staged.where(staged > 0)
    onset = rows["_ts"] + pd.to_timedelta(rows["start_time_offset_s"], unit="s")
    daily = pd.DataFrame(
        {
            "date": rows["date"].dt.normalize(),
            "sleep_minutes": asleep / 60.0,
            "deep_sleep_pct": rows["deep_sleep_s"] / positive * 100.0,
            "rem_sleep_pct": (rows["rem_sleep_s"] / positive * 100.0).where(~unstaged_rem, np.nan),
            "sleep_efficiency": (asleep / (asleep + rows["awake_s"]).where(lambda s: s > 0) * 100.0),
        }
    )
    daily["bedtime_regularity"] = bedtime_regularity(daily["date"], onset_minutes(onset))
    offsets = pd.DataFrame({"utc": rows["_ts"], "offset_s": rows["start_time_offset_s"]})
    return daily.reset_index(drop=True), offsets
