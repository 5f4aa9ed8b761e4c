"""cohort_position: decile band of the window median among the shown cuts, read by the stem's rule."""

from __future__ import annotations

import re

import numpy as np
from tests.validity.prompt import Prompt, find_metric
from tests.validity.solvers._common import Unsolvable, dates_in, number, pick

_CELL = re.compile(r"^Reference this question compares (\w+) against \(.*\):\n- \w+ \([^)]*\): (.*)$", re.M)


def item_reference(text: str, metric: str) -> dict[int, float]:
    """Percentile → cut of the reference the item compares ``metric`` against (its own block)."""
    for m in _CELL.finditer(text):
        if m.group(1) == metric:
            pairs = re.findall(r"P(\d+)=(-?\d[\d,]*(?:\.\d+)?)", m.group(2))
            return {int(p): number(v) for p, v in pairs}
    raise Unsolvable(f"the prompt shows no reference block for {metric}")


def rule(stem: str) -> tuple[int, int, tuple[str, str, str]]:
    """(low cut, high cut, (reading below, reading between, reading above)) as the stem states it."""
    m = re.search(r"below P(\d+) is (\w+), above P(\d+) (\w+), and from P\d+ to P\d+ (\w+)", stem)
    if m is None:
        raise Unsolvable("the stem states no band-to-reading rule")
    return int(m.group(1)), int(m.group(3)), (m.group(2), m.group(5), m.group(4))


def holds(text: str, decile: int, stem: str) -> bool:
    """Whether an option names the ``decile``-th band (0 = below P10) and the reading the rule gives it."""
    m = re.fullmatch(
        r"Quantile rank ([\d.]+) to ([\d.]+) among peers: an? (\w+) position for long-term risk", text
    )
    if m is None:
        return False
    lo_cut, hi_cut, words = rule(stem)
    lo, hi = round(number(m.group(1)) * 100), round(number(m.group(2)) * 100)
    word = words[0] if hi <= lo_cut else words[2] if lo >= hi_cut else words[1]
    return (lo, hi) == (10 * decile, 10 * decile + 10) and m.group(3) == word


def solve(p: Prompt) -> str:
    """Letter of the band holding the window median, with its stated reading."""
    m = re.search(r"this user's median (.+?) over the (\d+) days ending", p.question)
    if m is None:
        raise Unsolvable("the stem names no metric and window")
    if dates_in(p.question)[0] != str(p.dates[-1]):
        raise Unsolvable("window end is not the last shown day")
    metric = find_metric(m.group(1))
    ref = item_reference(p.text, metric)
    cuts = [ref[c] for c in range(10, 100, 10) if c in ref]
    if len(cuts) != 9:
        raise Unsolvable("the reference lacks a decile cut")
    median = float(np.nanmedian(p.span(metric, int(m.group(2)))))
    decile = sum(median >= c for c in cuts)
    return pick(p.options, lambda text: holds(text, decile, p.question))
