"""Garmin loaders: ``garmin-uom`` (T1D-UOM Garmin CSV layout) and ``fit`` (.FIT files).

Importing this package registers both loaders; the FIT library (``fitdecode``) is imported only
when a FIT file is read.
"""

from wearbench.sources.garmin._fit import fit_daily, load_fit
from wearbench.sources.garmin._fitread import FitMessages, read_fit
from wearbench.sources.garmin._uom import activity_daily, load_garmin_uom
from wearbench.sources.garmin._uom_monitor import monitoring_daily
from wearbench.sources.garmin._uom_sleep import nights_daily

__all__ = [
    "FitMessages",
    "activity_daily",
    "fit_daily",
    "load_fit",
    "load_garmin_uom",
    "monitoring_daily",
    "nights_daily",
    "read_fit",
]
