"""Figure of the OpenMHC imputation part of the report (matplotlib, deterministic bytes).

Needs the ``[report]`` extra (matplotlib), as ``_eval_plots`` does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import NDArray

from wearbench._errors import WearbenchError
from wearbench.minutes import BINARY, CHANNELS, CONTINUOUS
from wearbench.report._eval_plots import run_colour
from wearbench.report._track_example import ExampleDay

try:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
except ImportError as e:  # pragma: no cover - exercised only without the [report] extra
    raise WearbenchError("the evaluation report needs matplotlib: pip install 'wearbench[report]'") from e


#: Channels drawn when no continuous channel was masked: Watch steps, heart rate, active energy.
_DEFAULT_CHANNELS = (3, 5, 6)
_MASK_COLOUR = "#ffd21f"  # not in the run colour cycle


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


def _example_channels(ex: ExampleDay) -> tuple[list[int], list[int]]:
    """Continuous channels with masked cells (else steps, HR, energy), binary ones with masked cells."""
    cont = [c for c in CONTINUOUS if ex.mask[c].any()] or list(_DEFAULT_CHANNELS)
    return cont, [c for c in BINARY if ex.mask[c].any()]


def _continuous_panel(ax: Axes, ex: ExampleDay, c: int, hours: NDArray[np.float64]) -> None:
    ax.fill_between(hours, 0, 1, where=ex.mask[c], transform=ax.get_xaxis_transform(), step="mid",
                    color=_MASK_COLOUR, alpha=0.35, lw=0, label="masked")  # fmt: skip
    ax.plot(hours, ex.truth[c], color="black", lw=0.7, label="truth")
    for i, method in enumerate(ex.methods):
        y = np.where(ex.mask[c], ex.imputed[i, c], np.nan)
        ax.plot(hours, y, color=run_colour(i), lw=1.0, marker=".", ms=2, label=method)
    ax.set_ylabel(f"{CHANNELS[c].name}\n({CHANNELS[c].unit})", fontsize=7)
    ax.tick_params(labelsize=7)


def _binary_strip(ax: Axes, ex: ExampleDay, channels: list[int]) -> None:
    truth = ex.truth[channels]  # NaN (unobserved) is drawn in the colormap's "bad" colour, as masked
    ax.imshow(truth, aspect="auto", cmap="Greys", vmin=-0.5, vmax=1.5, interpolation="nearest",
              extent=(0.0, 24.0, len(channels) - 0.5, -0.5))  # fmt: skip
    overlay = np.zeros((len(channels), ex.mask.shape[1], 4))
    overlay[ex.mask[channels]] = (1.0, 0.82, 0.12, 0.6)
    ax.imshow(overlay, aspect="auto", interpolation="nearest", extent=(0.0, 24.0, len(channels) - 0.5, -0.5))
    ax.set_yticks(range(len(channels)), [CHANNELS[c].name for c in channels], fontsize=7)
    ax.tick_params(axis="x", labelsize=7)


def plot_example_day(ex: ExampleDay) -> Figure:
    """The example day: truth, masked span shaded, each method's imputation over the masked cells.

    One panel per continuous channel with masked cells (x: hour of day, y: the channel's unit
    per minute), then a strip of the binary channels with masked cells (dark: 1, light: 0, blank:
    unobserved; yellow: masked).

    Args:
        ex: The example day (:func:`~wearbench.report._track_example.load_example`).
    """
    cont, binary = _example_channels(ex)
    ratios = [1.0] * len(cont) + ([0.25 * len(binary) + 0.3] if binary else [])
    fig = Figure(figsize=(10.0, 1.5 * sum(ratios) + 0.9))
    axes = fig.subplots(len(ratios), 1, sharex=True, squeeze=False, gridspec_kw={"height_ratios": ratios})[
        :, 0
    ]
    hours = np.arange(ex.truth.shape[1], dtype=float) / 60.0
    for ax, c in zip(axes, cont, strict=False):
        _continuous_panel(ax, ex, c, hours)
    if binary:
        _binary_strip(axes[-1], ex, binary)
    axes[0].legend(fontsize=7, loc="upper left", ncol=min(len(ex.methods) + 2, 6), frameon=False)
    axes[-1].set_xlim(0.0, 24.0)
    axes[-1].set_xticks(np.arange(0, 25, 3))
    axes[-1].set_xlabel("hour of day", fontsize=8)
    fig.suptitle(f"{ex.user}, {ex.date}, masked by {ex.approach}", fontsize=9)
    fig.tight_layout()
    return fig
