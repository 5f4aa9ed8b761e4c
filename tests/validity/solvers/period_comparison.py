"""period_comparison: calendar-month means over days with data, months with ≥ N days, extreme one."""

from __future__ import annotations

import re

import numpy as np
from tests.validity.prompt import Prompt, find_metric
from tests.validity.solvers._common import dates_in, pick

MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


def solve(p: Prompt) -> str:
    """Letter of the month with the highest (lowest) mean."""
    start, end = dates_in(p.question)[:2]
    metric = find_metric(p.question.split("this user's", 1)[1])
    highest = "highest average" in p.question
    min_days = int(re.search(r"at least (\d+) days of data", p.question).group(1))  # type: ignore[union-attr]
    i0, i1 = p.index(start), p.index(end)
    x, dates = p.values(metric)[i0 : i1 + 1], p.dates[i0 : i1 + 1]
    months = dates.astype("datetime64[M]")
    means = {}
    for mth in np.unique(months):
        v = x[(months == mth) & np.isfinite(x)]
        if v.size >= min_days:
            means[str(mth)] = float(v.mean())
    best = (max if highest else min)(means, key=lambda k: means[k])
    year, month = best.split("-")
    return pick(p.options, lambda text: text == f"{MONTHS[int(month) - 1]} {year}")
