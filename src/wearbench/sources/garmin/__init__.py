"""Garmin loaders: ``garmin-uom`` (T1D-UOM Garmin CSV layout) and ``fit`` (.FIT files).

Importing this package registers both loaders; the FIT library (``fitdecode``) is imported only
when a FIT file is read.
"""

from wearbench.sources.garmin._fit import load_fit
from wearbench.sources.garmin._fitread import FitMessages, read_fit
from wearbench.sources.garmin._uom import load_garmin_uom
from wearbench.sources.garmin._uom_monitor import monitoring_daily

__all__ = [
    "FitMessages",
    "load_fit",
    "load_garmin_uom",
    "monitoring_daily",
    "read_fit",
]
