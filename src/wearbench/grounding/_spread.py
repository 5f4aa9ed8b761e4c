"""Which ordered answer classes an item shows, so the correct class's rank is spread evenly.

A 10-option question over an ordered scale (lags, signed effect bins) shows a contiguous window
of the scale around the correct class. If the window were centred, or if every class were
always shown, the correct option's rank among the shown options would follow the (skewed)
answer distribution, and a text-only model could guess from where an option's number falls
(extreme or middle). Instead the correct class's position ``k`` in the window is drawn from
``q_i(k)``: weights over the positions that fit the scale, fitted by iterative proportional
fitting so that under a prior over answer classes (a design prior; a wrong prior only makes
the spread less flat, never an option wrong) every position is about equally likely.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np


def _feasible(i: int, n_classes: int, n_show: int) -> range:
    """Positions ``k`` (classes shown below ``i``) with the whole window on the scale."""
    return range(max(0, i - (n_classes - n_show)), min(n_show - 1, i) + 1)


@lru_cache(maxsize=32)
def position_weights(n_classes: int, n_show: int, prior: tuple[float, ...]) -> tuple[tuple[float, ...], ...]:
    """Per answer class, probabilities of its position ``0 … n_show-1`` in the shown window.

    Args:
        n_classes: Classes on the ordered scale.
        n_show: Classes shown (a contiguous window).
        prior: Assumed frequency of each class as the correct answer.

    Returns:
        ``q[i][k]``: probability that class ``i`` is shown at position ``k`` (0 where infeasible).
    """
    p = np.asarray(prior, dtype=float)
    p = p / p.sum()
    q = np.zeros((n_classes, n_show))
    for i in range(n_classes):
        q[i, list(_feasible(i, n_classes, n_show))] = 1.0
    q /= q.sum(1, keepdims=True)
    for _ in range(200):
        marginal = p @ q
        q = np.where(q > 0, q / np.maximum(marginal, 1e-12), 0.0)
        q /= q.sum(1, keepdims=True)
    return tuple(tuple(float(v) for v in row) for row in q)


def spread_window(
    answer: int, n_classes: int, n_show: int, prior: Sequence[float], rng: np.random.Generator
) -> range:
    """Contiguous class indices to show (``n_show`` of ``n_classes``), with ``answer`` at a drawn position."""
    q = position_weights(n_classes, n_show, tuple(float(v) for v in prior))[answer]
    k = int(rng.choice(n_show, p=np.asarray(q)))
    start = answer - k
    return range(start, start + n_show)
