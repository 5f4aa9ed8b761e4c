"""Figure of the OpenMHC imputation part of the report (matplotlib, deterministic bytes).

Needs the ``[report]`` extra (matplotlib), as ``_eval_plots`` does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from wearbench._errors import WearbenchError
from wearbench.report._eval_plots import run_colour

try:
    from matplotlib.figure import Figure
except ImportError as e:  # pragma: no cover - exercised only without the [report] extra
    raise WearbenchError("the evaluation report needs matplotlib: pip install 'wearbench[report]'") from e


def _value(x: float | None) -> float:
    return float("nan") if x is None else float(x)


def plot_skill_scopes(scored: Mapping[str, Any]) -> Figure:
    """Skill per scope, one marker per method, whiskers its participant-bootstrap 95% interval.

    Args:
        scored: The dict of :func:`~wearbench.scoring.score_imputation_results`.
    """
    scopes: list[str] = list(scored["scopes"])
    methods: list[str] = list(scored["methods"])
    width = 0.8 / max(len(methods), 1)
    fig = Figure(figsize=(min(12.0, max(5.0, 1.2 + 0.9 * len(scopes))), 3.4))
    ax = fig.subplots()
    x = np.arange(len(scopes), dtype=float)
    for i, method in enumerate(methods):
        cells = [scored["methods"][method][s] for s in scopes]
        val = np.array([_value(c["skill"]) for c in cells])
        lo = np.array([_value(c["ci_low"]) for c in cells])
        hi = np.array([_value(c["ci_high"]) for c in cells])
        pos = x - 0.4 + width * (i + 0.5)
        ok = np.isfinite(val)
        ax.plot(pos[ok], val[ok], "o", color=run_colour(i), label=method, ms=4)
        ci = ok & np.isfinite(lo) & np.isfinite(hi)
        ax.errorbar(pos[ci], val[ci], yerr=[val[ci] - lo[ci], hi[ci] - val[ci]], fmt="none",
                    ecolor=run_colour(i), capsize=2, lw=0.8)  # fmt: skip
    ax.axhline(0.0, color="grey", lw=0.8, ls="--")
    ax.set_xticks(x, scopes, fontsize=8)
    ax.set_ylabel(f"skill vs {scored['baseline']}")
    ax.set_title("Imputation skill per scope (whiskers: participant bootstrap 95% CI)")
    ax.legend(fontsize=7, loc="best", ncol=min(len(methods), 4), frameon=False, handlelength=1.2)
    fig.tight_layout()
    return fig
