"""Small numpy kernels shared by the per-type solvers (written from the stems, not from wearbench)."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping

import numpy as np

__all__ = [
    "DATE",
    "Unsolvable",
    "at_least",
    "dates_in",
    "lag_r",
    "number",
    "pick",
    "runs",
    "trailing",
]

DATE = r"\d{4}-\d{2}-\d{2}"


class Unsolvable(Exception):
    """The prompt lacks what is needed to solve the item (the message says what)."""


def number(text: str) -> float:
    """A printed number (thousands commas, Unicode minus and a leading ``+`` allowed)."""
    return float(text.replace(",", "").replace("−", "-").replace("+", ""))


def pick(options: Mapping[str, str], true: Callable[[str], bool]) -> str:
    """The one letter whose option text ``true`` accepts.

    Raises:
        Unsolvable: When no option or several options are accepted.
    """
    hits = [k for k, text in options.items() if true(text)]
    if len(hits) != 1:
        raise Unsolvable(f"{len(hits)} options fit the computation ({', '.join(hits) or 'none'})")
    return hits[0]


def trailing(x: np.ndarray, window: int, stat: str, min_count: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """Centre and spread of the ``window`` days before each day (missing days skipped).

    ``stat``: ``"mean_sd"`` (mean, sample SD) or ``"median_mad"`` (median, 1.4826 × MAD).
    NaN where fewer than ``max(2, min_count)`` earlier values exist.
    """
    centre = np.full(len(x), np.nan)
    spread = np.full(len(x), np.nan)
    for t in range(len(x)):
        past = x[max(0, t - window) : t]
        past = past[np.isfinite(past)]
        if past.size < max(2, min_count):
            continue
        if stat == "mean_sd":
            centre[t], spread[t] = past.mean(), past.std(ddof=1)
        else:
            med = float(np.median(past))
            centre[t], spread[t] = med, 1.4826 * float(np.median(np.abs(past - med)))
    return centre, spread


def runs(hit: np.ndarray) -> list[tuple[int, int]]:
    """``(start, end)`` (inclusive) of every run of True."""
    out, start = [], None
    for i, h in enumerate(hit):
        if h and start is None:
            start = i
        if not h and start is not None:
            out.append((start, i - 1))
            start = None
    if start is not None:
        out.append((start, len(hit) - 1))
    return out


def lag_r(x: np.ndarray, y: np.ndarray, lag: int, min_overlap: int = 3) -> float:
    """Pearson r of ``x[t]`` with ``y[t + lag]`` over days where both are present.

    NaN with fewer than ``max(3, min_overlap)`` such days or a constant side.
    """
    n = len(x)
    a = x[max(0, -lag) : n - max(0, lag)]
    b = y[max(0, lag) : n - max(0, -lag)]
    ok = np.isfinite(a) & np.isfinite(b)
    if ok.sum() < max(3, min_overlap) or np.ptp(a[ok]) == 0 or np.ptp(b[ok]) == 0:
        return float("nan")
    return float(np.corrcoef(a[ok], b[ok])[0, 1])


def at_least(stem: str, after: str) -> int:
    """The number in ``at least N`` following ``after`` in the stem (a stated minimum count).

    Raises:
        Unsolvable: When the stem states no such minimum.
    """
    m = re.search(re.escape(after) + r".*?at least (\d+)", stem)
    if m is None:
        raise Unsolvable(f"the stem states no minimum after {after!r}")
    return int(m.group(1))


def dates_in(text: str) -> list[str]:
    """ISO dates in ``text``, in order."""
    return re.findall(DATE, text)
