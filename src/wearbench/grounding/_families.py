"""Pattern families and their cross-user null tests, as the question types' null hook uses them.

A *pattern family* names what a population-grounded item relies on (``coupling:x->y``,
``conditional:short_sleep->hrv``, ...). Its null test recomputes the type's gated statistic on
every user's windows (``observed``) and on windows where the second signal comes from another
user (``null``), at the same window positions counted back from each user's last day.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import NDArray

from wearbench.cohort import UserContext
from wearbench.grounding._coupling import coupling_pass_batch
from wearbench.grounding._gates import NullResult, null_test
from wearbench.grounding._pairs import Pair

FloatArray = NDArray[np.float64]
BatchStatistic = Callable[[FloatArray, FloatArray], NDArray[np.bool_]]


def _ends(ctx: UserContext, step: int, min_end: int, k: int) -> list[int]:
    return list(range(ctx.n_days - 1, min_end - 2, -step))[:k]


def window_stacks(
    contexts: Sequence[UserContext], metric: str, days: int, *, step: int, min_end: int, max_windows: int
) -> list[FloatArray]:
    """Per user, ``(k, days)`` spans of ``metric`` ending every ``step`` days back from the last day.

    ``k`` is the same for every user: the fewest candidate ends any user has (ends at index
    ``≥ min_end - 1``), capped at ``max_windows``.
    """
    k = min([max_windows, *(len(_ends(c, step, min_end, max_windows)) for c in contexts)])
    if k == 0:  # some user is too short for any window
        return [np.empty((0, days)) for _ in contexts]
    return [
        np.stack([c.span(metric, e, days) for e in _ends(c, step, min_end, k)]).reshape(k, days)
        for c in contexts
    ]


def family_null(
    statistic: BatchStatistic,
    contexts: Sequence[UserContext],
    x_metric: str,
    y_metric: str,
    rng: np.random.Generator,
    *,
    days: int,
    step: int,
    min_end: int,
    max_windows: int = 18,
) -> NullResult | None:
    """Null test of one family (None with fewer than two users or no common window).

    Users whose record is too short for a single window (real cohorts have them) take no part.
    """
    contexts = [c for c in contexts if _ends(c, step, min_end, 1)]
    if len(contexts) < 2:
        return None
    xs = window_stacks(contexts, x_metric, days, step=step, min_end=min_end, max_windows=max_windows)
    ys = window_stacks(contexts, y_metric, days, step=step, min_end=min_end, max_windows=max_windows)
    if xs[0].shape[0] == 0:
        return None
    return null_test(statistic, xs, ys, rng)


def coupling_null(
    contexts: Sequence[UserContext],
    pairs: Sequence[Pair],
    prefix: str,
    rng: np.random.Generator,
    *,
    window_days: int,
    lag_margin: bool,
) -> dict[str, dict[str, float]]:
    """``{f"{prefix}:{pair}": {"null", "observed", "fdr"}}`` for the coupling gates of each pair."""

    def stat(x: FloatArray, y: FloatArray) -> NDArray[np.bool_]:
        return coupling_pass_batch(x, y, rng, lag_margin=lag_margin)

    out: dict[str, dict[str, float]] = {}
    for pair in pairs:
        res = family_null(
            stat, contexts, pair.x, pair.y, rng, days=window_days, step=window_days, min_end=window_days
        )
        if res is not None:
            out[f"{prefix}:{pair.name}"] = res.to_dict()
    return out
