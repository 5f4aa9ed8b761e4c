"""Consensus CGM metrics (TIR/TBR/TAR, mean, SD, CV, GMI, MAGE, MODD, CONGA, LBGI/HBGI, GRI, AGP).

See ``docs/cgm-metrics.md`` for every definition, its citation and its agreement with iglu.
"""

from wearbench.cgm.metrics._api import (
    AGP_PERCENTILES,
    CGMMetrics,
    agp_percentiles,
    cgm_metrics,
    metrics_table,
)

__all__ = ["AGP_PERCENTILES", "CGMMetrics", "agp_percentiles", "cgm_metrics", "metrics_table"]
