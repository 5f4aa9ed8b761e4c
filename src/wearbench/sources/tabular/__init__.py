"""Generic CSV/Parquet loader (``csv``) driven by a YAML column mapping (``docs/sources-whoop-csv.md``)."""

from wearbench.sources.tabular._mapping import AGGREGATES, Mapping, MetricMap, read_mapping
from wearbench.sources.tabular._read import CHUNK_ROWS, parse_dates
from wearbench.sources.tabular._tabular import MAPPING_NAME, find_mapping, load_table
from wearbench.sources.tabular._units import UNITS, unit_factor, valid_units

__all__ = [
    "AGGREGATES",
    "CHUNK_ROWS",
    "MAPPING_NAME",
    "UNITS",
    "Mapping",
    "MetricMap",
    "find_mapping",
    "load_table",
    "parse_dates",
    "read_mapping",
    "unit_factor",
    "valid_units",
]
