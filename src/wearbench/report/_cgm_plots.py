"""Figures of the HealthLoopQA part of the evaluation report (matplotlib, deterministic bytes).

Needs the ``[report]`` extra (matplotlib), as ``_eval_plots`` does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from wearbench._errors import WearbenchError
from wearbench.cgmqa import LEVELS
from wearbench.report._eval_plots import run_colour

try:
    from matplotlib.figure import Figure
except ImportError as e:  # pragma: no cover - exercised only without the [report] extra
    raise WearbenchError("the evaluation report needs matplotlib: pip install 'wearbench[report]'") from e
from wearbench.scoring import TABLE_FAMILIES

_SHORT = {"descriptive": "desc.", "memory": "memory", "pattern": "pattern"}


def family_level_keys(runs: Sequence[tuple[str, Mapping[str, Any]]]) -> list[str]:
    """The Table 2 cells some run has items in (``pm/descriptive`` …, in table order), then ``all``."""
    keys = [
        f"{fam}/{lv}"
        for fam in TABLE_FAMILIES
        for lv in LEVELS
        if any((r["by_family_level"].get(f"{fam}/{lv}") or {}).get("n") for _, r in runs)
    ]
    return [*keys, "all"]


def plot_family_level(runs: Sequence[tuple[str, Mapping[str, Any]]]) -> Figure:
    """Grouped bars: the 0–100 score per family × level cell and overall, one bar per run.

    Whiskers are each cell's patient-clustered bootstrap 95% interval (none where it is
    undefined); the tick labels give the largest n over the runs.

    Args:
        runs: ``(run label, score dict of CGMRunScore.to_dict)`` per run, in legend order.
    """
    keys = family_level_keys(runs)
    width = 0.8 / max(len(runs), 1)
    fig = Figure(figsize=(min(12.0, max(5.0, 1.8 + 0.35 * len(keys) * max(len(runs), 1))), 3.4))
    ax = fig.subplots()
    x = np.arange(len(keys), dtype=float)
    for i, (name, r) in enumerate(runs):
        groups = [r if k == "all" else r["by_family_level"].get(k) for k in keys]
        val = np.array([_get(g, "score") for g in groups])
        lo = np.array([_get(g, "ci_low") for g in groups])
        hi = np.array([_get(g, "ci_high") for g in groups])
        pos = x - 0.4 + width * (i + 0.5)
        ax.bar(pos, val, width * 0.92, color=run_colour(i), label=name)
        ok = np.isfinite(lo) & np.isfinite(hi) & np.isfinite(val)
        ax.errorbar(pos[ok], val[ok], yerr=[val[ok] - lo[ok], hi[ok] - val[ok]], fmt="none",
                    ecolor="black", capsize=2, lw=0.8)  # fmt: skip
    ticks = []
    for k in keys:
        fam, _, lv = k.partition("/")
        n = max((_n(r, k) for _, r in runs), default=0)
        ticks.append(f"overall\n(n≤{n})" if k == "all" else f"{fam.upper()} {_SHORT.get(lv, lv)}\n(n≤{n})")
    ax.set_xticks(x, ticks, fontsize=8)
    ax.set_ylim(0, 112)
    ax.set_yticks(np.linspace(0, 100, 6))
    ax.set_ylabel("score (0–100)")
    ax.set_title("HealthLoopQA score by family and level (whiskers: patient-clustered bootstrap 95% CI)")
    ax.legend(fontsize=7, loc="upper center", ncol=min(len(runs), 4), frameon=False, handlelength=1.2)
    fig.tight_layout()
    return fig


def _get(group: Mapping[str, Any] | None, key: str) -> float:
    value = None if not group or not group.get("n") else group.get(key)
    return float("nan") if value is None else float(value)


def _n(r: Mapping[str, Any], key: str) -> int:
    group = r if key == "all" else r["by_family_level"].get(key)
    return int(group["n"]) if group else 0
