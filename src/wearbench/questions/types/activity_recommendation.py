"""Step-count recommendation from the steps–mortality dose–response (health · single · history).

Evidence: the user's habitual daily steps, the median over the 28-day window (``nan_stat``),
placed among the cohort reference percentiles of their age band and sex (``percentile_rank``),
and the median over the 180 days before the window (the user's own usual level).

The dose–response literature (card ``steps_mortality_dose_response``) is used qualitatively:
risk falls most steeply at low step volumes and the association flattens at high volumes.
The study-specific step counts where it flattens are cohort- and age-dependent, so they are
not imported; "low" and "high" are the bottom and top quarters of peers of the same age band
and sex (reference P25/P75), with the median (P50) splitting the middle. The user's own
distribution sets the first step: a window more than 10 % below their usual median is "below
their usual level", more than 10 % above is "above", else "at their usual level".

Options: the 4 levels × 3 relations to the user's own usual level (12 recommendations), the
correct one and nine of the other eleven, in one template of one length (no digits, negation or
hedge words), so that the text alone does not single out a recommendation. Dead-bands: the
percentile rank within 3 points of P25, P50 or P75, or the relative change within 3 points of
±10 %, drops the window.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from wearbench._labels import Labels
from wearbench.cohort import UserContext
from wearbench.questions._graph import Graph
from wearbench.questions._helpers import require_coverage, weighted_sample
from wearbench.questions._qtype import CohortPool, Draft, Drop, Option, QuestionType, question

CARD = "steps_mortality_dose_response"
HISTORY = 180
LEVEL_CUTS = (25.0, 50.0, 75.0)
LEVELS = ("low", "below_median", "above_median", "high")
RELATIONS = ("below_usual", "usual", "above_usual")
REL_CUT = 0.10
#: How often each relation is expected at each level: a ±10 % band around the usual level holds
#: most windows, and a window in the bottom (top) quarter of peers is more often below (above)
#: the user's own usual level than the other way round (regression to the mean). Used only to
#: pick distractors, so that each recommendation is shown about as often as it is the answer.
RELATION_PRIOR = {
    "low": {"below_usual": 0.4, "usual": 0.45, "above_usual": 0.15},
    "below_median": {"below_usual": 0.25, "usual": 0.5, "above_usual": 0.25},
    "above_median": {"below_usual": 0.25, "usual": 0.5, "above_usual": 0.25},
    "high": {"below_usual": 0.1, "usual": 0.55, "above_usual": 0.35},
}

#: Option wording: one template; each level's (quarter, gain) words and each relation's words add up
#: to one length, with no digits, negation or hedge words and none that the stem uses.
_LEVEL_TEXT = {
    "low": ("bottom", "largest"),
    "below_median": ("second", "sizable"),
    "above_median": ("third", "moderate"),
    "high": ("fourth", "limited"),
}
_RELATION_TEXT = {
    "below_usual": ("trail", "regain"),
    "usual": ("match", "retain"),
    "above_usual": ("outdo", "uphold"),
}


def level_of(pct: float) -> str:
    """Level from the percentile rank among peers."""
    return LEVELS[int(np.searchsorted(LEVEL_CUTS, pct, side="right"))]


def relation_of(window_median: float, history_median: float) -> str:
    """Relation of the window median to the user's usual (history) median."""
    rel = window_median / history_median - 1.0
    return "below_usual" if rel < -REL_CUT else "above_usual" if rel > REL_CUT else "usual"


def option(level: str, relation: str) -> Option:
    """Recommendation text and claim."""
    quarter, gain = _LEVEL_TEXT[level]
    verb, aim = _RELATION_TEXT[relation]
    return Option(
        f"Steps in the {quarter} quarter of peers, where extra steps bring {gain} benefit; recent steps "
        f"{verb} their usual level, so first {aim} that level.",
        {"level": level, "relation": relation},
    )


@question()
@dataclass(frozen=True)
class ActivityRecommendation(QuestionType):
    """Which step-count recommendation follows from habitual steps, peers and the user's usual level.

    Attributes:
        pct_dead_band: Dead-band around a level cut (percentile points of the peers' steps).
        rel_dead_band: Dead-band around ±``REL_CUT`` for the change from the usual level (share
            of the usual level).
    """

    pct_dead_band: float = 3.0
    rel_dead_band: float = 0.03

    name = "activity_recommendation"
    version = 2
    labels = Labels("health", "single", "literature", "history")
    max_per_user = 2
    min_history = 28 + HISTORY

    def make(self, ctx: UserContext, end: int, rng: np.random.Generator, pool: CohortPool) -> Draft:
        """Rank the window's median steps among peers, compare with the usual level, pose options."""
        g = Graph(ctx, str(ctx.dates[end]))
        ref = g.reference("steps")
        if not {25, 50, 75} <= set(ref.value):
            raise Drop("no reference percentiles for steps")
        win = g.series("steps", self.window_days)
        require_coverage(win.value, 0.7, "steps")
        hist = g.series("steps", HISTORY, offset=self.window_days)
        require_coverage(hist.value, 0.6, "steps history")
        wm = g.output("window_median", g.call("nan_stat", win, stat="median"))
        hm = g.output("history_median", g.call("nan_stat", hist, stat="median"))
        pct = g.output("steps_pct", g.call("percentile_rank", wm, ref))
        if min(abs(float(pct.value) - c) for c in LEVEL_CUTS) <= self.pct_dead_band:
            raise Drop("steps percentile within the dead-band of a level cut")
        if float(hm.value) <= 0:
            raise Drop("no usual step level (zero median)")
        rel = float(wm.value) / float(hm.value) - 1.0
        if min(abs(rel - REL_CUT), abs(rel + REL_CUT)) <= self.rel_dead_band:
            raise Drop("change from the usual level within the dead-band")
        combos = [(lv, r) for lv in LEVELS for r in RELATIONS]
        evidence = g.evidence()
        correct = next(option(*c) for c in combos if self.check({"level": c[0], "relation": c[1]}, evidence))
        others = [option(*c) for c in combos if c != (correct.claim["level"], correct.claim["relation"])]
        w = [RELATION_PRIOR[str(o.claim["level"])][str(o.claim["relation"])] for o in others]
        distractors = tuple(weighted_sample(others, w, 9, rng))
        text = (
            f"Considering this user's daily steps over the 28 days ending {g.end_date}, the reference "
            f"percentiles of their age band and sex, and their own usual step level over the preceding "
            f"{HISTORY} days, which recommendation is most consistent with the step-count dose–response "
            f"evidence (risk falls most steeply at low volumes and flattens at high volumes)? Quarters "
            f"are cut at the reference P25, P50 and P75; the 28-day median counts as different from the "
            f"usual median when it differs by more than {REL_CUT:.0%}."
        )
        return Draft(text, correct, distractors, g, ("steps",), grounding_ref=CARD)

    @staticmethod
    def check(claim: Mapping[str, Any], evidence: Mapping[str, Any]) -> bool:
        """The claimed level matches the percentile rank and the claimed relation the window/usual ratio."""
        pct, wm, hm = evidence.get("steps_pct"), evidence.get("window_median"), evidence.get("history_median")
        if pct is None or wm is None or hm is None or hm <= 0:
            return False
        return bool(claim.get("level") == level_of(pct) and claim.get("relation") == relation_of(wm, hm))
