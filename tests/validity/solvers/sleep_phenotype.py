"""sleep_phenotype: 28-day means of sleep length and efficiency vs the shown P25/P75; timing vs a median."""

from __future__ import annotations

import re

import numpy as np
from tests.validity.prompt import Prompt
from tests.validity.solvers._common import Unsolvable, dates_in, number, pick


def phenotype(length_pct: str, efficiency_poor: bool, erratic: bool) -> str:
    """Option text of a phenotype (``length_pct``: reduced, typical or lengthy)."""
    eff = "poor" if efficiency_poor else "good"
    timing = "erratic" if erratic else "regular"
    return f"Sleep of {length_pct} length, {eff} efficiency and {timing} timing"


def solve(p: Prompt) -> str:
    """Letter of the phenotype the window means give."""
    days = int(re.search(r"Over the (\d+) days ending", p.question).group(1))  # type: ignore[union-attr]
    if dates_in(p.question)[0] != str(p.dates[-1]):
        raise Unsolvable("window end is not the last shown day")
    cut = re.search(r"exceeds the cohort median of ([\d.,]+) min", p.question)
    if cut is None:
        raise Unsolvable("the stem states no timing cut")
    ref_len, ref_eff = p.reference.get("sleep_minutes", {}), p.reference.get("sleep_efficiency", {})
    if not {25, 75} <= set(ref_len) or 25 not in ref_eff:
        raise Unsolvable("the prompt shows no P25/P75 of sleep minutes or efficiency")
    length = float(np.nanmean(p.span("sleep_minutes", days)))
    eff = float(np.nanmean(p.span("sleep_efficiency", days)))
    reg = float(np.nanmean(p.span("bedtime_regularity", days)))
    word = "reduced" if length < ref_len[25] else "lengthy" if length > ref_len[75] else "typical"
    text = phenotype(word, eff < ref_eff[25], reg > number(cut.group(1)))
    return pick(p.options, lambda t: t == text)
