"""Cohort-level distributions (the pool distractor magnitudes are drawn from), chunk by chunk."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from wearbench.bench._generate import instantiate
from wearbench.cohort import METRIC_NAMES
from wearbench.primitives import nan_stat, ols_slope
from wearbench.questions import WINDOW_DAYS, CohortPool, QuestionType, UserContext


@dataclass(frozen=True)
class PoolPart:
    """What one chunk of consecutive users adds to the pool (plain data, picklable).

    Attributes:
        means: Metric → window means of these users, in user and window order.
        slopes: Metric → OLS slopes (units per day) of the same windows.
        summaries: Per requested type, in the order given, its :meth:`cohort_summary`.
    """

    means: dict[str, list[float]]
    slopes: dict[str, list[float]]
    summaries: tuple[Any, ...]


def pool_part(
    contexts: Sequence[UserContext],
    window_days: int = WINDOW_DAYS,
    types: Sequence[str | QuestionType] = (),
    window_users: Collection[str] | None = None,
) -> PoolPart:
    """Per-metric means and slopes of every non-overlapping window of these users, and summaries.

    Args:
        contexts: Consecutive users of the cohort.
        window_days: Window length (days).
        types: Question types whose :meth:`~QuestionType.cohort_summary` to take (of all users).
        window_users: Only these users' windows enter the means and slopes (default: all).
    """
    means: dict[str, list[float]] = {m: [] for m in METRIC_NAMES}
    slopes: dict[str, list[float]] = {m: [] for m in METRIC_NAMES}
    for ctx in contexts:
        if window_users is not None and ctx.user_id not in window_users:
            continue
        for end in range(ctx.n_days - 1, window_days - 2, -window_days):
            for m in METRIC_NAMES:
                s = ctx.span(m, end, window_days)
                if np.isfinite(s).sum() >= window_days // 2:
                    means[m].append(nan_stat(s, stat="mean"))
                    slopes[m].append(ols_slope(s).slope)
    return PoolPart(means, slopes, tuple(instantiate(qt).cohort_summary(contexts) for qt in types))


def merge_pool(parts: Sequence[PoolPart], types: Sequence[str | QuestionType] = ()) -> CohortPool:
    """The pool of the users of ``parts`` (consecutive chunks, in user order).

    Equal to :func:`build_pool` over all their users at once.
    """
    extra: dict[str, np.ndarray] = {}
    for i, qt in enumerate(types):
        extra.update(instantiate(qt).cohort_distributions_from([p.summaries[i] for p in parts]))
    return CohortPool(
        window_means={
            m: np.asarray([v for p in parts for v in p.means[m]], dtype=float) for m in METRIC_NAMES
        },
        window_slopes={
            m: np.asarray([v for p in parts for v in p.slopes[m]], dtype=float) for m in METRIC_NAMES
        },
        extra=extra,
    )


def build_pool(
    contexts: Sequence[UserContext],
    window_days: int = WINDOW_DAYS,
    types: Sequence[str | QuestionType] = (),
) -> CohortPool:
    """Per-metric means and OLS slopes of every non-overlapping window of every user.

    ``extra`` holds the named distributions each of ``types`` asks for
    (:meth:`~wearbench.questions.QuestionType.cohort_distributions`).
    """
    return merge_pool([pool_part(contexts, window_days, types)], types)
