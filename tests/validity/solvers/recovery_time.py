"""recovery_time: last run beyond 1.5 SD, then the first day within 0.5 SD of the frozen pre-run baseline."""

from __future__ import annotations

import re

import numpy as np
from tests.validity.prompt import Prompt, find_metric
from tests.validity.solvers._common import Unsolvable, at_least, dates_in, pick, runs, trailing


def solve(p: Prompt) -> str:
    """Letter of the recovery date of the most recent excursion within the stem's dates."""
    start, end = dates_in(p.question)[:2]
    metric = find_metric(p.question.split("this user's", 1)[1])
    m = re.search(r"([≥≤]) ([\d.]+) SD (above|below) the mean of the previous (\d+) days", p.question)
    r = re.search(r"first back within ([\d.]+) SD", p.question)
    assert m is not None, p.question
    assert r is not None, p.question
    k, above, window, k_back = float(m.group(2)), m.group(3) == "above", int(m.group(4)), float(r.group(1))
    x = p.values(metric)
    mean, sd = trailing(x, window, "mean_sd", at_least(p.question, "missing days skipped"))
    with np.errstate(invalid="ignore", divide="ignore"):
        z = (x - mean) / sd
    hit = np.nan_to_num(z if above else -z, nan=-np.inf) >= k
    i0, i1 = p.index(start), p.index(end)
    found = [s for s, _ in runs(hit[: i1 + 1]) if s >= i0]
    if not found:
        raise Unsolvable("no excursion within the dates")
    onset = found[-1]
    base, spread = mean[onset], sd[onset]
    after = np.flatnonzero(np.abs(x[onset + 1 : i1 + 1] - base) <= k_back * spread)
    if after.size == 0:
        raise Unsolvable("no recovery within the dates")
    day = str(p.dates[onset + 1 + int(after[0])])
    return pick(p.options, lambda text: text == day)
