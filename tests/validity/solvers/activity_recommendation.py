"""activity_recommendation: 28-day median steps vs reference P25/P50/P75 and vs the preceding days' median."""

from __future__ import annotations

import re

import numpy as np
from tests.validity.prompt import Prompt
from tests.validity.solvers._common import Unsolvable, dates_in, pick

QUARTERS = ("bottom", "second", "third", "fourth")
#: Relation of recent to usual steps → (verb, aim) as the options word it.
RELATION = {"below": ("trail", "regain"), "usual": ("match", "retain"), "above": ("outdo", "uphold")}


def holds(text: str, quarter: int, relation: str) -> bool:
    """Whether a recommendation names the ``quarter`` (0 = bottom) and the ``relation``."""
    m = re.match(
        r"Steps in the (\w+) quarter of peers, .*; recent steps (\w+) their usual level, so first (\w+)", text
    )
    if m is None:
        return False
    return m.group(1) == QUARTERS[quarter] and (m.group(2), m.group(3)) == RELATION[relation]


def relation(recent: float, usual: float, share: float) -> str:
    """``below``, ``usual`` or ``above``: recent median vs usual median with a ±``share`` band."""
    rel = recent / usual - 1.0
    return "below" if rel < -share else "above" if rel > share else "usual"


def solve(p: Prompt) -> str:
    """Letter of the recommendation the medians give."""
    m = re.search(r"over the (\d+) days ending", p.question)
    h = re.search(r"over the preceding (\d+) days", p.question)
    s = re.search(r"differs by more than (\d+)%", p.question)
    if m is None or h is None or s is None:
        raise Unsolvable("the stem does not state the window, history or relation cut")
    if dates_in(p.question)[0] != str(p.dates[-1]):
        raise Unsolvable("window end is not the last shown day")
    days, hist = int(m.group(1)), int(h.group(1))
    ref = p.reference.get("steps", {})
    if not {25, 50, 75} <= set(ref):
        raise Unsolvable("the prompt shows no steps P25/P50/P75")
    steps = p.span("steps", days + hist)
    recent, usual = float(np.nanmedian(steps[hist:])), float(np.nanmedian(steps[:hist]))
    quarter = int(np.searchsorted([ref[25], ref[50], ref[75]], recent, side="right"))
    rel = relation(recent, usual, int(s.group(1)) / 100)
    return pick(p.options, lambda t: holds(t, quarter, rel))
