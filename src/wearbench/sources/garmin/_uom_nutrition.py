"""T1D-UOM nutrition logs: not daily wearable metrics, but their dates are checked and reported.

``Nutrition Data/UoMNutrition<ID>.csv`` (``meal_ts`` as DD/MM/YYYY HH:MM, meal type, grams of
carbohydrate, protein, fat and fibre) feeds no canonical metric. The loader still reads every
file so the import report names bad rows: a meal dated outside the participant's wearable record
by more than :data:`SLACK_DAYS` (e.g. the year-2204 lunch of participant 2404) or an unparseable
timestamp is rejected and counted with file, line and value.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from wearbench.sources._report import ImportLog
from wearbench.sources.garmin._csv import parse_times, read_table

#: Days a meal may fall outside the participant's first and last wearable day.
SLACK_DAYS = 31
_NAME = re.compile(r"UoMNutrition(\d+)\.csv$")


def check_nutrition(
    folder: Path, spans: Mapping[str, tuple[pd.Timestamp, pd.Timestamp]], log: ImportLog
) -> int:
    """Read every nutrition file under ``folder`` and reject (counted) rows with impossible dates.

    Args:
        folder: ``Nutrition Data`` folder (absent: nothing to do).
        spans: Per participant id, the first and last day of their wearable record.
        log: Import log.

    Returns:
        Meals read.
    """
    if not folder.is_dir():
        return 0
    total = 0
    for path in sorted(folder.glob("UoMNutrition*.csv")):
        match = _NAME.search(path.name)
        if match is None:
            continue
        user = match.group(1)
        frame = read_table(path, ("meal_ts",), log)
        padded = frame["meal_ts"] != frame["meal_ts"].str.strip()
        if padded.any():
            row = frame[padded].iloc[0]
            example = f"{path.name} line {row['_line']}: user {user}, meal_ts = {row['meal_ts']!r}"
            log.repair("nutrition: spaces around meal_ts stripped", example, n=int(padded.sum()))
            frame["meal_ts"] = frame["meal_ts"].str.strip()
        frame = parse_times(frame, "meal_ts", "%d/%m/%Y %H:%M", path, user, log, "nutrition")
        total += len(frame)
        if user not in spans:
            continue
        first, last = spans[user]
        slack = pd.Timedelta(days=SLACK_DAYS)
        bad = (frame["_ts"] < first - slack) | (frame["_ts"] > last + slack)
        if bad.any():
            row = frame[bad].iloc[0]
            example = f"{path.name} line {row['_line']}: user {user}, meal_ts = {row['meal_ts']!r}"
            log.reject("nutrition: meal dated outside the participant's record", example, n=int(bad.sum()))
    return total
