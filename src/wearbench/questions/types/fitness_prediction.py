"""VO2max quartile band among age- and sex-matched peers, its prognosis and trend (health · single · history).

Evidence: the user's VO2max, the median of the estimates over the last 90 days (``nan_stat``);
the 25th, 50th and 75th percentiles of VO2max among peers of the user's age band and sex, read
from the item's reference cell (``reference`` node, stored inline in the graph); the Theil–Sen
slope of VO2max over the last 180 days with its 95 % CI.

The band is the user's quartile among the peers: poor (below P25), fair (P25 to below P50),
good (P50 to below P75), high (P75 or above). Percentiles rather than a mean and SD, so that
every kind of reference works, including published tables that give percentiles only (FRIEND
2015). No study-specific VO2max or MET cut-off is imported: the literature (card
``crf_mortality``) is used for the direction only — higher fitness, lower long-term all-cause
mortality, with no observed upper limit — so the prognosis of a band below the peer median is
"increased risk relative to someone at the peer median" and of a band above it "decreased".
The trend is improving / declining when the CI excludes zero, otherwise "no clear change".

Reference: only age- and sex-matched peers, as the card asks, and never a set that includes
the user (:class:`~wearbench.cohort.ReferenceResolver`): a population independent of the
cohort (the synthetic reference population), the cohort's other users of the same age band
and sex (at least 30, data up to the end date), or a cited external table (FRIEND registry).
A cell without increasing P25 < P50 < P75 drops the window. The stem states the band rule,
the three cuts (as the prompt's reference section prints them) and the kind and size of the
reference, so the band can be read from the prompt.

Options: 4 bands × 3 trends = 12 claims, each with the prognosis its band implies (a prognosis
that contradicts the band is ruled out by the literature alone, so it would be a text-only
shortcut); the correct one and nine of the other eleven, in one template whose slot words have
one length. Dead-bands: VO2max within 5 % of the peers' interquartile range (P75 − P25) of a
cut; zero within 10 % of the CI width from either CI end.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from wearbench._labels import Labels
from wearbench.cohort import ReferenceCell, UserContext, metric
from wearbench.questions._graph import Graph
from wearbench.questions._helpers import keep_share, weighted_sample
from wearbench.questions._qtype import CohortPool, Draft, Drop, Option, QuestionType, question

CARD = "crf_mortality"
VALUE_DAYS = 90
TREND_DAYS = 180
MIN_ESTIMATES = 4
MIN_TREND_POINTS = 10
#: Percentile cuts of the peers that bound the four bands.
CUTS = (25, 50, 75)
BANDS = ("low", "below_median", "above_median", "high")
#: Distractor weights, band × trend (each combination shown about as often as it is the answer,
#: so that no wording's prior can be learnt): the answer shares of the default build (200 × 500,
#: seeds 0; 366 items) before these weights. Users with enough VO2max estimates exercise more,
#: so they sit above the peer median more often than the quartiles' 25 % each.
BAND_WEIGHT = {"low": 0.16, "below_median": 0.23, "above_median": 0.31, "high": 0.30}
TREND_WEIGHT = {"improving": 0.29, "declining": 0.34, "no_clear_change": 0.37}
RISKS = ("higher", "lower")
TRENDS = ("improving", "declining", "no_clear_change")

#: Option wording: one template; each slot's alternatives have the same length and word count,
#: the band words are all defined in the stem, and every trend phrase carries one hedge word.
_BAND_TEXT = {"low": "Poor", "below_median": "Fair", "above_median": "Good", "high": "High"}
_RISK_TEXT = {"higher": "increased", "lower": "decreased"}
_TREND_TEXT = {
    "improving": "a clear increase",
    "declining": "a clear decrease",
    "no_clear_change": "an unclear trend",
}


def band_of(value: float, cuts: tuple[float, float, float]) -> str:
    """Quartile band of ``value`` among peers with P25, P50, P75 ``cuts`` (a cut opens its band)."""
    return BANDS[int(np.searchsorted(cuts, value, side="right"))]


def risk_of(band: str) -> str:
    """Long-term risk direction implied by a band (fitter than the peer median, lower risk)."""
    return "higher" if BANDS.index(band) < 2 else "lower"


def trend_of(lo: float, hi: float) -> str:
    """Trend state from the slope's CI."""
    return "improving" if lo > 0 else "declining" if hi < 0 else "no_clear_change"


def near_cut(value: float, cuts: tuple[float, float, float], share: float) -> bool:
    """Whether ``value`` lies within ``share`` × (P75 − P25) of a cut."""
    return min(abs(value - c) for c in cuts) <= share * (cuts[2] - cuts[0])


def shown(value: float) -> str:
    """A cut as the prompt's reference section prints it: 2 decimals at most, trailing zeros dropped."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text in ("", "-0") else text


def option(band: str, risk: str, trend: str) -> Option:
    """Option text and claim."""
    return Option(
        f"Fitness band {_BAND_TEXT[band].lower()}, {_RISK_TEXT[risk]} long-term mortality risk, "
        f"{_TREND_TEXT[trend]} in VO2max",
        {"band": band, "risk": risk, "trend": trend},
    )


def _cuts(ref: ReferenceCell) -> tuple[float, float, float]:
    """P25, P50, P75 of the cell, as the prompt prints them (2 decimals at most).

    Raises:
        Drop: When a cut is missing or the cuts do not increase.
    """
    try:
        cuts = tuple(float(shown(ref.percentiles[p])) for p in CUTS)
    except (KeyError, ValueError):
        raise Drop("VO2max reference has no P25, P50 and P75") from None
    if not all(math.isfinite(c) for c in cuts) or not cuts[0] < cuts[1] < cuts[2]:
        raise Drop("VO2max reference quartiles do not increase")
    return cuts[0], cuts[1], cuts[2]


@question()
@dataclass(frozen=True)
class FitnessPrediction(QuestionType):
    """VO2max quartile band among matched peers, its long-term risk direction and its 180-day trend.

    Attributes:
        keep_unclear: Share of "unclear trend" windows kept: without thinning about two thirds
            of answers have an unclear VO2max trend, which a text-only model learns from the
            option wording alone.
        cut_dead_band: A VO2max within this share of the peers' interquartile range of a cut
            is not banded (dropped).
        ci_dead_band: A trend CI whose end lies within this share of the CI width from zero is
            dropped.
    """

    keep_unclear: float = 0.12
    cut_dead_band: float = 0.05
    ci_dead_band: float = 0.1

    name = "fitness_prediction"
    version = 6
    labels = Labels("health", "single", "literature", "history")
    max_per_user = 4
    min_history = TREND_DAYS

    def make(self, ctx: UserContext, end: int, rng: np.random.Generator, pool: CohortPool) -> Draft:
        """Band the user's recent VO2max by matched peers' quartiles, fit its trend, pose ten options."""
        g = Graph(ctx, str(ctx.dates[end]))
        cell = g.reference_cell("vo2max")
        ref = ReferenceCell.from_json(cell.value)
        cuts = _cuts(ref)
        value = g.output(
            "vo2max",
            g.call("nan_stat", g.series("vo2max", VALUE_DAYS), stat="median", min_count=MIN_ESTIMATES),
        )
        if np.isnan(float(value.value)):
            raise Drop("too few VO2max estimates in the last 90 days")
        for p in CUTS:
            g.output(f"ref_p{p}", cell["percentiles"][str(p)])
        if near_cut(float(value.value), cuts, self.cut_dead_band):
            raise Drop("VO2max within the dead-band of a quartile cut")
        trend = g.series("vo2max", TREND_DAYS)
        if np.isfinite(trend.value).sum() < MIN_TREND_POINTS:
            raise Drop("too few VO2max estimates for a trend")
        fit = g.call("theil_sen_slope", trend, alpha=0.05)
        g.output("lo", fit["lo"])
        g.output("hi", fit["hi"])
        lo, hi = float(fit["lo"].value), float(fit["hi"].value)
        if min(abs(lo), abs(hi)) <= self.ci_dead_band * (hi - lo):
            raise Drop("trend CI ends within the dead-band of zero")
        if trend_of(lo, hi) == "no_clear_change":
            keep_share(self.keep_unclear, rng)
        # only prognoses consistent with the band: an inconsistent one is ruled out by the
        # literature alone, without the data, and would be a text-only shortcut
        combos = [(b, risk_of(b), t) for b in BANDS for t in TRENDS]
        evidence = g.evidence()
        correct = next(option(*c) for c in combos if self.check(option(*c).claim, evidence))
        others = [option(*c) for c in combos if option(*c).claim != correct.claim]
        weights = [BAND_WEIGHT[str(o.claim["band"])] * TREND_WEIGHT[str(o.claim["trend"])] for o in others]
        distractors = tuple(weighted_sample(others, weights, 9, rng))
        return Draft(_stem(g.end_date, ref, cuts), correct, distractors, g, ("vo2max",), grounding_ref=CARD)

    @staticmethod
    def check(claim: Mapping[str, Any], evidence: Mapping[str, Any]) -> bool:
        """Band from the peers' quartile cuts, prognosis implied by the band, trend from the CI."""
        v, lo, hi = (evidence.get(k) for k in ("vo2max", "lo", "hi"))
        cuts = [c for c in (evidence.get(f"ref_p{p}") for p in CUTS) if c is not None]
        if v is None or lo is None or hi is None or len(cuts) != len(CUTS):
            return False
        c25, c50, c75 = (float(shown(float(c))) for c in cuts)
        if not c25 < c50 < c75:
            return False
        band = band_of(v, (c25, c50, c75))
        return bool(
            claim.get("band") == band
            and claim.get("risk") == risk_of(band)
            and claim.get("trend") == trend_of(lo, hi)
        )


def _stem(end_date: str, ref: ReferenceCell, cuts: tuple[float, float, float]) -> str:
    """The question: the value, the reference and its cuts, the band rule, and what is asked."""
    unit = metric("vo2max").unit
    p25, p50, p75 = (shown(c) for c in cuts)
    return (
        f"Taking this user's VO2max as the median estimate over the 90 days ending {end_date}, and "
        f"its fitness band as its quartile among peers of their age band and sex ({ref.describe()}: "
        f"P25 = {p25}, P50 = {p50}, P75 = {p75} {unit}; fitness bands: poor below P25, fair from P25 "
        f"to below P50, good from P50 to below P75, high at P75 or above), which statement about their "
        f"cardiorespiratory fitness band, their long-term mortality risk relative to someone at the "
        f"peer median (P50), and the direction of VO2max over the last 180 days (Theil-Sen slope, 95% "
        f"CI) is correct?"
    )
