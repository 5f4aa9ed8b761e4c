"""Figures of the evaluation report, returned as inline ``data:image/png`` URIs (deterministic bytes)."""

from __future__ import annotations

import base64
import io
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

import numpy as np

from wearbench._errors import WearbenchError
from wearbench.cohort import BIOMARKERS, METRIC_NAMES, metric
from wearbench.primitives import cutoff_tables
from wearbench.questions import LETTERS, Item, UserContext
from wearbench.report._eval_html import p_text

if TYPE_CHECKING:
    from matplotlib.axes import Axes
from wearbench.scoring import Accuracy, PositionBias

try:
    import matplotlib.style
    from matplotlib.figure import Figure
except ImportError as e:  # pragma: no cover - exercised only without the [report] extra
    raise WearbenchError("the evaluation report needs matplotlib: pip install 'wearbench[report]'") from e

_COLOURS = (
    "tab:blue",
    "tab:orange",
    "tab:green",
    "tab:red",
    "tab:purple",
    "tab:brown",
    "tab:pink",
    "tab:olive",
)
_MAX_SERIES = 4


def plot_style() -> AbstractContextManager[None]:
    """Context manager fixing matplotlib's defaults, so a user's matplotlibrc cannot change the figures."""
    return matplotlib.style.context(["default", {"font.size": 9, "axes.titlesize": 10}])


def figure_uri(fig: Figure, dpi: int = 96) -> str:
    """The figure as a ``data:image/png;base64`` URI (no timestamp metadata: same figure, same bytes)."""
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None}, bbox_inches="tight")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def run_colour(i: int) -> str:
    """The colour of the i-th run in every figure (a fixed cycle of eight)."""
    return _COLOURS[i % len(_COLOURS)]


def plot_label_family(family: str, runs: Sequence[tuple[str, Mapping[str, Accuracy]]]) -> Figure:
    """Grouped bars: accuracy per label of one family, one bar per run, Wilson 95% whiskers.

    Args:
        family: Label family (``reasoning``, ``type`` …), used in the title.
        runs: ``(run tag, label → accuracy)`` per run, in legend order (keep tags short: the
            legend is one row above the bars).
    """
    labels = sorted({lab for _, accs in runs for lab in accs})
    width = 0.8 / max(len(runs), 1)
    fig = Figure(figsize=(min(12.0, max(4.6, 1.6 + 0.3 * len(labels) * max(len(runs), 1))), 3.0))
    ax = fig.subplots()
    x = np.arange(len(labels), dtype=float)
    for i, (name, accs) in enumerate(runs):
        got = [accs.get(lab) for lab in labels]
        val = np.array([a.value if a and a.n else np.nan for a in got])
        lo = np.array([a.lo if a and a.n else np.nan for a in got])
        hi = np.array([a.hi if a and a.n else np.nan for a in got])
        pos = x - 0.4 + width * (i + 0.5)
        ax.bar(pos, val, width * 0.92, color=run_colour(i), label=name)
        ax.errorbar(pos, val, yerr=[val - lo, hi - val], fmt="none", ecolor="black", capsize=2, lw=0.8)
    ax.axhline(0.1, color="grey", ls="--", lw=0.8, label="chance")
    n = {lab: max((accs[lab].n for _, accs in runs if lab in accs), default=0) for lab in labels}
    rotate = 30 if len(labels) > 5 else 0
    ticks = [f"{lab}\n(n≤{n[lab]})" if rotate == 0 else f"{lab} (n≤{n[lab]})" for lab in labels]
    ax.set_xticks(x, ticks, rotation=rotate, ha="right" if rotate else "center", fontsize=8)
    ax.set_ylim(0, 1.18)
    ax.set_yticks(np.linspace(0, 1, 6))
    ax.set_ylabel("accuracy")
    ax.set_title(f"Accuracy by {family.replace('_', ' ')}")
    ax.legend(fontsize=7, loc="upper center", ncol=len(runs) + 1, frameon=False, handlelength=1.2)
    fig.tight_layout()
    return fig


def plot_position_bias(runs: Sequence[tuple[str, PositionBias]]) -> Figure:
    """Per run: share of parsed answers on each letter (bars) beside the gold letters' share (line)."""
    cols = min(3, max(len(runs), 1))
    rows = -(-len(runs) // cols)
    fig = Figure(figsize=(4.2 * cols, 2.8 * rows))
    axes = np.atleast_1d(fig.subplots(rows, cols, squeeze=False)).ravel()
    x = np.arange(len(LETTERS))
    for i, (ax, (name, bias)) in enumerate(zip(axes, runs, strict=False)):
        n_chosen = max(sum(bias.chosen.values()), 1)
        n_gold = max(sum(bias.gold.values()), 1)
        ax.bar(x, [bias.chosen[c] / n_chosen for c in LETTERS], color=run_colour(i), label="chosen")
        ax.step(x, [bias.gold[c] / n_gold for c in LETTERS], where="mid", color="black", lw=1.2, label="gold")
        ax.axhline(0.1, color="grey", ls="--", lw=0.8)
        ax.set_xticks(x, list(LETTERS))
        ax.set_title(f"{name}\nχ² test against uniform letters: {p_text(bias.chi2_p)}", fontsize=8)
        ax.set_ylabel("share of parsed answers", fontsize=8)
        ax.legend(fontsize=7, frameon=False)
    for ax in axes[len(runs) :]:
        ax.set_visible(False)
    fig.tight_layout()
    return fig


def plot_series(item: Item, ctx: UserContext) -> Figure | None:
    """The item's metrics over the days it shows (history), with its window shaded.

    Returns:
        The figure, or None when none of the item's metrics is a daily series in the context.
    """
    names = [m for m in item.metrics if m in ctx.metrics and m in METRIC_NAMES][:_MAX_SERIES]
    if not names:
        return None
    end = ctx.index(item.end_date)
    dates = ctx.span_dates(end, item.history_days)
    start = dates[-item.window_days] if item.window_days <= dates.size else dates[0]
    fig = Figure(figsize=(9, 1.5 + 1.3 * len(names)))
    axes = np.atleast_1d(fig.subplots(len(names), 1, sharex=True, squeeze=False)).ravel()
    for ax, name in zip(axes, names, strict=True):
        ax.plot(dates, ctx.span(name, end, item.history_days), lw=0.9, color="black", marker=".", ms=2)
        ax.axvspan(start, dates[-1] + np.timedelta64(1, "D"), color="tab:blue", alpha=0.12)
        ax.set_ylabel(f"{name}\n({metric(name).unit})", fontsize=8)
    axes[0].set_title(
        f"user {item.user_id}: {item.history_days} days to {item.end_date}; "
        f"shaded: the {item.window_days}-day window",
        fontsize=9,
    )
    fig.autofmt_xdate()
    fig.tight_layout()
    return fig


def blood_markers(item: Item) -> list[str]:
    """The biomarkers the item's graph reads (``blood`` nodes), in graph order, without repeats."""
    nodes = item.graph.get("nodes", []) if isinstance(item.graph, Mapping) else []
    return list(dict.fromkeys(str(n["marker"]) for n in nodes if n.get("op") == "blood"))


def _cutoffs(name: str, sex: str) -> list[tuple[float, str]]:
    """``(cut-off, category from there up)`` of a biomarker's clinical rule for this sex (none if unknown)."""
    rule = cutoff_tables()["default"].get(name)
    if rule is None:
        return []
    bands = rule.bands.get(sex) or rule.bands.get("any") or ()
    return [(float(b.lower), str(b.category)) for b in bands if b.lower is not None]


def _blood_panel(ax: Axes, name: str, unit: str, dates: Sequence[str], values: np.ndarray, sex: str) -> None:
    x = np.arange(len(dates))
    ax.plot(x, values, "o-", color="grey", ms=3, lw=0.6)
    ax.plot(x[-1:], values[-1:], "o", color="tab:red", ms=6)
    if np.isfinite(values[-1]):
        ax.annotate(f"{values[-1]:.3g} {unit}", (x[-1], values[-1]), fontsize=8, color="tab:red",
                    xytext=(7, -3), textcoords="offset points", ha="left")  # fmt: skip
    finite = values[np.isfinite(values)]
    lo, hi = (float(finite.min()) / 1.6, float(finite.max()) * 1.6) if finite.size else (0.0, np.inf)
    for cut, category in _cutoffs(name, sex):
        if lo <= cut <= hi:  # cut-offs far from the values would squash the panel
            ax.axhline(cut, color="grey", ls="--", lw=0.7)
            label = f"{category.replace('_', ' ')} ≥ {cut:g}"
            ax.annotate(label, (0, cut), xycoords=("axes fraction", "data"), fontsize=6, color="dimgrey",
                        xytext=(2, 1), textcoords="offset points")  # fmt: skip
    ax.set_xticks(x, dates, fontsize=6, rotation=30, ha="right")
    ax.set_xlim(-0.7, len(dates) + 0.4)  # room for the value label
    ax.set_title(f"{name.replace('_', ' ')} ({unit})" if unit else name.replace("_", " "), fontsize=8)
    ax.tick_params(axis="y", labelsize=7)
    ax.margins(y=0.3)


def plot_blood(item: Item, ctx: UserContext) -> Figure | None:
    """The blood values an item reads: each biomarker's draws up to the end date, the used one marked.

    One small panel per biomarker the item's graph reads: every draw on or before the item's
    end date in date order (x: draw dates), the latest (the one the question uses) in red with
    its value and unit, and the clinical cut-offs of the biomarker (for the user's sex) that lie
    within a factor 1.6 of the values dashed.

    Returns:
        The figure, or None when the item reads no biomarker or the user has no draw by then.
    """
    markers = blood_markers(item)
    draws = [b for b in ctx.blood if str(b["draw_date"]) <= item.end_date]
    if not markers or not draws:
        return None
    units = {b.name: b.unit for b in BIOMARKERS}
    cols = min(4, len(markers))
    rows = -(-len(markers) // cols)
    fig = Figure(figsize=(2.4 * cols + 0.6, 2.2 * rows + 0.5))
    axes = np.atleast_1d(fig.subplots(rows, cols, squeeze=False)).ravel()
    dates = [str(b["draw_date"])[:10] for b in draws]
    sex = str(ctx.demographics.get("sex", ""))
    for ax, name in zip(axes, markers, strict=False):
        values = np.array([float(b.get(name, np.nan)) for b in draws])
        _blood_panel(ax, name, units.get(name, ""), dates, values, sex)
    for ax in axes[len(markers) :]:
        ax.set_visible(False)
    fig.suptitle(
        f"user {item.user_id}: blood draws up to {item.end_date}; red: the latest, which the question uses; "
        "dashed: clinical cut-offs",
        fontsize=9,
    )
    fig.tight_layout()
    return fig
