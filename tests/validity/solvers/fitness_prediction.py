"""fitness_prediction: 90-day median VO2max vs the stated peer quartiles; Theil–Sen CI over 180 days.

Written from the stem: the band is the user's quartile among the peers (poor below P25, fair
P25 to below P50, good P50 to below P75, high at P75 or above), the prognosis is relative to
someone at the peer median (fitter, lower risk: the direction of the card), and the trend is
read from whether the 95% CI of the Theil–Sen slope excludes zero.
"""

from __future__ import annotations

import re

import numpy as np
from scipy import stats
from tests.validity.prompt import Prompt
from tests.validity.solvers._common import Unsolvable, dates_in, number, pick

#: The band rule as the stem must state it (band word, lower cut, upper cut).
RULE = "poor below P25, fair from P25 to below P50, good from P50 to below P75, high at P75 or above"
BAND_WORDS = ("poor", "fair", "good", "high")
_OPTION = re.compile(r"Fitness band (\w+), (increased|decreased) long-term mortality risk, (.+) in VO2max")
_CUTS = re.compile(r"P25 = (-?[\d.,]+), P50 = (-?[\d.,]+), P75 = (-?[\d.,]+) mL/kg/min")


def band(value: float, cuts: tuple[float, float, float]) -> str:
    """Band word of ``value`` for the P25, P50, P75 ``cuts`` (a value on a cut is in the upper band)."""
    return BAND_WORDS[sum(value >= c for c in cuts)]


def trend_words(lo: float, hi: float) -> str:
    """Trend phrase of a slope CI ``[lo, hi]``."""
    return "a clear increase" if lo > 0 else "a clear decrease" if hi < 0 else "an unclear trend"


def holds(text: str, band_word: str, trend: str) -> bool:
    """Whether an option states the band, the prognosis of that band and the trend."""
    m = _OPTION.fullmatch(text)
    if m is None:
        return False
    risk = "increased" if band_word in ("poor", "fair") else "decreased"
    return (m.group(1), m.group(2), m.group(3)) == (band_word, risk, trend)


def stated_cuts(p: Prompt) -> tuple[float, float, float]:
    """P25, P50, P75 the stem states, checked against the reference section's vo2max row.

    Raises:
        Unsolvable: When the stem states no cuts or no band rule, or the two disagree.
    """
    m = _CUTS.search(p.question)
    if m is None or RULE not in p.question or "relative to someone at the peer median" not in p.question:
        raise Unsolvable("the stem states no quartile cuts, band rule or prognosis reference")
    cuts = (number(m.group(1)), number(m.group(2)), number(m.group(3)))
    shown = p.reference.get("vo2max", {})
    if tuple(shown.get(q) for q in (25, 50, 75)) != cuts:
        raise Unsolvable(f"stem cuts {cuts} differ from the reference section {dict(shown)}")
    return cuts


def solve(p: Prompt) -> str:
    """Letter of the option with the user's quartile band, its prognosis and the 180-day trend."""
    cuts = stated_cuts(p)
    value_days = int(re.search(r"median estimate over the (\d+) days ending", p.question).group(1))  # type: ignore[union-attr]
    trend_days = int(re.search(r"VO2max over the last (\d+) days", p.question).group(1))  # type: ignore[union-attr]
    end = p.index(dates_in(p.question)[0])
    vo2 = p.values("vo2max")[: end + 1]
    recent = vo2[max(0, end + 1 - value_days) :]
    if np.isfinite(recent).sum() < 1:
        raise Unsolvable("no VO2max estimate in the value window")
    value = float(np.nanmedian(recent))
    y = vo2[max(0, end + 1 - trend_days) :]
    if end + 1 < trend_days:
        raise Unsolvable("the trend window is not fully shown")
    x = np.arange(len(y), dtype=float)
    ok = np.isfinite(y)
    if ok.sum() < 3:
        raise Unsolvable("fewer than 3 VO2max estimates in the trend window")
    res = stats.theilslopes(y[ok], x[ok], 0.95)
    words = trend_words(float(res[2]), float(res[3]))
    word = band(value, cuts)
    return pick(p.options, lambda text: holds(text, word, words))
