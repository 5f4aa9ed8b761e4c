"""Consensus CGM metrics (TIR/TBR/TAR, mean, SD, CV, GMI, MAGE, MODD, CONGA, LBGI/HBGI, GRI, AGP).

See ``docs/cgm-metrics.md`` for every definition, its citation and its agreement with iglu.
"""

from wearbench.cgm.metrics._agp import agp_figure, write_agp_png
from wearbench.cgm.metrics._api import (
    AGP_PERCENTILES,
    METRIC_UNITS,
    CGMMetrics,
    agp_percentiles,
    cgm_metrics,
    metrics_table,
)

__all__ = [
    "AGP_PERCENTILES",
    "METRIC_UNITS",
    "CGMMetrics",
    "agp_figure",
    "agp_percentiles",
    "cgm_metrics",
    "metrics_table",
    "write_agp_png",
]
