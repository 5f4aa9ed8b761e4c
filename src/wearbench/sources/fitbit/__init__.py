"""Fitbit loaders: ``fitabase`` (Fitabase CSV) and ``pmdata`` (PMData Fitbit JSON), daily and minute."""

from wearbench.sources.fitbit._fitabase import load_fitabase, resting_hr_from_seconds
from wearbench.sources.fitbit._minutes import FITBIT_CHANNELS, fitabase_minutes, fitbit_non_wear
from wearbench.sources.fitbit._overview import read_xlsx_rows
from wearbench.sources.fitbit._pmdata import load_pmdata
from wearbench.sources.fitbit._pmdata_labels import WELLNESS_DAYS, WELLNESS_ITEMS, pmdata_labels
from wearbench.sources.fitbit._pmdata_minutes import (
    PMDATA_CHANNELS,
    PMDATA_WORKOUTS,
    pmdata_minute_user,
    pmdata_minutes,
    pmdata_non_wear,
    pmdata_record_non_wear,
    write_pmdata_labels,
)

__all__ = [
    "FITBIT_CHANNELS",
    "PMDATA_CHANNELS",
    "PMDATA_WORKOUTS",
    "WELLNESS_DAYS",
    "WELLNESS_ITEMS",
    "fitabase_minutes",
    "fitbit_non_wear",
    "load_fitabase",
    "load_pmdata",
    "pmdata_labels",
    "pmdata_minute_user",
    "pmdata_minutes",
    "pmdata_non_wear",
    "pmdata_record_non_wear",
    "read_xlsx_rows",
    "resting_hr_from_seconds",
    "write_pmdata_labels",
]
