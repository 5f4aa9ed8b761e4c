"""Matplotlib figures for the cohort report (object API, no pyplot state; deterministic PNG bytes)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from wearbench._errors import WearbenchError
from wearbench.cohort import METRICS, Cohort, metric

try:
    from matplotlib.figure import Figure
except ImportError as e:  # pragma: no cover - exercised only without the [report] extra
    raise WearbenchError(
        "plots need matplotlib: pip install 'wearbench[report]' (make demo installs it)"
    ) from e

_EPISODE_COLOURS = {
    "illness": "tab:red",
    "stress": "tab:purple",
    "travel": "tab:orange",
    "injury": "tab:brown",
}


def save_figure(fig: Figure, path: Path) -> Path:
    """Save ``fig`` as PNG without timestamp/version metadata (same figure, same bytes)."""
    fig.savefig(path, dpi=110, metadata={"Software": None}, bbox_inches="tight")
    return path


def plot_distributions(cohort: Cohort) -> Figure:
    """Histogram of every daily metric over all user-days, with the plausible range as x-limits."""
    fig = Figure(figsize=(14, 11))
    axes = fig.subplots(4, 4)
    for ax, m in zip(axes.flat, METRICS, strict=True):
        vals = cohort.daily[m.name].to_numpy(dtype=float)
        vals = vals[np.isfinite(vals)]
        if vals.size:
            ax.hist(vals, bins=_bins(vals), color="tab:blue", alpha=0.8)
        missing = 1.0 - vals.size / max(len(cohort.daily), 1)
        ax.set_title(f"{m.name} ({m.unit})\nmissing {missing:.0%}", fontsize=9)
        ax.tick_params(labelsize=7)
    fig.suptitle("Daily metric distributions (all user-days)")
    fig.tight_layout()
    return fig


def _bins(vals: np.ndarray, target: int = 40) -> np.ndarray | int:
    """Histogram edges; whole-number data get edges on half-integers so bars do not alias."""
    if not np.all(vals == np.round(vals)):
        return target
    lo, hi = float(vals.min()), float(vals.max())
    step = max(1.0, np.ceil((hi - lo + 1) / target))
    return np.arange(lo - 0.5, hi + step + 0.5, step)


def plot_correlations(names: Sequence[str], matrix: np.ndarray, title: str) -> Figure:
    """Heatmap of a metric correlation matrix with values printed in each cell."""
    fig = Figure(figsize=(9, 8))
    ax = fig.subplots()
    im = ax.imshow(matrix, vmin=-1, vmax=1, cmap="RdBu_r")
    ax.set_xticks(range(len(names)), names, rotation=90, fontsize=8)
    ax.set_yticks(range(len(names)), names, fontsize=8)
    for i in range(len(names)):
        for j in range(len(names)):
            if np.isfinite(matrix[i, j]):
                ax.text(j, i, f"{matrix[i, j]:.1f}", ha="center", va="center", fontsize=6)
    fig.colorbar(im, ax=ax, shrink=0.8, label="Pearson r")
    ax.set_title(title)
    fig.tight_layout()
    return fig


def plot_missingness(cohort: Cohort, max_users: int = 60) -> Figure:
    """Users × days map of how many of the 16 metrics are present each day."""
    users = cohort.user_ids[:max_users]
    rows = [cohort.user(u) for u in users]
    n_days = max(r.dates.size for r in rows)
    grid = np.full((len(rows), n_days), np.nan)
    for i, rec in enumerate(rows):
        present = np.vstack([np.isfinite(v) for v in rec.values.values()]).sum(axis=0)
        grid[i, : present.size] = present
    fig = Figure(figsize=(12, max(3.0, 0.12 * len(rows) + 1.5)))
    ax = fig.subplots()
    im = ax.imshow(grid, aspect="auto", interpolation="nearest", cmap="viridis", vmin=0, vmax=len(METRICS))
    ax.set_xlabel("day of record")
    ax.set_ylabel("user")
    ax.set_yticks(range(len(users)), users, fontsize=5)
    fig.colorbar(im, ax=ax, label="metrics present")
    ax.set_title("Missingness: metrics present per user-day (non-wear days are dark)")
    fig.tight_layout()
    return fig


def plot_user_timeline(
    cohort: Cohort,
    user_id: str,
    metrics: Sequence[str],
    baselines: Mapping[str, tuple[np.ndarray, np.ndarray]],
    k: float = 1.5,
) -> Figure:
    """One user's metrics over time with the trailing baseline ± k·SD and planted episodes shaded."""
    rec = cohort.user(user_id, metrics)
    fig = Figure(figsize=(13, 2.3 * len(metrics)))
    axes = fig.subplots(len(metrics), 1, sharex=True)
    episodes = [e for e in (cohort.truth or {}).get("episodes", []) if e["user_id"] == user_id]
    for ax, name in zip(np.atleast_1d(axes), metrics, strict=True):
        ax.plot(rec.dates, rec[name], lw=0.8, color="black", label=name)
        centre, scale = baselines[name]
        ax.plot(rec.dates, centre, lw=1, color="tab:blue", label="28-day baseline")
        ax.fill_between(rec.dates, centre - k * scale, centre + k * scale, color="tab:blue", alpha=0.15)
        for ep in episodes:
            ax.axvspan(
                np.datetime64(ep["start"]),
                np.datetime64(ep["end"]) + np.timedelta64(1, "D"),
                color=_EPISODE_COLOURS.get(ep["kind"], "grey"),
                alpha=0.25,
            )
        ax.set_ylabel(f"{name}\n({metric(name).unit})", fontsize=8)
    kinds = sorted({e["kind"] for e in episodes})
    legend = ", ".join(f"{kd}={_EPISODE_COLOURS.get(kd, 'grey').removeprefix('tab:')}" for kd in kinds)
    fig.suptitle(f"user {user_id}: baseline ± {k} SD; planted episodes shaded ({legend or 'none'})")
    fig.tight_layout()
    return fig


def plot_lag_recovery(planted: Sequence[int], recovered: Sequence[int], max_lag: int) -> Figure:
    """Confusion matrix of planted vs recovered coupling lags (days)."""
    size = max_lag + 1
    counts = np.zeros((size, size), dtype=int)
    for p, r in zip(planted, recovered, strict=True):
        if 0 <= p < size and 0 <= r < size:
            counts[p, r] += 1
    fig = Figure(figsize=(4.5, 4))
    ax = fig.subplots()
    ax.imshow(counts, cmap="Blues")
    for i in range(size):
        for j in range(size):
            ax.text(j, i, str(counts[i, j]), ha="center", va="center", fontsize=9)
    ax.set_xticks(range(size))
    ax.set_yticks(range(size))
    ax.set_xlabel("recovered lag (days)")
    ax.set_ylabel("planted lag (days)")
    ax.set_title("Planted vs recovered coupling lag")
    fig.tight_layout()
    return fig


def plot_benchmark(summary: Mapping[str, Any], reasoning: Mapping[str, str]) -> Figure:
    """Items per question type (coloured by reasoning group) and text-only shortcut accuracy.

    Args:
        summary: The demo's benchmark summary (``by_type`` counts and ``shortcut_audit``).
        reasoning: Question type → ``data`` or ``health``.
    """
    types = sorted(summary["by_type"], key=lambda t: (reasoning.get(t, ""), t))
    fig = Figure(figsize=(13, 0.32 * len(types) + 2))
    left, right = fig.subplots(1, 2, sharey=True)
    y = np.arange(len(types))
    colours = ["tab:blue" if reasoning.get(t) == "data" else "tab:green" for t in types]
    left.barh(y, [summary["by_type"][t] for t in types], color=colours)
    left.set_yticks(y, types, fontsize=8)
    left.invert_yaxis()
    left.set_xlabel("items (blue: data reasoning, green: health reasoning)")
    audit = summary["shortcut_audit"]["by_type"]
    acc = np.array([audit.get(t, {}).get("accuracy", np.nan) for t in types], dtype=float)
    lo = np.array([audit.get(t, {}).get("lo", np.nan) for t in types], dtype=float)
    hi = np.array([audit.get(t, {}).get("hi", np.nan) for t in types], dtype=float)
    right.errorbar(acc, y, xerr=[acc - lo, hi - acc], fmt="o", color="black", capsize=3)
    right.axvline(0.1, ls="--", color="grey", label="chance (10%)")
    right.set_xlim(0, max(0.5, float(np.nanmax(hi)) + 0.05) if np.isfinite(hi).any() else 0.5)
    right.set_xlabel("text-only shortcut accuracy, 95% Wilson CI")
    right.legend(loc="lower right", fontsize=8)
    fig.suptitle(f"Benchmark: {summary['n_items']} items from {summary['n_users']} users")
    fig.tight_layout()
    return fig
