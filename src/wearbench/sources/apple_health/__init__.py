"""Apple Health loader (``apple-health``), export generator and minute-level channels.

Importing this package registers the ``apple-health`` loader. It needs only the stdlib expat
parser, numpy and pandas (pyarrow is imported when :func:`minute_channels` writes Parquet).
See ``docs/sources-apple-health.md``.
"""

from wearbench.sources.apple_health._generate import write_export
from wearbench.sources.apple_health._load import collect, load_apple_health
from wearbench.sources.apple_health._minute_cohort import (
    NonWearRule,
    apple_health_minute_user,
    apple_health_minutes,
    me_labels,
    no_watch_sample,
)
from wearbench.sources.apple_health._minutes import CHANNELS, minute_channels

__all__ = [
    "CHANNELS",
    "NonWearRule",
    "apple_health_minute_user",
    "apple_health_minutes",
    "collect",
    "load_apple_health",
    "me_labels",
    "minute_channels",
    "no_watch_sample",
    "write_export",
]
