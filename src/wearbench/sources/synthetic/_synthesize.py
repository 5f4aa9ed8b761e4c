"""The public entry point: :func:`synthesize`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from wearbench.cohort import METRIC_NAMES, Cohort
from wearbench.sources.synthetic._blood import blood_panel
from wearbench.sources.synthetic._chunk import Chunk, demographics_frame, generate_chunk, user_ids
from wearbench.sources.synthetic._config import CHUNK_SIZE, GENERATOR_NAME, SynthParams, validate_params
from wearbench.sources.synthetic._daily import Calendar, calendar
from wearbench.sources.synthetic._population import reference_table
from wearbench.sources.synthetic._streams import Component, Population, user_rngs
from wearbench.sources.synthetic._truth import TruthBuilder


def synthesize(
    n_users: int = 200,
    n_days: int = 500,
    seed: int = 0,
    *,
    reference_users: int = 5000,
    reference_days: int = 120,
    start: str = "2024-01-01",
    progress: Callable[[int, int], None] | None = None,
) -> Cohort:
    """Generate the synthetic cohort and its planted ground truth.

    Deterministic: the same arguments give bit-identical tables and truth. Users are
    generated in chunks of 256, so peak memory is the output plus one chunk.

    Args:
        n_users: Benchmark users (≥ 1), ids ``u0001`` ….
        n_days: Days per user (≥ 1); every user has a row for every day (NaN = missing).
            Episodes need ≥ 36 days, device changes and second blood draws ≥ 150.
        seed: Root seed (≥ 0).
        reference_users: Users of the reference population (≥ 0; 0 gives an empty
            reference table).
        reference_days: Days per reference user (≥ 14 when ``reference_users`` > 0).
        start: First calendar day, ISO ``YYYY-MM-DD``.
        progress: Called as ``progress(done, total)`` after each chunk, where ``total`` =
            ``n_users + reference_users`` (benchmark users first).

    Returns:
        A :class:`~wearbench.cohort.Cohort` with ``daily``, ``demographics``, ``blood``,
        ``reference``, ``source`` and ``truth`` (schema in :mod:`wearbench.sources.synthetic`).

    Raises:
        ValueError: If a parameter is out of range or ``progress`` is not callable.
    """
    params = validate_params(n_users, n_days, seed, reference_users, reference_days, start)
    if progress is not None and not callable(progress):
        raise ValueError(f"progress must be a callable (done, total) or None, got {progress!r}")
    total = params.n_users + params.reference_users
    cal = calendar(params.start, params.n_days)
    values, demographics, blood, truth = _benchmark_users(params, cal, progress, total)
    return Cohort(
        daily=_daily_frame(values, params, cal),
        demographics=pd.concat(demographics, ignore_index=True),
        blood=pd.concat(blood, ignore_index=True),
        reference=reference_table(params, progress, params.n_users, total),
        source=source_of(params),
        truth=truth.build(params),
    )


def source_of(params: SynthParams) -> dict[str, Any]:
    """The cohort's ``source`` provenance for ``params``."""
    return {
        "name": GENERATOR_NAME,
        "params": params.as_dict(),
        "reference": {"kind": "population", "users": params.reference_users},
    }


def _benchmark_users(
    params: SynthParams, cal: Calendar, progress: Callable[[int, int], None] | None, total: int
) -> tuple[np.ndarray, list[pd.DataFrame], list[pd.DataFrame], TruthBuilder]:
    """Generate the benchmark users chunk by chunk into one preallocated value block."""
    values = np.empty((params.n_users * params.n_days, len(METRIC_NAMES)))
    demographics, blood = [], []
    truth = TruthBuilder(cal)
    for first in range(0, params.n_users, CHUNK_SIZE):
        ids = user_ids("u", first, min(first + CHUNK_SIZE, params.n_users), params.n_users)
        chunk, demo, drawn = cohort_chunk(params, cal, ids, first, truth)
        rows = slice(first * params.n_days, (first + len(ids)) * params.n_days)
        values[rows] = np.stack([chunk.recording.values[m].ravel() for m in METRIC_NAMES], axis=1)
        demographics.append(demo)
        blood.append(drawn)
        if progress is not None:
            progress(first + len(ids), total)
    return values, demographics, blood, truth


def cohort_chunk(
    params: SynthParams, cal: Calendar, ids: list[str], first: int, truth: TruthBuilder
) -> tuple[Chunk, pd.DataFrame, pd.DataFrame]:
    """One chunk of benchmark users (index ``first`` on): the chunk, its demographics and blood.

    The chunk's planted truth is added to ``truth``.
    """
    chunk = generate_chunk(params.seed, Population.COHORT, ids, first, cal)
    rngs = user_rngs(params.seed, Population.COHORT, Component.BLOOD, first, first + len(ids))
    truth.add(chunk)
    return chunk, demographics_frame(ids, chunk.person), blood_panel(rngs, chunk.person, cal, ids)


def _daily_frame(values: np.ndarray, params: SynthParams, cal: Calendar) -> pd.DataFrame:
    """Wrap the filled value block (no copy) and prepend ``user_id`` and ``date``."""
    daily = pd.DataFrame(values, columns=list(METRIC_NAMES), copy=False)
    ids = np.array(user_ids("u", 0, params.n_users, params.n_users), dtype=object)
    daily.insert(0, "user_id", np.repeat(ids, params.n_days))
    dates = cal.dates.astype("datetime64[us]")
    daily.insert(1, "date", np.tile(dates, params.n_users))
    return daily
