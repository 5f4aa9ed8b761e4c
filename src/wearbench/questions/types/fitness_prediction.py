"""VO2max band vs age- and sex-matched peers, its prognosis and trend (health · single · history).

Evidence: the user's VO2max, the median of the estimates over the last 90 days (``nan_stat``);
the mean and SD of VO2max among peers of the user's age band and sex, read from the item's
reference cell (``reference`` node, stored inline in the graph); the Theil–Sen slope of VO2max
over the last 180 days with its 95 % CI.

The band is the z-score of the user's VO2max against the peers: low (z < −1), below average
(−1…0), above average (0…1), high (z ≥ 1). No study-specific VO2max or MET cut-off is imported:
the literature (card ``crf_mortality``) is used for the direction only — higher fitness,
lower long-term all-cause mortality, with no observed upper limit — so the prognosis of a
band below the peer mean is "higher risk than peers at the mean" and of a band above it
"lower risk". The trend is improving / declining when the CI excludes zero, otherwise "no
clear change".

Reference: only age- and sex-matched peers, as the card asks, and never a set that includes
the user (:class:`~wearbench.cohort.ReferenceResolver`): a population independent of the
cohort (the synthetic reference population), the cohort's other users of the same age band
and sex (at least 30, data up to the end date), or a cited external table (FRIEND registry).
A cell without a mean and SD drops the window. The stem states the peer mean, SD, the kind
of reference and its size, so the z-score and band can be computed from the prompt.

Options: 4 bands × 3 trends = 12 claims, each with the prognosis its band implies (a prognosis
that contradicts the band is ruled out by the literature alone, so it would be a text-only
shortcut); the correct one and nine of the other eleven, in one template whose slot words have
one length (bands poor/fair/good/high are defined in the stem). Dead-bands: z within
0.1 of a band edge; zero within 10 % of the CI width from either CI end.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from wearbench.cohort import ReferenceCell, metric
from wearbench.questions._context import UserContext
from wearbench.questions._graph import Graph
from wearbench.questions._helpers import keep_share, weighted_sample
from wearbench.questions._labels import Labels
from wearbench.questions._qtype import CohortPool, Draft, Drop, Option, QuestionType, question

CARD = "crf_mortality"
VALUE_DAYS = 90
TREND_DAYS = 180
MIN_ESTIMATES = 4
MIN_TREND_POINTS = 10
Z_EDGES = (-1.0, 0.0, 1.0)
Z_DEAD_BAND = 0.1
CI_DEAD_BAND = 0.1
BANDS = ("low", "below_average", "above_average", "high")
#: Expected share of users per band, used only to pick distractors (so that each band is shown
#: about as often as it is the answer): against peers of the same sex and age band, the normal
#: shares of the z-bands.
BAND_PRIOR = {"low": 0.16, "below_average": 0.34, "above_average": 0.34, "high": 0.16}
#: Share of "unclear trend" windows kept: without thinning about two thirds of answers have an
#: unclear VO2max trend, which a text-only model learns from the option wording alone.
KEEP_UNCLEAR = 0.12
RISKS = ("higher", "lower")
TRENDS = ("improving", "declining", "no_clear_change")

#: Option wording: one template; each slot's alternatives have the same length and word count,
#: the band words are all defined in the stem, and every trend phrase carries one hedge word.
_BAND_TEXT = {"low": "Poor", "below_average": "Fair", "above_average": "Good", "high": "High"}
_RISK_TEXT = {"higher": "increased", "lower": "decreased"}
_TREND_TEXT = {
    "improving": "a clear increase",
    "declining": "a clear decrease",
    "no_clear_change": "an unclear trend",
}


def band_of(z: float) -> str:
    """Fitness band from the cohort z-score."""
    return BANDS[int(np.searchsorted(Z_EDGES, z, side="right"))]


def risk_of(band: str) -> str:
    """Long-term risk direction implied by a band (fitter than the reference mean, lower risk)."""
    return "higher" if BANDS.index(band) < 2 else "lower"


def trend_of(lo: float, hi: float) -> str:
    """Trend state from the slope's CI."""
    return "improving" if lo > 0 else "declining" if hi < 0 else "no_clear_change"


def option(band: str, risk: str, trend: str) -> Option:
    """Option text and claim."""
    return Option(
        f"Fitness band {_BAND_TEXT[band].lower()}, {_RISK_TEXT[risk]} long-term mortality risk, "
        f"{_TREND_TEXT[trend]} in VO2max",
        {"band": band, "risk": risk, "trend": trend},
    )


@question()
class FitnessPrediction(QuestionType):
    """VO2max band vs age- and sex-matched peers, its long-term risk direction and its 180-day trend."""

    name = "fitness_prediction"
    version = 5
    labels = Labels("health", "single", "literature", "history")
    max_per_user = 4
    min_history = TREND_DAYS

    def make(self, ctx: UserContext, end: int, rng: np.random.Generator, pool: CohortPool) -> Draft:
        """Z-score the user's recent VO2max against matched peers, fit its trend, pose ten options."""
        g = Graph(ctx, str(ctx.dates[end]))
        cell = g.reference_cell("vo2max")
        ref = ReferenceCell.from_json(cell.value)
        if ref.mean is None or ref.sd is None or ref.sd <= 0:
            raise Drop("VO2max reference has no mean and SD")
        value = g.output(
            "vo2max",
            g.call("nan_stat", g.series("vo2max", VALUE_DAYS), stat="median", min_count=MIN_ESTIMATES),
        )
        if np.isnan(float(value.value)):
            raise Drop("too few VO2max estimates in the last 90 days")
        mean = g.output("ref_mean", cell["mean"])
        sd = g.output("ref_sd", cell["sd"])
        z = (float(value.value) - float(mean.value)) / float(sd.value)
        if min(abs(z - e) for e in Z_EDGES) <= Z_DEAD_BAND:
            raise Drop("VO2max within the dead-band of a band edge")
        trend = g.series("vo2max", TREND_DAYS)
        if np.isfinite(trend.value).sum() < MIN_TREND_POINTS:
            raise Drop("too few VO2max estimates for a trend")
        fit = g.call("theil_sen_slope", trend, alpha=0.05)
        g.output("lo", fit["lo"])
        g.output("hi", fit["hi"])
        lo, hi = float(fit["lo"].value), float(fit["hi"].value)
        if min(abs(lo), abs(hi)) <= CI_DEAD_BAND * (hi - lo):
            raise Drop("trend CI ends within the dead-band of zero")
        if trend_of(lo, hi) == "no_clear_change":
            keep_share(KEEP_UNCLEAR, rng)
        # only prognoses consistent with the band: an inconsistent one is ruled out by the
        # literature alone, without the data, and would be a text-only shortcut
        combos = [(b, risk_of(b), t) for b in BANDS for t in TRENDS]
        evidence = g.evidence()
        correct = next(option(*c) for c in combos if self.check(option(*c).claim, evidence))
        others = [option(*c) for c in combos if option(*c).claim != correct.claim]
        weights = [BAND_PRIOR[str(o.claim["band"])] for o in others]
        distractors = tuple(weighted_sample(others, weights, 9, rng))
        text = (
            f"Taking this user's VO2max as the median estimate over the 90 days ending {g.end_date}, and "
            f"its z-score against the mean and SD of VO2max among peers of their age band and sex "
            f"({_peers(ref)}; fitness bands: poor below "
            f"-1, fair -1 to 0, good 0 to 1, high 1 or more), which statement about their "
            f"cardiorespiratory fitness band, their long-term mortality risk relative to someone at the "
            f"reference mean, and the direction of VO2max over the last 180 days (Theil-Sen slope, 95% "
            f"CI) is correct?"
        )
        return Draft(text, correct, distractors, g, ("vo2max",), grounding_ref=CARD)

    @staticmethod
    def check(claim: Mapping[str, Any], evidence: Mapping[str, Any]) -> bool:
        """Band from the z-score, prognosis implied by the band (fitter, lower risk), trend from the CI."""
        v, m, sd, lo, hi = (evidence.get(k) for k in ("vo2max", "ref_mean", "ref_sd", "lo", "hi"))
        if v is None or m is None or not sd or lo is None or hi is None:
            return False
        band = band_of((v - m) / sd)
        risk = risk_of(band)
        return bool(
            claim.get("band") == band and claim.get("risk") == risk and claim.get("trend") == trend_of(lo, hi)
        )


def _peers(ref: ReferenceCell) -> str:
    """``"<kind, group and size of the reference>: mean 38.21, SD 6.10 mL/kg/min"``."""
    unit = metric("vo2max").unit
    return f"{ref.describe()}: mean {ref.mean:.2f}, SD {ref.sd:.2f} {unit}"
