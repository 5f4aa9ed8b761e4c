"""Image representations: line plots of the daily series as PNGs (for vision models).

``plot`` draws one PNG per signal; ``plot-grouped`` puts up to four signals whose values
span a similar range (see :func:`range_groups`) on one shared axis, one PNG per group.
Images are 900×300 px (9×3 in at 100 dpi), drawn with the Agg canvas on a fresh
:class:`matplotlib.figure.Figure` under matplotlib's default style, with no ``Software``
metadata, so the bytes depend only on the data and the matplotlib version. Missing days
are gaps in the line (the text part says so). matplotlib is imported lazily.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from wearbench._errors import WearbenchError
from wearbench.models import ImagePart, TextPart
from wearbench.prompts._format import context_text, series_header
from wearbench.prompts._text import Parts, representation
from wearbench.prompts._view import DataView, Series

_SIZE_IN = (9.0, 3.0)
_DPI = 100
_MAX_TICKS = 6
_RATIO = 2.5
_PER_PANEL = 4


def _matplotlib() -> Any:
    try:
        import matplotlib
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise WearbenchError("plot representations need matplotlib: pip install 'wearbench[report]'") from e
    return matplotlib, Figure, FigureCanvasAgg


def _render(view: DataView, series: Sequence[Series], title: str) -> bytes:
    """One PNG of ``series`` against the day index, dates as tick labels."""
    matplotlib, figure_cls, canvas_cls = _matplotlib()
    defaults = {k: v for k, v in matplotlib.rcParamsDefault.items() if k != "backend"}
    with matplotlib.rc_context(defaults):
        fig = figure_cls(figsize=_SIZE_IN, dpi=_DPI, layout="constrained")
        canvas_cls(fig)
        ax = fig.add_subplot()
        x = np.arange(len(view.dates))
        for s in series:
            y = np.array(s.values, dtype=np.float64)
            ax.plot(x, y, marker="o", markersize=2, linewidth=1, label=f"{s.name} ({s.unit})")
        n = len(view.dates)
        ticks = np.unique(np.linspace(0, n - 1, min(_MAX_TICKS, n)).round().astype(int))
        ax.set_xticks(ticks, [view.dates[i] for i in ticks], fontsize=8)
        window = min(view.window_days, n)
        ax.axvspan(n - window - 0.5, n - 0.5, color="0.9", zorder=0)
        ax.set_title(title, fontsize=10)
        ax.tick_params(axis="y", labelsize=8)
        ax.grid(True, linewidth=0.3)
        if len(series) > 1:
            ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.0, 0.5))
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=_DPI, metadata={"Software": None})
    return buf.getvalue()


def _alt(view: DataView, series: Sequence[Series]) -> str:
    names = ", ".join(f"{s.name} ({s.unit}, {s.n_missing} missing)" for s in series)
    return f"Line plot, {view.dates[0]} to {view.dates[-1]}: {names}"


def _images(view: DataView, groups: Sequence[Sequence[Series]], what: str) -> Parts:
    text = context_text(view)
    if not view.series:
        return (TextPart(text),)
    note = f"{what} The x axis is the date; the shaded band is the question window; gaps are missing days."
    parts: list[TextPart | ImagePart] = [TextPart(text + "\n\n" + series_header(view, "gaps") + "\n" + note)]
    for group in groups:
        title = ", ".join(f"{s.name} ({s.unit})" for s in group)
        parts.append(ImagePart(_render(view, group, title), alt=_alt(view, group)))
    return tuple(parts)


def range_groups(series: Sequence[Series]) -> list[list[Series]]:
    """Group series whose value ranges are alike, so they can share one y axis.

    Each series' scale is its largest absolute value (at least 1). Going from the largest
    scale down, a series joins the current group while its scale is at least 1/2.5 of the
    group's largest and the group has fewer than 4 series; otherwise it starts a new group.
    Series keep their given (schema) order inside a group, and groups are ordered by their
    first series.
    """
    order = {s.name: i for i, s in enumerate(series)}
    scaled = sorted(
        series, key=lambda s: (-max(1.0, max(abs(v) for v in s.values if math.isfinite(v))), order[s.name])
    )
    groups: list[list[Series]] = []
    top = math.inf
    for s in scaled:
        scale = max(1.0, max(abs(v) for v in s.values if math.isfinite(v)))
        if groups and scale * _RATIO >= top and len(groups[-1]) < _PER_PANEL:
            groups[-1].append(s)
        else:
            groups.append([s])
            top = scale
    for g in groups:
        g.sort(key=lambda s: order[s.name])
    return sorted(groups, key=lambda g: order[g[0].name])


@representation(image=True, stats=False)
def plot(view: DataView) -> Parts:
    """One line-plot PNG per signal (900×300 px), after the static context."""
    return _images(view, [[s] for s in view.series], "One image per signal, in the order listed.")


@representation("plot-grouped", image=True, stats=False)
def plot_grouped(view: DataView) -> Parts:
    """Signals grouped by value range into shared-axis panels, one PNG (900×300 px) per panel."""
    return _images(view, range_groups(view.series), "Signals with similar value ranges share a panel.")
