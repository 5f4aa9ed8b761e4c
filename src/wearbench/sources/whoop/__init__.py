"""WHOOP export loader (``whoop``): see ``docs/sources-whoop-csv.md`` for the column mapping."""

from wearbench.sources.whoop._time import parse_zone
from wearbench.sources.whoop._whoop import load_whoop

__all__ = [
    "load_whoop",
    "parse_zone",
]
