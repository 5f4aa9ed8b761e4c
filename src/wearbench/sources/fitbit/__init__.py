"""Fitbit loaders: ``fitabase`` (Fitabase CSV export) and ``pmdata`` (PMData Fitbit JSON layout)."""

from wearbench.sources.fitbit._fitabase import load_fitabase, resting_hr_from_seconds
from wearbench.sources.fitbit._minutes import FITBIT_CHANNELS, fitabase_minutes, fitbit_non_wear
from wearbench.sources.fitbit._overview import read_xlsx_rows
from wearbench.sources.fitbit._pmdata import load_pmdata

__all__ = [
    "FITBIT_CHANNELS",
    "fitabase_minutes",
    "fitbit_non_wear",
    "load_fitabase",
    "load_pmdata",
    "read_xlsx_rows",
    "resting_hr_from_seconds",
]
