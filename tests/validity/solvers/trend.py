"""trend: Theil–Sen slope over the stated dates, its 95% CI, and |slope| × (days − 1) in the size bins."""

from __future__ import annotations

import re

import numpy as np
from scipy import stats
from tests.validity.prompt import Prompt, find_metric
from tests.validity.solvers._common import Unsolvable, dates_in, number, pick


def _sen_ci(x: np.ndarray, y: np.ndarray) -> tuple[float, float, float]:
    """Theil–Sen slope with Sen's 95% CI (scipy's implementation)."""
    res = stats.theilslopes(y, x, 0.95)
    return float(res[0]), float(res[2]), float(res[3])


def solve(p: Prompt) -> str:
    """Letter of the option matching the Theil–Sen trend of the stem's metric over its dates."""
    start, end = dates_in(p.question)[:2]
    metric = find_metric(p.question.split("this user's", 1)[1])
    i0, i1 = p.index(start), p.index(end)
    y = p.values(metric)[i0 : i1 + 1]
    x = np.arange(len(y), dtype=float)
    ok = np.isfinite(y)
    if ok.sum() < 3:
        raise Unsolvable("fewer than 3 days of data")
    slope, lo, hi = _sen_ci(x[ok], y[ok])
    days = int(re.search(r"\|slope\| × (\d+) days", p.question).group(1))  # type: ignore[union-attr]
    return pick(p.options, lambda text: holds(text, lo, hi, abs(slope) * days))


def holds(text: str, lo: float, hi: float, change: float) -> bool:
    """Whether a trend option is true for a slope CI ``[lo, hi]`` and a window change ``|change|``."""
    direction = "Increasing" if lo > 0 else "Decreasing" if hi < 0 else None
    if text.startswith("No clear trend"):
        return direction is None
    if direction is None or not text.startswith(direction + ", by "):
        return False
    size = text.split(", by ", 1)[1].removesuffix(" over the window")
    if size.startswith("less than "):
        return change < number(size.removeprefix("less than "))
    if size.startswith("at least "):
        return change >= number(size.removeprefix("at least "))
    a, b = size.split(" to ")
    return number(a) <= change < number(b)
