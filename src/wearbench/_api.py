"""The documented Python API behind every CLI command.

Everything the command line does is one call here, so a notebook can do the same:

    >>> import wearbench
    >>> cohort = wearbench.synth(n_users=20, n_days=120, seed=7)  # doctest: +SKIP
    >>> wearbench.save_cohort(cohort, "my-cohort")  # doctest: +SKIP
    >>> wearbench.validate_cohort("my-cohort").ok  # doctest: +SKIP
    True
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import overload

from wearbench._errors import WearbenchError
from wearbench.cohort import Cohort, CohortShards, open_cohort, save_cohort


@overload
def synth(
    n_users: int = ...,
    n_days: int = ...,
    seed: int = ...,
    *,
    out: str | Path | None = ...,
    reference_users: int = ...,
    start: str = ...,
    progress: Callable[[int, int], None] | None = ...,
    shard_users: None = ...,
) -> Cohort: ...


@overload
def synth(
    n_users: int = ...,
    n_days: int = ...,
    seed: int = ...,
    *,
    out: str | Path,
    reference_users: int = ...,
    start: str = ...,
    progress: Callable[[int, int], None] | None = ...,
    shard_users: int,
) -> CohortShards: ...


def synth(
    n_users: int = 200,
    n_days: int = 500,
    seed: int = 0,
    *,
    out: str | Path | None = None,
    reference_users: int = 5000,
    start: str = "2024-01-01",
    progress: Callable[[int, int], None] | None = None,
    shard_users: int | None = None,
) -> Cohort | CohortShards:
    """Generate the realistic synthetic cohort (the embedded default).

    Args:
        n_users: Benchmark users.
        n_days: Days per user.
        seed: Seed; fixes every output byte.
        out: If given, also write the cohort folder there (see :func:`save_cohort`).
        reference_users: Size of the larger population the reference percentiles come from.
        start: First calendar day (ISO date).
        progress: Optional callback ``(users_done, users_total)``.
        shard_users: Write ``out`` as a sharded folder of this many users per shard,
            generating one shard at a time (never the whole cohort in memory); needs ``out``.

    Returns:
        The cohort, with the planted ground truth in ``cohort.truth``; with ``shard_users``
        a :class:`~wearbench.cohort.CohortShards` handle on ``out`` instead.

    Raises:
        WearbenchError: If ``shard_users`` is given without ``out``.
    """
    from wearbench.sources.synthetic import synthesize, synthesize_sharded

    if shard_users is not None:
        if out is None:
            raise WearbenchError("synth: shard_users needs out= (a sharded cohort is written, not returned)")
        synthesize_sharded(
            n_users, n_days, seed, out=out, shard_users=shard_users,
            reference_users=reference_users, start=start, progress=progress,
        )  # fmt: skip
        return open_cohort(out)
    cohort = synthesize(
        n_users, n_days, seed, reference_users=reference_users, start=start, progress=progress
    )
    if out is not None:
        save_cohort(cohort, out)
    return cohort


def synth_minutes(
    n_users: int,
    n_days: int,
    seed: int = 0,
    *,
    out: str | Path,
    start: str = "2024-01-01",
    progress: Callable[[int, int], None] | None = None,
) -> Path:
    """Write synthetic minute data (OpenMHC's 19 channels) for the daily synthetic users.

    Args:
        n_users: Users (the first ``n_users`` of the daily synthetic cohort with ``seed``).
        n_days: Days per user.
        seed: Seed; fixes every output byte.
        out: Minute-cohort folder to write (``manifest.json`` + ``users/<id>.parquet``).
        start: First calendar day (ISO date).
        progress: Optional callback ``(users_done, users_total)``.

    Returns:
        The folder path; read it with :func:`wearbench.minutes.iter_minute_users`.
    """
    from wearbench.sources import synthesize_minutes

    return synthesize_minutes(n_users, n_days, seed, out, start=start, progress=progress)
