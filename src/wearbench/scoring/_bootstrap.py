"""Cluster (per-user) bootstrap of a mean: resample users with replacement, percentile interval.

Items of one user are not independent (same record, same habits), so the interval of an
accuracy — or of a paired accuracy difference — resamples whole users: each replicate draws
``U`` users with replacement out of the ``U`` present and takes the pooled mean of their items
(sum of values over sum of item counts). Vectorised with numpy; seeded, so deterministic.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def cluster_totals(
    clusters: Sequence[str], values: Sequence[float]
) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Per-cluster sums and counts.

    Args:
        clusters: Cluster (user) id of each item.
        values: Value of each item (1/0 for correct, -1/0/1 for a paired difference).

    Returns:
        ``(sums, counts, ids)``: float sums and integer counts per cluster, clusters sorted by id.

    Raises:
        ValueError: If the two sequences differ in length.
    """
    if len(clusters) != len(values):
        raise ValueError(f"{len(clusters)} cluster ids for {len(values)} values")
    ids = sorted(set(clusters))
    pos = {c: i for i, c in enumerate(ids)}
    index = np.fromiter((pos[c] for c in clusters), dtype=np.intp, count=len(clusters))
    sums = np.bincount(index, weights=np.asarray(values, dtype=float), minlength=len(ids))
    counts = np.bincount(index, minlength=len(ids))
    return sums, counts, ids


def cluster_bootstrap_ci(
    clusters: Sequence[str],
    values: Sequence[float],
    *,
    seed: int = 0,
    n_boot: int = 2000,
    level: float = 0.95,
) -> tuple[float, float]:
    """Percentile interval of the pooled mean under a bootstrap over clusters.

    Args:
        clusters: Cluster (user) id of each item.
        values: Value of each item.
        seed: Seed of ``numpy.random.default_rng``.
        n_boot: Bootstrap replicates (≥ 1).
        level: Coverage of the interval, in ``(0, 1)``.

    Returns:
        ``(lo, hi)``; ``(nan, nan)`` without items. With one cluster, or clusters that all have
        the same mean, the interval collapses onto the point estimate.

    Raises:
        ValueError: On bad ``n_boot``/``level`` or mismatched lengths.
    """
    if n_boot < 1:
        raise ValueError(f"n_boot must be >= 1, got {n_boot}")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    sums, counts, _ = cluster_totals(clusters, values)
    if not len(counts):
        return math.nan, math.nan
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, len(counts), size=(n_boot, len(counts)))
    means = sums[draws].sum(axis=1) / counts[draws].sum(axis=1)
    tail = (1 - level) / 2
    lo, hi = np.quantile(means, [tail, 1 - tail])
    point = float(sums.sum() / counts.sum())
    return _snap(float(lo), point), _snap(float(hi), point)


def _snap(x: float, point: float) -> float:
    """``point`` when ``x`` differs from it only by float rounding (a collapsed interval is exact)."""
    return point if math.isclose(x, point, rel_tol=1e-12, abs_tol=1e-12) else x
