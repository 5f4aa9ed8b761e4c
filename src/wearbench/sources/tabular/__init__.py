"""Generic CSV/Parquet loader (``csv``) driven by a YAML column mapping (``docs/sources-whoop-csv.md``)."""

from wearbench.sources.tabular._mapping import Mapping, MetricMap, read_mapping
from wearbench.sources.tabular._read import parse_dates
from wearbench.sources.tabular._tabular import load_table

__all__ = [
    "Mapping",
    "MetricMap",
    "load_table",
    "parse_dates",
    "read_mapping",
]
