"""Synthetic cohort written shard by shard: :func:`synthesize_sharded`."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pandas as pd

from wearbench.cohort import METRIC_NAMES, Cohort, ShardedCohortWriter
from wearbench.sources.synthetic._chunk import user_ids
from wearbench.sources.synthetic._config import CHUNK_SIZE, SynthParams, validate_params
from wearbench.sources.synthetic._daily import Calendar, calendar
from wearbench.sources.synthetic._population import reference_table
from wearbench.sources.synthetic._synthesize import cohort_chunk, source_of
from wearbench.sources.synthetic._truth import TruthBuilder


def synthesize_sharded(
    n_users: int,
    n_days: int,
    seed: int = 0,
    *,
    out: str | os.PathLike[str],
    shard_users: int,
    reference_users: int = 5000,
    reference_days: int = 120,
    start: str = "2024-01-01",
    progress: Callable[[int, int], None] | None = None,
) -> Path:
    """Generate the synthetic cohort into a sharded cohort folder, one shard in memory at a time.

    Loaded whole (:func:`~wearbench.cohort.load_cohort`) the folder equals
    :func:`synthesize` with the same arguments: every table and the ground truth. Peak
    memory is one shard of users plus the reference population's per-chunk work and the
    ground truth rows.

    Args:
        n_users: Benchmark users (as :func:`synthesize`).
        n_days: Days per user.
        seed: Root seed.
        reference_users: Users of the reference population.
        reference_days: Days per reference user.
        start: First calendar day, ISO ``YYYY-MM-DD``.
        progress: Called as ``progress(done, total)`` after each chunk (benchmark users first).
        out: Cohort folder to write (replaced as a whole when complete).
        shard_users: Users per shard (≥ 1).

    Returns:
        The folder path; read it with :func:`~wearbench.cohort.open_cohort`.

    Raises:
        ValueError: If a parameter is out of range.
    """
    params = validate_params(n_users, n_days, seed, reference_users, reference_days, start)
    if isinstance(shard_users, bool) or not isinstance(shard_users, int) or shard_users < 1:
        raise ValueError(f"shard_users must be an integer >= 1, got {shard_users!r}")
    if progress is not None and not callable(progress):
        raise ValueError(f"progress must be a callable (done, total) or None, got {progress!r}")
    total = params.n_users + params.reference_users
    cal = calendar(params.start, params.n_days)
    truth = TruthBuilder(cal)
    with ShardedCohortWriter(out, source=source_of(params)) as writer:
        for part in _parts(params, cal, shard_users, truth, progress, total):
            writer.add(part)
        writer.reference = reference_table(params, progress, params.n_users, total)
        writer.truth = truth.build(params)
    return Path(out)


def _parts(
    params: SynthParams,
    cal: Calendar,
    shard_users: int,
    truth: TruthBuilder,
    progress: Callable[[int, int], None] | None,
    total: int,
) -> Iterator[Cohort]:
    """Shards of ``shard_users`` benchmark users, each generated in chunks of at most 256."""
    empty_ref = pd.DataFrame()
    for lo in range(0, params.n_users, shard_users):
        hi = min(lo + shard_users, params.n_users)
        daily, demographics, blood = [], [], []
        for first in range(lo, hi, CHUNK_SIZE):
            ids = user_ids("u", first, min(first + CHUNK_SIZE, hi), params.n_users)
            chunk, demo, drawn = cohort_chunk(params, cal, ids, first, truth)
            daily.append(_daily(ids, chunk.recording.values, cal))
            demographics.append(demo)
            blood.append(drawn)
            if progress is not None:
                progress(first + len(ids), total)
        yield Cohort(
            daily=pd.concat(daily, ignore_index=True),
            demographics=pd.concat(demographics, ignore_index=True),
            blood=pd.concat(blood, ignore_index=True),
            reference=empty_ref,
        )


def _daily(ids: list[str], values: dict[str, np.ndarray], cal: Calendar) -> pd.DataFrame:
    n_days = cal.dates.shape[0]
    daily = pd.DataFrame({m: values[m].ravel() for m in METRIC_NAMES})
    daily.insert(0, "user_id", np.repeat(np.array(ids, dtype=object), n_days))
    daily.insert(1, "date", np.tile(cal.dates.astype("datetime64[us]"), len(ids)))
    return daily
