"""strongest_pair: largest |Pearson r| over lags −L … +L of each listed pair over the stated days."""

from __future__ import annotations

import math
import re

import numpy as np
from tests.validity.prompt import Prompt
from tests.validity.solvers._common import Unsolvable, at_least, dates_in, lag_r, pick


def _pair(text: str) -> tuple[str, str]:
    a, b = text.split(" ↔ ")
    return a.replace(" ", "_"), b.replace(" ", "_")


def best_abs_r(x: np.ndarray, y: np.ndarray, max_lag: int, min_overlap: int = 3) -> float:
    """Largest |r| over lags ``-max_lag … max_lag`` with ``min_overlap`` pairs (NaN when none)."""
    rs = [abs(lag_r(x, y, lag, min_overlap)) for lag in range(-max_lag, max_lag + 1)]
    rs = [r for r in rs if math.isfinite(r)]
    return max(rs) if rs else math.nan


def solve(p: Prompt) -> str:
    """Letter of the pair with the largest best-lag |r|."""
    days = int(re.search(r"Over the (\d+) days ending", p.question).group(1))  # type: ignore[union-attr]
    end = dates_in(p.question)[0]
    if end != str(p.dates[-1]):
        raise Unsolvable(f"window end {end} is not the last shown day")
    max_lag = int(re.search(r"lags −(\d+)", p.question).group(1))  # type: ignore[union-attr]
    overlap = at_least(p.question, "a lag counts only")
    score = {}
    for letter, text in p.options.items():
        a, b = _pair(text)
        score[letter] = best_abs_r(p.span(a, days), p.span(b, days), max_lag, overlap)
    finite = {k: v for k, v in score.items() if math.isfinite(v)}
    best = max(finite, key=lambda k: finite[k])
    return pick(p.options, lambda text: text == p.options[best])
