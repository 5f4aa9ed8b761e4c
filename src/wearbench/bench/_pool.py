"""Cohort-level distributions (the pool distractor magnitudes are drawn from)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from wearbench.bench._generate import instantiate
from wearbench.cohort import METRIC_NAMES
from wearbench.primitives import nan_stat, ols_slope
from wearbench.questions import WINDOW_DAYS, CohortPool, QuestionType, UserContext


def build_pool(
    contexts: Sequence[UserContext],
    window_days: int = WINDOW_DAYS,
    types: Sequence[str | QuestionType] = (),
) -> CohortPool:
    """Per-metric means and OLS slopes of every non-overlapping window of every user.

    ``extra`` holds the named distributions each of ``types`` asks for
    (:meth:`~wearbench.questions.QuestionType.cohort_distributions`).
    """
    means: dict[str, list[float]] = {m: [] for m in METRIC_NAMES}
    slopes: dict[str, list[float]] = {m: [] for m in METRIC_NAMES}
    for ctx in contexts:
        for end in range(ctx.n_days - 1, window_days - 2, -window_days):
            for m in METRIC_NAMES:
                s = ctx.span(m, end, window_days)
                if np.isfinite(s).sum() >= window_days // 2:
                    means[m].append(nan_stat(s, stat="mean"))
                    slopes[m].append(ols_slope(s).slope)
    extra: dict[str, np.ndarray] = {}
    for qt in types:
        extra.update(instantiate(qt).cohort_distributions(contexts))
    return CohortPool(
        window_means={m: np.asarray(v, dtype=float) for m, v in means.items()},
        window_slopes={m: np.asarray(v, dtype=float) for m, v in slopes.items()},
        extra=extra,
    )
