"""``workouts.csv`` (optional): WHOOP workouts → daily exercise count, minutes and mean HR."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from wearbench.sources._report import ImportLog
from wearbench.sources.whoop._read import numeric, read_export
from wearbench.sources.whoop._time import read_times

W_START, DURATION, AVG_HR = "Workout start time", "Duration (min)", "Average HR (bpm)"


def read_workouts(path: Path, user: str, log: ImportLog) -> pd.DataFrame:
    """Daily exercise metrics per local day of the workout start.

    ``exercise_count`` (sessions), ``exercise_minutes`` (min) and ``exercise_avg_hr`` (bpm, the
    duration-weighted mean of the workouts' average HR).

    Workout start times are local wall-clock times (like the cycle times), so their date is the
    local calendar day.
    """
    file = path.name
    frame = read_export(path, (W_START, DURATION), log)
    start = read_times(frame[W_START])
    kind = "whoop: workout with unreadable start time, rejected"
    for _, row in frame[start.isna()].head(5).iterrows():
        log.reject(kind, f"{file} line {row['line']}, user {user}, {W_START!r} = {row[W_START]!r}", n=0)
    if start.isna().any():
        log.reject(kind, n=int(start.isna().sum()))
    minutes = numeric(frame, DURATION, file, user, log)
    hr = numeric(frame, AVG_HR, file, user, log)
    rows = pd.DataFrame(
        {
            "date": start.dt.normalize(),
            "minutes": minutes,
            "hr_weight": minutes.where(hr.notna()),
            "hr_x_min": hr * minutes,
        }
    )[start.notna()]
    days = rows.groupby("date").agg(
        exercise_count=("date", "size"),
        exercise_minutes=("minutes", "sum"),
        hr_weight=("hr_weight", "sum"),
        hr_x_min=("hr_x_min", "sum"),
    )
    days["exercise_avg_hr"] = days["hr_x_min"] / days["hr_weight"].replace(0, np.nan)
    days = days.drop(columns=["hr_weight", "hr_x_min"]).reset_index()
    days.insert(0, "user_id", user)
    log.note(
        "whoop: workouts.csv → exercise_count, exercise_minutes (Duration), exercise_avg_hr "
        "(duration-weighted Average HR) on the workout's local start date; workout energy not used"
    )
    return days.astype({"exercise_count": "float64"})
