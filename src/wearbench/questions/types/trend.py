"""Trend direction and size of one metric over the 28-day window (data · single · window).

Evidence: the Theil–Sen slope of the metric over the window, with its 95% CI. The trend is
*increasing* or *decreasing* only when the CI excludes zero (windows without a clear trend
are dropped). The size is the change over the window, ``slope × (window_days − 1)``, binned
at cohort quantiles of the same quantity; windows whose change falls in a dead-band around a
bin edge are dropped. Options are the 2 directions × 5 size bins: the opposite direction and
wrong magnitudes drawn from the cohort distribution are the distractors.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from wearbench.questions._context import UserContext
from wearbench.questions._graph import Graph
from wearbench.questions._helpers import fmt_value, magnitude_edges, near_edge, require_coverage
from wearbench.questions._labels import Labels
from wearbench.questions._qtype import CohortPool, Draft, Drop, Option, QuestionType, question

METRICS = ("resting_hr", "hrv", "steps", "sleep_minutes", "stress", "sleep_efficiency")
N_BINS = 5
DEAD_BAND = 0.1


@question()
class Trend(QuestionType):
    """Direction and size of a 28-day trend."""

    name = "trend"
    version = 1
    labels = Labels("data", "single", "literature", "window")
    max_per_user = 2

    def make(self, ctx: UserContext, end: int, rng: np.random.Generator, pool: CohortPool) -> Draft:
        """Build the trend question for one metric chosen at random among those with data."""
        metric = str(rng.choice(METRICS))
        g = Graph(ctx, str(ctx.dates[end]))
        s = g.series(metric, self.window_days)
        require_coverage(s.value, 0.7, metric)
        fit = g.call("theil_sen_slope", s, alpha=0.05)
        g.output("slope", fit["slope"])
        g.output("lo", fit["lo"])
        g.output("hi", fit["hi"])
        g.output("span_days", g.call("count_days", s))
        lo, hi = float(fit["lo"].value), float(fit["hi"].value)
        if not (lo > 0 or hi < 0):
            raise Drop("no clear trend (CI includes zero)")
        change = float(fit["slope"].value) * (self.window_days - 1)
        edges = magnitude_edges(pool.window_slopes.get(metric, np.array([])) * (self.window_days - 1), N_BINS)
        if near_edge(abs(change), edges, DEAD_BAND):
            raise Drop("change within the dead-band of a magnitude edge")
        options = [
            self._option(metric, d, edges[i], edges[i + 1])
            for d in ("increasing", "decreasing")
            for i in range(N_BINS)
        ]
        correct = next(o for o in options if self.check(o.claim, g.evidence()))
        question_text = (
            f"Over the 28 days ending {g.end_date}, what best describes the trend in this user's "
            f"{metric.replace('_', ' ')} (robust Theil–Sen slope, change across the window)?"
        )
        return Draft(
            question_text,
            correct,
            tuple(o for o in options if o is not correct),
            g,
            (metric,),
            variant=metric,
        )

    @staticmethod
    def _option(metric: str, direction: str, lo: float, hi: float) -> Option:
        size = (
            f"more than {fmt_value(lo, metric)}"
            if math.isinf(hi)
            else f"{fmt_value(lo, metric)} to {fmt_value(hi, metric)}"
        )
        return Option(
            f"{direction.capitalize()}, by {size} over the window",
            {"metric": metric, "direction": direction, "lo": lo, "hi": hi if math.isfinite(hi) else None},
        )

    @staticmethod
    def check(claim: Mapping[str, Any], evidence: Mapping[str, Any]) -> bool:
        """Direction matches a CI that excludes zero and |change| lies in ``[lo, hi)``."""
        lo_ci, hi_ci, slope = evidence["lo"], evidence["hi"], evidence["slope"]
        if lo_ci is None or hi_ci is None or slope is None:
            return False
        direction = "increasing" if lo_ci > 0 else "decreasing" if hi_ci < 0 else "none"
        change = abs(slope) * (evidence["span_days"] - 1)
        hi = math.inf if claim["hi"] is None else claim["hi"]
        return bool(claim["direction"] == direction and claim["lo"] <= change < hi)
