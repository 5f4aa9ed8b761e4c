"""Resampling helpers for stability gates: day bootstrap and leave-one-day-out.

These re-run a primitive (a callable, or a registered primitive's name) on perturbed copies of
aligned daily arrays. They are not primitives themselves (they take a random generator and a
function), so they are not registered.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from wearbench._registry import registry
from wearbench.primitives._common import check_int


def _resolve(fn: Callable[..., Any] | str) -> Callable[..., Any]:
    if isinstance(fn, str):
        return registry.get("primitive", fn).obj
    if not callable(fn):
        raise ValueError(f"fn must be a callable or a registered primitive name, got {fn!r}")
    return fn


def _aligned(arrays: tuple[ArrayLike, ...]) -> tuple[list[NDArray[Any]], int]:
    if not arrays:
        raise ValueError("at least one daily array is required")
    arrs = [np.asarray(a) for a in arrays]
    n = len(arrs[0]) if arrs[0].ndim == 1 else -1
    for i, a in enumerate(arrs):
        if a.ndim != 1 or len(a) != n:
            raise ValueError(
                f"arrays must be 1-D and aligned; array {i} has shape {a.shape}, expected ({n},)"
            )
    return arrs, n


def bootstrap_indices(n: int, rng: np.random.Generator, *, block: int = 1) -> NDArray[np.int64]:
    """Draw ``n`` day indices with replacement, in sorted order.

    With ``block > 1`` this is a moving-block bootstrap: ``ceil(n / block)`` start days are drawn
    uniformly from ``0 … n - block`` and each contributes ``block`` consecutive days; the
    concatenation is truncated to ``n``.

    Args:
        n: Number of days (≥ 1).
        rng: Source of randomness.
        block: Block length in days (1 ≤ block ≤ n).

    Returns:
        Sorted int64 indices of length ``n``.
    """
    check_int("n", n, 1)
    check_int("block", block, 1, n)
    starts = rng.integers(0, n - block + 1, size=-(-n // block))
    idx = (starts[:, None] + np.arange(block)[None, :]).ravel()[:n]
    return np.sort(idx).astype(np.int64)


def bootstrap_days(
    fn: Callable[..., Any] | str,
    *arrays: ArrayLike,
    n_resamples: int = 30,
    rng: np.random.Generator,
    block: int = 1,
    **params: Any,
) -> list[Any]:
    """Re-run ``fn`` on ``n_resamples`` day-bootstrap resamples of aligned daily arrays.

    Every array is indexed with the same resampled days (see :func:`bootstrap_indices`). The
    indices are sorted so the series stays in temporal order, but repeated days sit next to each
    other and dropped days close up, so lag and autocorrelation structure is only approximately
    preserved (better with ``block > 1``). Dates resampled this way repeat.

    Args:
        fn: A primitive, or the name of a registered primitive.
        *arrays: Aligned 1-D daily arrays passed positionally to ``fn``.
        n_resamples: Number of resamples (≥ 1).
        rng: Source of randomness (the only one; same state → same results).
        block: Moving-block length in days (1 = ordinary day bootstrap).
        **params: Keyword arguments for ``fn``.

    Returns:
        ``fn``'s results, one per resample, in draw order.
    """
    func = _resolve(fn)
    arrs, n = _aligned(arrays)
    check_int("n_resamples", n_resamples, 1)
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    results = []
    for _ in range(n_resamples):
        idx = bootstrap_indices(n, rng, block=block)
        results.append(func(*(a[idx] for a in arrs), **params))
    return results


def leave_one_day_out(fn: Callable[..., Any] | str, *arrays: ArrayLike, **params: Any) -> list[Any]:
    """Re-run ``fn`` once per observed day with that day set missing in every numeric array.

    A day is observed when at least one numeric (integer or float) array has a non-NaN value
    there; days missing everywhere are skipped, as removing them changes nothing. Numeric arrays
    are copied as float64 with the day set to NaN, so the calendar (length and alignment) is
    kept; other arrays (e.g. ``datetime64`` dates) are passed unchanged.

    Args:
        fn: A primitive, or the name of a registered primitive.
        *arrays: Aligned 1-D daily arrays passed positionally to ``fn``.
        **params: Keyword arguments for ``fn``.

    Returns:
        ``fn``'s results, one per observed day, in day order.
    """
    func = _resolve(fn)
    arrs, n = _aligned(arrays)
    numeric = [np.issubdtype(a.dtype, np.integer) or np.issubdtype(a.dtype, np.floating) for a in arrs]
    floats = [a.astype(np.float64) if is_num else a for a, is_num in zip(arrs, numeric, strict=True)]
    observed = np.zeros(n, dtype=bool)
    for a, is_num in zip(floats, numeric, strict=True):
        if is_num:
            observed |= ~np.isnan(a)
    results = []
    for day in np.flatnonzero(observed):
        copies = []
        for a, is_num in zip(floats, numeric, strict=True):
            if is_num:
                a = a.copy()
                a[day] = np.nan
            copies.append(a)
        results.append(func(*copies, **params))
    return results
