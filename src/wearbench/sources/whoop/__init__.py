"""WHOOP export loader (``whoop``): see ``docs/sources-whoop-csv.md`` for the column mapping."""

from wearbench.sources.whoop._cycles import CYCLE_COLUMNS, read_cycles
from wearbench.sources.whoop._time import parse_zone, wake_dates
from wearbench.sources.whoop._whoop import CYCLES_FILE, SLEEPS_FILE, WORKOUTS_FILE, load_whoop
from wearbench.sources.whoop._workouts import read_workouts

__all__ = [
    "CYCLES_FILE",
    "CYCLE_COLUMNS",
    "SLEEPS_FILE",
    "WORKOUTS_FILE",
    "load_whoop",
    "parse_zone",
    "read_cycles",
    "read_workouts",
    "wake_dates",
]
