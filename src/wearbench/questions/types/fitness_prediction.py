"""Cardiorespiratory fitness band vs the cohort, its prognosis and trend (health · single · history).

Evidence: the user's VO2max, the median of the estimates over the last 90 days (``nan_stat``);
the mean and SD of the cohort's VO2max reference values (``nan_stat`` over the reference values,
recorded in the graph); the Theil–Sen slope of VO2max over the last 180 days with its 95 % CI.

The band is the cohort z-score of the user's VO2max: low (z < −1), below average (−1…0),
above average (0…1), high (z ≥ 1). No study-specific VO2max or MET cut-off is imported: the
literature (card ``crf_mortality``) is used for the direction only — higher fitness,
lower long-term all-cause mortality, with no observed upper limit — so the prognosis of a
band below the cohort mean is "higher risk than peers at the cohort mean" and of a band above
it "lower risk". The trend is improving / declining when the CI excludes zero, otherwise "no
clear change".

Reference values: ``pool.extra["vo2max|<sex>|<age band>"]`` (per-user VO2max of at least 15
peers of the same sex and age band) when the builder provides it (see
:meth:`FitnessPrediction.reference_values`, the hook this type wants); otherwise the cohort's
28-day window means of VO2max (all users, both sexes, all ages; windows with at least 14
estimates, which over-represents frequent exercisers), and the question says which.

Options: 4 bands × 3 trends = 12 claims, each with the prognosis its band implies (a prognosis
that contradicts the band is ruled out by the literature alone, so it would be a text-only
shortcut); the correct one and nine of the other eleven, in one template whose slot words have
one length (bands poor/fair/good/high are defined in the stem). Dead-bands: z within
0.1 of a band edge; zero within 10 % of the CI width from either CI end.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from wearbench.cohort import age_band
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
MIN_REFERENCE = 30
MIN_PEERS = 15
Z_EDGES = (-1.0, 0.0, 1.0)
Z_DEAD_BAND = 0.1
CI_DEAD_BAND = 0.1
BANDS = ("low", "below_average", "above_average", "high")
#: Expected share of users per band, used only to pick distractors (so that each band is shown
#: about as often as it is the answer): against peers of the same sex and age band, the normal
#: shares of the z-bands; against the whole-cohort fallback, whose windows over-represent frequent
#: exercisers, most users sit below the reference mean.
BAND_PRIOR = {
    "peers": {"low": 0.16, "below_average": 0.34, "above_average": 0.34, "high": 0.16},
    "cohort": {"low": 0.4, "below_average": 0.3, "above_average": 0.2, "high": 0.1},
}
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
    """VO2max band relative to cohort peers, the direction of its long-term risk, and its 180-day trend."""

    name = "fitness_prediction"
    version = 4
    labels = Labels("health", "single", "literature", "history")
    max_per_user = 4
    min_history = TREND_DAYS

    @staticmethod
    def reference_values(contexts: Iterable[UserContext]) -> dict[str, np.ndarray]:
        """Per-user VO2max (median of the last 90 days) keyed ``vo2max|<sex>|<age band>``.

        The builder stores this in ``CohortPool.extra`` through :meth:`cohort_distributions`.
        """
        out: dict[str, list[float]] = {}
        for ctx in contexts:
            vals = ctx.metrics["vo2max"][-VALUE_DAYS:]
            age, sex = ctx.demographics.get("age"), ctx.demographics.get("sex")
            if np.isfinite(vals).sum() < MIN_ESTIMATES or sex not in ("F", "M") or age is None:
                continue
            out.setdefault(f"vo2max|{sex}|{age_band(float(age))}", []).append(float(np.nanmedian(vals)))
        return {k: np.asarray(v, dtype=float) for k, v in out.items()}

    def cohort_distributions(self, contexts: Sequence[UserContext]) -> dict[str, np.ndarray]:
        """Peers' VO2max by sex and age band (see :meth:`reference_values`)."""
        return self.reference_values(contexts)

    def _reference(self, ctx: UserContext, pool: CohortPool) -> tuple[list[float], str]:
        sex, age = ctx.demographics.get("sex"), ctx.demographics.get("age")
        if sex in ("F", "M") and age is not None and float(age) >= 18:
            key = f"vo2max|{sex}|{age_band(float(age))}"
            peers = pool.extra.get(key, np.array([]))
            if np.isfinite(peers).sum() >= MIN_PEERS:
                return [
                    round(float(v), 2) for v in peers[np.isfinite(peers)]
                ], "peers of the same sex and age band"
        values = pool.window_means.get("vo2max", np.array([]))
        if np.isfinite(values).sum() < MIN_REFERENCE:
            raise Drop("cohort VO2max reference too small")
        return [
            round(float(v), 2) for v in values[np.isfinite(values)]
        ], "the whole cohort (all ages, both sexes)"

    def make(self, ctx: UserContext, end: int, rng: np.random.Generator, pool: CohortPool) -> Draft:
        """Z-score the user's recent VO2max against the reference, fit its trend, pose ten options."""
        reference, who = self._reference(ctx, pool)
        g = Graph(ctx, str(ctx.dates[end]))
        value = g.output(
            "vo2max",
            g.call("nan_stat", g.series("vo2max", VALUE_DAYS), stat="median", min_count=MIN_ESTIMATES),
        )
        if np.isnan(float(value.value)):
            raise Drop("too few VO2max estimates in the last 90 days")
        mean = g.output("ref_mean", g.call("nan_stat", reference, stat="mean"))
        sd = g.output("ref_sd", g.call("nan_stat", reference, stat="sd"))
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
        prior = BAND_PRIOR["peers" if who.startswith("peers") else "cohort"]
        distractors = tuple(weighted_sample(others, [prior[str(o.claim["band"])] for o in others], 9, rng))
        text = (
            f"Taking this user's VO2max as the median estimate over the 90 days ending {g.end_date}, and "
            f"its z-score against the mean and SD of VO2max among {who} (fitness bands: poor below "
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
