"""``build --match-official``: subsample a build to the official WearableQA label proportions.

The official release (README of facebookresearch/WearableQA, table "Axis / Split / Count")
has 4,084 items: reasoning data / health 2,724 / 1,360, signals single / cross 1,682 / 2,402,
grounding population / literature 3,154 / 930. Its grounding axis has two values; wearbench
has a third, ``definition`` (data-reasoning types with neither a card nor a population gate).
The official paper lists trends, anomalies and recovery dynamics among its *population*-mined
patterns, so for matching, ``population`` and ``definition`` together fill the official
population share (:data:`OFFICIAL_GROUNDING`); the items keep their own label and the report
gives all three values.

Method: the (reasoning, signals, official grounding) cells of the build are raked (iterative
proportional fitting) to the official margins, which keeps the build's associations between
the axes and empties no cell that had items; the raked cell sizes are then scaled up as far
as every cell still has enough items and rounded down. Which items of a cell are kept is a
seeded, generation-order-independent choice (:func:`wearbench.bench._balance.order_key`).
Deterministic: the same items and seed keep the same items.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from wearbench._errors import WearbenchError
from wearbench.bench._balance import order_key
from wearbench.bench._datasheet import OFFICIAL_COUNTS
from wearbench.bench._generate import Pending

#: wearbench grounding label → the official two-valued grounding axis it is matched under.
OFFICIAL_GROUNDING: Mapping[str, str] = {
    "literature": "literature",
    "population": "population",
    "definition": "population",
}
#: Axes matched, in cell-key order.
AXES: tuple[str, ...] = ("reasoning", "signals", "grounding")
_ITERATIONS = 500
_TOLERANCE = 1e-12

Cell = tuple[str, str, str]


def official_cell(labels: Mapping[str, str]) -> Cell:
    """``(reasoning, signals, official grounding)`` of one item's labels."""
    grounding = labels["grounding"]
    if grounding not in OFFICIAL_GROUNDING:
        raise WearbenchError(f"grounding label {grounding!r} has no official counterpart")
    return labels["reasoning"], labels["signals"], OFFICIAL_GROUNDING[grounding]


def _targets(counts: Mapping[str, Mapping[str, int]]) -> list[dict[str, float]]:
    out = []
    for axis in AXES:
        total = sum(counts[axis].values())
        out.append({v: n / total for v, n in counts[axis].items()})
    return out


def _rake(sizes: Mapping[Cell, int], targets: Sequence[Mapping[str, float]]) -> dict[Cell, float]:
    """Cell sizes with the target margin shares and the odds ratios of ``sizes``."""
    for a, target in enumerate(targets):
        present = {c[a] for c, n in sizes.items() if n > 0}
        missing = sorted(v for v, share in target.items() if share > 0 and v not in present)
        extra = sorted(present - set(target))
        if missing or extra:
            what = f"no {AXES[a]}={missing[0]} items" if missing else f"{AXES[a]}={extra[0]} is not official"
            raise WearbenchError(f"cannot match the official label proportions: {what}")
    m = {c: float(n) for c, n in sizes.items() if n > 0}
    for _ in range(_ITERATIONS):
        worst = 0.0
        for a, target in enumerate(targets):
            total = sum(m.values())
            margin: defaultdict[str, float] = defaultdict(float)
            for c, v in m.items():
                margin[c[a]] += v
            for c in m:
                factor = target[c[a]] * total / margin[c[a]]
                worst = max(worst, abs(factor - 1.0))
                m[c] *= factor
        if worst < _TOLERANCE:
            break
    return m


def _keep_counts(sizes: Mapping[Cell, int], counts: Mapping[str, Mapping[str, int]]) -> dict[Cell, int]:
    """Items to keep per cell: raked sizes scaled to the largest that fits, rounded down."""
    raked = _rake(sizes, _targets(counts))
    scale = min(sizes[c] / v for c, v in raked.items())
    # a hair of slack keeps a cell whose raked size is exactly its count from rounding to n - 1
    return {c: min(sizes[c], math.floor(v * scale + 1e-9)) for c, v in raked.items()}


def label_shares(labels: Sequence[Mapping[str, str]]) -> dict[str, dict[str, float]]:
    """Share of each label value per axis (grounding with wearbench's own values)."""
    n = len(labels)
    return {
        axis: {v: c / n for v, c in sorted(Counter(lab[axis] for lab in labels).items())} if n else {}
        for axis in AXES
    }


def match_official(
    pending: Sequence[Pending],
    seed: int,
    counts: Mapping[str, Mapping[str, int]] = OFFICIAL_COUNTS,
) -> tuple[list[Pending], dict[str, Any]]:
    """The seeded subsample of ``pending`` with the official label proportions.

    Args:
        pending: Items of a build (after balancing and capping).
        seed: Build seed (fixes which items of each cell are kept).
        counts: Target counts per axis (default: the official release); only their
            proportions matter.

    Returns:
        The kept items (input order) and a report: ``n_before``, ``n_after``, ``cells``
        (``"reasoning|signals|grounding"`` → ``[available, kept]``), ``target`` (official
        shares per axis), ``achieved`` (shares of the kept items, official grounding axis) and
        ``achieved_labels`` (shares with wearbench's own grounding values).

    Raises:
        WearbenchError: If an axis value with a positive target share has no item, or an item
            has a label value the official axes do not have.
    """
    by_cell: defaultdict[Cell, list[Pending]] = defaultdict(list)
    for p in pending:
        by_cell[official_cell(p.labels)].append(p)
    keep = _keep_counts({c: len(ps) for c, ps in by_cell.items()}, counts)
    kept_ids = {
        p.id for c, ps in by_cell.items() for p in sorted(ps, key=lambda p: order_key(seed, p))[: keep[c]]
    }
    kept = [p for p in pending if p.id in kept_ids]
    official_labels = [dict(zip(AXES, official_cell(p.labels), strict=True)) for p in kept]
    report = {
        "n_before": len(pending),
        "n_after": len(kept),
        "cells": {"|".join(c): [len(by_cell[c]), keep[c]] for c in sorted(by_cell)},
        "target": {axis: dict(t) for axis, t in zip(AXES, _targets(counts), strict=True)},
        "achieved": label_shares(official_labels),
        "achieved_labels": label_shares([p.labels for p in kept]),
    }
    return kept, report
