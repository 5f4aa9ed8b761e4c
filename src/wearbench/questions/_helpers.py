"""Small shared helpers for question types: coverage checks, metric choice, option layout, number wording."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any, TypeVar

import numpy as np

from wearbench.cohort import UserContext
from wearbench.cohort import metric as metric_spec
from wearbench.questions._qtype import Drop


def require_coverage(values: np.ndarray, min_share: float, what: str) -> None:
    """Raise :class:`Drop` unless at least ``min_share`` of ``values`` are present."""
    if _share(values) < min_share:
        raise Drop(f"too few days present for the question ({what})")


def choose_metric(
    ctx: UserContext, end: int, days: int, metrics: Sequence[str], min_share: float, rng: np.random.Generator
) -> str:
    """A metric drawn uniformly among those with enough of the window present.

    Candidates are ``metrics`` with at least ``min_share`` of the ``days`` ending at index
    ``end`` present. Real cohorts lack whole metrics (no HRV in a Fitbit export) or have gaps;
    drawing among the metrics with data keeps such a window instead of dropping it. When every
    metric has data the draw is the same as ``rng.choice(metrics)``.

    Raises:
        Drop: If no metric has enough days present.
    """
    available = [m for m in metrics if m in ctx.metrics and _share(ctx.span(m, end, days)) >= min_share]
    if not available:
        raise Drop("too few days present for the question (in every metric)")
    return str(rng.choice(available))


def _share(values: np.ndarray) -> float:
    return float(np.isfinite(values).mean()) if values.size else 0.0


def fmt_value(value: float, metric: str) -> str:
    """A value with the metric's unit, at a sensible precision."""
    unit = metric_spec(metric).unit
    if math.isinf(value):
        return "∞"
    digits = 0 if abs(value) >= 100 else 1 if abs(value) >= 1 else 2
    return f"{value:,.{digits}f} {unit}"


def metric_phrase(metric: str) -> str:
    """``"resting heart rate (bpm)"``: the metric's description and unit."""
    spec = metric_spec(metric)
    return f"{spec.description} ({spec.unit})"


def paired_options(
    ranked: Sequence[int], rng: np.random.Generator, *, anchors: int = 4, n: int = 10
) -> list[int]:
    """Indices for ``n`` options: the answer first, then distractors, laid out in adjacent pairs.

    The top ``anchors`` candidates (answer, runner-up, next ranks) each come with one adjacent
    index (random side); the rest is filled with random adjacent *pairs* of other candidates
    (and, for an odd last slot, a candidate next to one already chosen). Every option then has
    a neighbour among the options, the answer as much as any distractor, so the layout alone
    does not give the answer away. Only when no such pair or neighbour is left (a short,
    gappy candidate list) is a slot filled with a lone candidate.

    Args:
        ranked: Candidate indices (days, periods) from best to worst, answer first; at least
            ``n`` of them.
        rng: Seeded generator for the sides and the random fill.
        anchors: Top candidates that bring a neighbour.
        n: Options wanted.

    Returns:
        ``n`` distinct indices from ``ranked``; the first is ``ranked[0]``.
    """
    valid = set(ranked)
    chosen: list[int] = []
    for anchor in ranked[:anchors]:
        if anchor not in chosen:
            chosen.append(anchor)
        side = int(rng.choice((-1, 1)))
        for near in (anchor + side, anchor - side):
            if near in valid and near not in chosen:
                chosen.append(near)
                break
    while len(chosen) < n:
        chosen += _fill(valid, chosen, n - len(chosen), rng)
    return chosen[:n]


def _fill(valid: set[int], chosen: list[int], slots: int, rng: np.random.Generator) -> list[int]:
    """One random adjacent pair of free candidates.

    With one slot left, one free candidate next to a chosen index instead; a lone free
    candidate only when neither exists.
    """
    taken = set(chosen)
    free = sorted(valid - taken)
    if slots >= 2:
        pairs = [i for i in free if i + 1 in valid and i + 1 not in taken]
        if pairs:
            i = int(pairs[int(rng.integers(len(pairs)))])
            return [i, i + 1] if rng.random() < 0.5 else [i + 1, i]
    touching = [i for i in free if i - 1 in taken or i + 1 in taken]
    pool = touching or free
    return [int(pool[int(rng.integers(len(pool)))])]


T = TypeVar("T")


def weighted_sample(
    items: Sequence[T], weights: Sequence[float], k: int, rng: np.random.Generator
) -> list[T]:
    """``k`` distinct items drawn without replacement with probability proportional to ``weights``.

    Used to draw distractors so that a common answer class is also a common distractor (which
    keeps a class prior from being learnable from option wording).
    """
    w = np.asarray(weights, dtype=float)
    picks = rng.choice(len(items), size=k, replace=False, p=w / w.sum())
    return [items[int(i)] for i in picks]


#: Drop reason of a window removed to balance answer classes (counted in the datasheet).
THINNED = "answer class thinned for balance"


def keep_share(share: float, rng: np.random.Generator) -> None:
    """Keep a window with probability ``share`` (one seeded draw), else raise :class:`Drop`."""
    if rng.random() >= share:
        raise Drop(THINNED)


def thin(answer: Any, keep: Mapping[Any, float], rng: np.random.Generator) -> None:
    """Keep a window whose answer is ``answer`` with probability ``keep[answer]`` (default 1).

    Types whose raw answers pile onto a few classes thin those classes, so that a text-only
    model cannot learn the class prior; the draw is always made, so the seeded stream of the
    rest of the item does not depend on the answer.
    """
    keep_share(keep.get(answer, 1.0), rng)
