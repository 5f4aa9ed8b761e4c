"""Input validation shared by the primitive kernels.

Primitives take 1-D float arrays on a dense daily calendar (one element per consecutive day,
NaN = missing). Infinite values are rejected rather than treated as missing.
"""

from __future__ import annotations

from collections.abc import Collection
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

FloatArray = NDArray[np.float64]
IntArray = NDArray[np.int64]


def as_series(values: ArrayLike, name: str = "values") -> FloatArray:
    """Return ``values`` as a 1-D float64 array (a copy-free view when possible).

    Raises:
        ValueError: If the input is not 1-D or contains ±inf.
    """
    arr = np.asarray(values, dtype=np.float64)
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D array (one element per day), got shape {arr.shape}")
    if np.isinf(arr).any():
        where = int(np.flatnonzero(np.isinf(arr))[0])
        raise ValueError(f"{name}[{where}] is {arr[where]}; values must be finite or NaN (missing)")
    return arr


def check_int(name: str, value: Any, lo: int, hi: int | None = None) -> int:
    """Return ``value`` if it is an int in ``[lo, hi]`` (``hi`` None = unbounded).

    Raises:
        ValueError: Naming the parameter, the bad value and the valid range.
    """
    ok = isinstance(value, int | np.integer) and not isinstance(value, bool)
    if not ok or value < lo or (hi is not None and value > hi):
        upper = "inf" if hi is None else str(hi)
        raise ValueError(f"{name} must be an integer in [{lo}, {upper}], got {value!r}")
    return int(value)


def check_real(name: str, value: Any, lo: float, hi: float, *, open_lo: bool = False) -> float:
    """Return ``value`` as float if it is a finite real in ``[lo, hi]`` (``(lo, hi]`` if ``open_lo``).

    Raises:
        ValueError: Naming the parameter, the bad value and the valid range.
    """
    ok = isinstance(value, int | float | np.integer | np.floating) and not isinstance(value, bool)
    if ok and np.isfinite(value) and (lo < value if open_lo else lo <= value) and value <= hi:
        return float(value)
    raise ValueError(f"{name} must be a real number in {'(' if open_lo else '['}{lo}, {hi}], got {value!r}")


def check_choice(name: str, value: Any, choices: Collection[str]) -> str:
    """Return ``value`` if it is one of ``choices``.

    Raises:
        ValueError: Listing the valid choices.
    """
    if value not in choices:
        raise ValueError(f"{name} must be one of {', '.join(map(repr, choices))}, got {value!r}")
    return str(value)


def readonly(arr: NDArray[Any]) -> NDArray[Any]:
    """Mark ``arr`` read-only (results inside frozen dataclasses stay frozen) and return it."""
    arr.setflags(write=False)
    return arr
