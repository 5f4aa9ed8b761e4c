"""anomaly: robust z of each window day against the median / 1.4826·MAD of its previous 28 days."""

from __future__ import annotations

import re

import numpy as np
from tests.validity.prompt import Prompt, find_metric
from tests.validity.solvers._common import Unsolvable, dates_in, pick, trailing


def solve(p: Prompt) -> str:
    """Letter of the window day with the largest |robust z|."""
    start, end = dates_in(p.question)[:2]
    metric = find_metric(p.question.split("this user's", 1)[1])
    baseline = int(re.search(r"median of the previous (\d+) days", p.question).group(1))  # type: ignore[union-attr]
    x = p.values(metric)
    med, spread = trailing(x, baseline, "median_mad")
    with np.errstate(invalid="ignore", divide="ignore"):
        z = np.abs((x - med) / spread)
    z[~np.isfinite(z)] = -1.0
    i0, i1 = p.index(start), p.index(end)
    top = i0 + int(np.argmax(z[i0 : i1 + 1]))
    if z[top] < 0:
        raise Unsolvable("no defined z in the window")
    day = str(p.dates[top])
    return pick(p.options, lambda text: text.endswith(day))
