"""Reference population: more users from the same generator, reduced to percentiles.

Reference users come from their own seed stream (``Population.REFERENCE``), so they never
coincide with benchmark users. They are generated chunk by chunk and each chunk is
reduced at once to per-user medians of :data:`REFERENCE_METRICS` (users with fewer than
``min_days`` recorded days of a metric get no median for it), so memory grows with the
number of users, not users × days. The medians are then handed to
:func:`wearbench.cohort.reference_percentiles` as one pseudo-day per user with
``min_days=1``, which gives exactly the percentiles that function computes from the
full daily table with ``min_days``. Besides the five core metrics the table holds VO2max
(:data:`POPULATION_METRICS`; a user counts with at least :data:`MIN_DAYS_BY_METRIC` estimates),
whose mean and SD fitness questions compare against.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from wearbench.cohort import MIN_DAYS_BY_METRIC, REFERENCE_METRICS, reference_percentiles
from wearbench.sources.synthetic._chunk import demographics_frame, generate_chunk, user_ids
from wearbench.sources.synthetic._config import CHUNK_SIZE, FloatArray, SynthParams
from wearbench.sources.synthetic._daily import calendar
from wearbench.sources.synthetic._streams import Population

_MIN_DAYS = 14
#: Metrics of the reference population's table (the core five and VO2max).
POPULATION_METRICS: tuple[str, ...] = (*REFERENCE_METRICS, "vo2max")


def median_of_recorded(x: FloatArray, min_days: int) -> FloatArray:
    """Per-row median of non-missing values; NaN for rows with fewer than ``min_days`` of them."""
    count = (~np.isnan(x)).sum(axis=1)
    srt = np.sort(x, axis=1)  # NaN sorts last
    lo = np.take_along_axis(srt, np.maximum((count - 1) // 2, 0)[:, None], axis=1)[:, 0]
    hi = np.take_along_axis(srt, np.minimum(count // 2, x.shape[1] - 1)[:, None], axis=1)[:, 0]
    out: FloatArray = np.where(count >= max(min_days, 1), (lo + hi) / 2.0, np.nan)
    return out


def reference_table(
    params: SynthParams, progress: Callable[[int, int], None] | None, done: int, total: int
) -> pd.DataFrame:
    """Reference percentiles by metric, age band and sex from ``params.reference_users`` users.

    Args:
        params: Generator parameters (``reference_users``, ``reference_days``, ``seed``, ``start``).
        progress: Called as ``progress(done + users so far, total)`` after each chunk.
        done: Users already generated before the reference population.
        total: Total users reported to ``progress``.
    """
    n = params.reference_users
    cal = calendar(params.start, params.reference_days)
    medians: list[dict[str, FloatArray]] = []
    demographics: list[pd.DataFrame] = []
    for first in range(0, n, CHUNK_SIZE):
        ids = user_ids("r", first, min(first + CHUNK_SIZE, n), n)
        chunk = generate_chunk(params.seed, Population.REFERENCE, ids, first, cal)
        medians.append(
            {
                m: median_of_recorded(chunk.recording.values[m], MIN_DAYS_BY_METRIC.get(m, _MIN_DAYS))
                for m in POPULATION_METRICS
            }
        )
        demographics.append(demographics_frame(ids, chunk.person))
        if progress is not None:
            progress(done + first + len(ids), total)
    daily = pd.DataFrame({"user_id": user_ids("r", 0, n, n), "date": np.repeat(cal.dates[:1], n)})
    for m in POPULATION_METRICS:
        daily[m] = np.concatenate([c[m] for c in medians]) if medians else np.array([], dtype=float)
    demo = (
        pd.concat(demographics, ignore_index=True)
        if demographics
        else pd.DataFrame(columns=["user_id", "age", "sex"])
    )
    return reference_percentiles(daily, demo, metrics=POPULATION_METRICS, min_days=1)
