"""The Ambulatory Glucose Profile as a figure: median and 5/25/75/95th percentile bands by time of day."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from wearbench._errors import WearbenchError
from wearbench.cgm.metrics._api import agp_percentiles

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: Target range shaded on the AGP, mg/dL (Battelino et al. 2019).
_TARGET = (70.0, 180.0)


def agp_figure(times: Any, glucose: Any, *, bin_minutes: int = 15, title: str = "") -> Figure:
    """The AGP of one subject: :func:`agp_percentiles` drawn against clock time.

    The 5–95th and 25–75th percentile bands are filled, the median is a line, and the
    70–180 mg/dL target range is marked. Each bin is drawn at its centre; empty bins are gaps.

    Args:
        times: Reading times, naive local wall clock.
        glucose: Glucose, mg/dL.
        bin_minutes: Bin width in minutes; must divide 1440.
        title: Figure title (a default naming the days and readings if empty).

    Returns:
        The matplotlib figure (not attached to pyplot).

    Raises:
        WearbenchError: Without matplotlib, for a bad ``bin_minutes`` or bad readings.
    """
    try:
        import matplotlib.style
        from matplotlib.figure import Figure
    except ImportError as e:  # pragma: no cover - only without the [report] extra
        raise WearbenchError("the AGP plot needs matplotlib: pip install 'wearbench[report]'") from e
    agp = agp_percentiles(times, glucose, bin_minutes)
    hours = (agp["minute"].to_numpy() + bin_minutes / 2) / 60.0
    n = int(agp["n"].sum())
    with matplotlib.style.context(["default", {"font.size": 9}]):
        fig = Figure(figsize=(8.0, 3.6))
        ax = fig.subplots()
        ax.axhspan(*_TARGET, color="tab:green", alpha=0.08, lw=0, label="target 70–180 mg/dL")
        ax.fill_between(hours, agp["p5"], agp["p95"], color="tab:blue", alpha=0.15, lw=0, label="5th–95th")
        ax.fill_between(hours, agp["p25"], agp["p75"], color="tab:blue", alpha=0.35, lw=0, label="25th–75th")
        ax.plot(hours, agp["p50"], color="navy", lw=1.6, label="median")
        for level in _TARGET:
            ax.axhline(level, color="tab:green", lw=0.8, ls="--")
        ax.set_xlim(0, 24)
        ax.set_xticks(np.arange(0, 25, 3), [f"{h:02d}:00" for h in range(0, 25, 3)])
        top = float(np.nanmax(agp["p95"])) if n else 250.0
        ax.set_ylim(0, max(300.0, top * 1.05))
        ax.set_xlabel("time of day")
        ax.set_ylabel("glucose (mg/dL)")
        ax.set_title(title or f"Ambulatory glucose profile ({n} readings, {bin_minutes}-minute bins)")
        ax.legend(fontsize=7, loc="upper right", frameon=False, ncol=4)
        fig.tight_layout()
    return fig


def write_agp_png(times: Any, glucose: Any, out: Path, *, bin_minutes: int = 15, title: str = "") -> Path:
    """Write :func:`agp_figure` as a PNG (no timestamp metadata: same readings, same bytes).

    Returns:
        ``out`` (parent folders are created).
    """
    fig = agp_figure(times, glucose, bin_minutes=bin_minutes, title=title)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, format="png", dpi=100, metadata={"Software": None})
    return out
