"""excursion_count: runs of z ≥ +k (or ≤ −k) against the previous 28 days' mean and SD."""

from __future__ import annotations

import re

import numpy as np
from tests.validity.prompt import Prompt, find_metric
from tests.validity.solvers._common import at_least, dates_in, number, pick, runs, trailing


def solve(p: Prompt) -> str:
    """Letter of the option naming the number of runs that start within the stem's dates."""
    start, end = dates_in(p.question)[:2]
    metric = find_metric(p.question.split("this user's", 1)[1])
    m = re.search(r"z ([≥≤]) ([+−-]?[\d.]+)", p.question)
    assert m is not None, p.question
    above, k = m.group(1) == "≥", abs(number(m.group(2)))
    baseline = int(re.search(r"SD of the previous (\d+) days", p.question).group(1))  # type: ignore[union-attr]
    x = p.values(metric)
    mean, sd = trailing(x, baseline, "mean_sd", at_least(p.question, "missing days"))
    with np.errstate(invalid="ignore", divide="ignore"):
        z = (x - mean) / sd
    signed = z if above else -z
    hit = np.nan_to_num(signed, nan=-np.inf) >= k
    i0, i1 = p.index(start), p.index(end)
    count = sum(1 for s, _ in runs(hit[: i1 + 1]) if s >= i0)
    return pick(p.options, lambda text: holds(text, count))


def holds(text: str, count: int) -> bool:
    """Whether ``Excursions: n`` (or ``n or more``) is true for ``count`` runs."""
    n = text.removeprefix("Excursions: ")
    if n.endswith(" or more"):
        return count >= int(n.removesuffix(" or more"))
    return count == int(n)
