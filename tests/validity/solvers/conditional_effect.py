"""conditional_effect: mean response after the driver's personal lows/highs minus after other days, in SD."""

from __future__ import annotations

import re

import numpy as np
from tests.validity.prompt import Prompt, find_metric
from tests.validity.solvers._common import Unsolvable, dates_in, number, pick


def _condition(stem: str) -> tuple[str, bool, float, int]:
    """(driver metric, below?, quantile, lag in days) from the stem's condition phrase."""
    m = re.search(r"\(the response\) (.*?) compare with the other days", stem)
    assert m is not None, stem
    phrase = m.group(1)
    q = re.search(r"at or (below|above) the user's own (\d+)th percentile", phrase)
    assert q is not None, phrase
    driver = find_metric(phrase.split("(", 1)[0] + " " + phrase.split("(", 1)[1].split(" at or ", 1)[0])
    lag = 1 if phrase.startswith("on the day after") else 0
    return driver, q.group(1) == "below", int(q.group(2)) / 100, lag


def effect_sd(x: np.ndarray, y: np.ndarray, below: bool, quantile: float, lag: int) -> tuple[float, float]:
    """(effect in SD, SD) of the response ``lag`` days after driver days beyond its own quantile."""
    cut = float(np.quantile(x[np.isfinite(x)], quantile))
    xs, ys = x[: len(x) - lag], y[lag:]
    used = np.isfinite(xs) & np.isfinite(ys)
    cond = used & ((xs <= cut) if below else (xs >= cut))
    other = used & ~cond
    sd = float(np.std(ys[used], ddof=1))
    return (float(ys[cond].mean()) - float(ys[other].mean())) / sd, sd


def solve(p: Prompt) -> str:
    """Letter of the SD bin that holds the effect."""
    days = int(re.search(r"Over the (\d+) days ending", p.question).group(1))  # type: ignore[union-attr]
    if dates_in(p.question)[0] != str(p.dates[-1]):
        raise Unsolvable("window end is not the last shown day")
    response = find_metric(p.question.split("this user's", 1)[1].split("(the response)", 1)[0])
    driver, below, quantile, lag = _condition(p.question)
    effect, _ = effect_sd(p.span(driver, days), p.span(response, days), below, quantile, lag)
    return pick(p.options, lambda text: holds(text, effect))


def holds(text: str, effect: float) -> bool:
    """Whether ``lo to hi SD: the response increased|decreased …`` is true for ``effect`` (SD)."""
    m = re.match(r"([+−-][\d.]+) to ([+−-][\d.]+) SD: the response (increased|decreased)", text)
    if m is None:
        return False
    lo, hi = number(m.group(1)), number(m.group(2))
    return lo <= effect < hi and (effect > 0) == (m.group(3) == "increased")
