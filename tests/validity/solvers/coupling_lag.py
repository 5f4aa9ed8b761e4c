"""coupling_lag: the lag (−L … +L) and sign of the largest |Pearson r| of x[t] with y[t + lag]."""

from __future__ import annotations

import math
import re

from tests.validity.prompt import Prompt
from tests.validity.solvers._common import Unsolvable, at_least, dates_in, lag_r, number, pick


def solve(p: Prompt) -> str:
    """Letter of the option with the best lag and the sign of its r."""
    m = re.search(r"this user's (.+?) most strongly correlated with their (.+?)\?", p.question)
    assert m is not None, p.question
    x_name, y_name = (g.replace(" ", "_") for g in m.groups())
    days = int(re.search(r"Over the (\d+) days ending", p.question).group(1))  # type: ignore[union-attr]
    if dates_in(p.question)[0] != str(p.dates[-1]):
        raise Unsolvable("window end is not the last shown day")
    max_lag = int(re.search(r"lags −(\d+)", p.question).group(1))  # type: ignore[union-attr]
    x, y = p.span(x_name, days), p.span(y_name, days)
    overlap = at_least(p.question, "a lag counts only")
    rs = {lag: lag_r(x, y, lag, overlap) for lag in range(-max_lag, max_lag + 1)}
    finite = [(abs(r), -abs(lag), -lag, lag) for lag, r in rs.items() if math.isfinite(r)]
    if not finite:
        raise Unsolvable("no lag has a defined r")
    lag = max(finite)[3]
    return pick(p.options, lambda text: holds(text, lag, rs[lag]))


def holds(text: str, lag: int, r: float) -> bool:
    """Whether ``Positive|Negative r at lag ±L days: … day t±L`` holds for the best ``lag`` and its ``r``."""
    hit = re.match(r"(Positive|Negative) r at lag ([+−-]?\d+) days: .* day t([+−-]\d+)$", text)
    if hit is None or r == 0:
        return False
    word = "Positive" if r > 0 else "Negative"
    return hit.group(1) == word and int(number(hit.group(2))) == lag == int(number(hit.group(3)))
