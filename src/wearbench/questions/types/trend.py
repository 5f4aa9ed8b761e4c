"""Trend direction and size of one metric over the 28-day window (data · single · window).

Evidence: the Theil–Sen slope of the metric over the window, with its 95% CI. The trend is
*increasing* or *decreasing* when the CI excludes zero and *no clear trend* when it includes
zero. The size of a directional trend is the change over the window,
``slope × (window_days − 1)``, binned at cohort quantiles of the same quantity.

Options: "no clear trend" plus directional claims (2 directions × 5 size bins, one of the
ten directional distractors left out at random so that there are exactly ten mutually
exclusive claims). Distractors are the opposite direction, wrong magnitudes drawn from the
cohort distribution, and "no clear trend" (or a direction when there is none).

Dead-bands (drop, never approximate): a CI bound within ``CI_DEAD_BAND`` of the CI width from
zero (trend vs no trend would be knife-edge), and, for a directional trend, a change within
``DEAD_BAND`` of a bin width from a bin edge. Windows without a clear trend are the majority,
so only a seeded share ``NO_TREND_SHARE`` of them is kept to keep answers balanced.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from typing import Any

import numpy as np

from wearbench.cohort import metric as metric_spec
from wearbench.questions._context import UserContext
from wearbench.questions._graph import Graph
from wearbench.questions._helpers import fmt_value, near_edge, require_coverage
from wearbench.questions._labels import Labels
from wearbench.questions._qtype import CohortPool, Draft, Drop, Option, QuestionType, question

METRICS = ("resting_hr", "hrv", "steps", "sleep_minutes", "stress", "sleep_efficiency")
#: Cohort quantiles of |change| used as the inner size-bin edges. Windows with a clear trend
#: sit in the upper part of the cohort distribution, so the edges are spread over it.
EDGE_QUANTILES = (0.75, 0.88, 0.94, 0.98)
N_BINS = len(EDGE_QUANTILES) + 1
DEAD_BAND = 0.1
#: Dead-band around zero for the CI bounds, as a share of the CI width.
CI_DEAD_BAND = 0.1
#: Share of "no clear trend" windows kept (the rest are dropped, seeded).
NO_TREND_SHARE = 0.035
NO_TREND = "no clear trend"


def metric_phrase(metric: str) -> str:
    """``"resting heart rate (bpm)"``: the metric's description and unit."""
    spec = metric_spec(metric)
    return f"{spec.description} ({spec.unit})"


def size_edges(pool_changes: np.ndarray) -> list[float]:
    """Size-bin edges ``[0, q…, inf]`` at :data:`EDGE_QUANTILES` of the cohort ``|change|``.

    Raises:
        Drop: If the pool is too small or its quantiles are not distinct.
    """
    mags = np.abs(pool_changes[np.isfinite(pool_changes)])
    if mags.size < 50:
        raise Drop("cohort pool too small for magnitude bins")
    inner = [float(f"{q:.2g}") for q in np.quantile(mags, EDGE_QUANTILES)]
    edges = [0.0, *inner, math.inf]
    if any(b <= a for a, b in itertools.pairwise(edges)):
        raise Drop("cohort magnitude quantiles are not distinct")
    return edges


def ci_in_dead_band(lo_ci: float, hi_ci: float) -> bool:
    """Whether a CI bound lies within :data:`CI_DEAD_BAND` of the CI width from zero."""
    return min(abs(lo_ci), abs(hi_ci)) <= CI_DEAD_BAND * (hi_ci - lo_ci)


def _direction(lo_ci: float, hi_ci: float) -> str:
    return "increasing" if lo_ci > 0 else "decreasing" if hi_ci < 0 else "none"


@question()
class Trend(QuestionType):
    """Direction and size of a 28-day trend, or no clear trend."""

    name = "trend"
    version = 2
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
        if not (math.isfinite(lo) and math.isfinite(hi)):
            raise Drop("slope undefined")
        if ci_in_dead_band(lo, hi):
            raise Drop("CI bound within the dead-band of zero")
        edges = size_edges(pool.window_slopes.get(metric, np.array([])) * (self.window_days - 1))
        if _direction(lo, hi) == "none":
            if rng.random() >= NO_TREND_SHARE:
                raise Drop("no-clear-trend window not sampled (answer balance)")
        elif near_edge(abs(float(fit["slope"].value)) * (self.window_days - 1), edges, DEAD_BAND):
            raise Drop("change within the dead-band of a magnitude edge")
        correct, distractors = self._options(metric, edges, g.evidence(), rng)
        return Draft(
            self._text(metric, g.end_date, ctx, end), correct, distractors, g, (metric,), variant=metric
        )

    def _options(
        self, metric: str, edges: list[float], evidence: Mapping[str, Any], rng: np.random.Generator
    ) -> tuple[Option, tuple[Option, ...]]:
        """The correct option and nine distractors (one directional distractor left out)."""
        directional = [
            self._option(metric, d, edges[i], edges[i + 1])
            for d in ("increasing", "decreasing")
            for i in range(N_BINS)
        ]
        options = [
            Option(
                f"{NO_TREND.capitalize()} (the 95% CI of the slope includes zero)",
                {"metric": metric, "direction": "none"},
            ),
            *directional,
        ]
        correct = next(o for o in options if self.check(o.claim, evidence))
        wrong_directional = [o for o in directional if o is not correct]
        left_out = wrong_directional[int(rng.integers(len(wrong_directional)))]
        return correct, tuple(o for o in options if o is not correct and o is not left_out)

    def _text(self, metric: str, end_date: str, ctx: UserContext, end: int) -> str:
        start = str(ctx.dates[end - self.window_days + 1]) if end >= self.window_days - 1 else "?"
        name = metric_phrase(metric)
        return (
            f"Over the {self.window_days} days from {start} to {end_date}, what best describes the "
            f"trend in this user's {name}? Use the Theil–Sen slope (median of the slopes "
            "between every pair of days, missing days skipped) with its 95% confidence interval: "
            "the trend is increasing or decreasing only if the interval excludes zero, otherwise "
            f"there is no clear trend; its size is |slope| × {self.window_days - 1} days, the "
            "change across the window."
        )

    @staticmethod
    def _option(metric: str, direction: str, lo: float, hi: float) -> Option:
        if math.isinf(hi):
            size = f"more than {fmt_value(lo, metric)}"
        elif lo == 0:
            size = f"less than {fmt_value(hi, metric)}"
        else:
            size = f"{fmt_value(lo, metric)} to {fmt_value(hi, metric)}"
        return Option(
            f"{direction.capitalize()}, by {size} over the window",
            {"metric": metric, "direction": direction, "lo": lo, "hi": hi if math.isfinite(hi) else None},
        )

    @staticmethod
    def check(claim: Mapping[str, Any], evidence: Mapping[str, Any]) -> bool:
        """No trend iff the CI includes zero; else direction matches and |change| is in ``[lo, hi)``."""
        lo_ci, hi_ci, slope = evidence["lo"], evidence["hi"], evidence["slope"]
        if lo_ci is None or hi_ci is None or slope is None:
            return False
        direction = _direction(lo_ci, hi_ci)
        if claim["direction"] == "none" or direction == "none":
            return bool(claim["direction"] == direction)
        change = abs(slope) * (evidence["span_days"] - 1)
        hi = math.inf if claim["hi"] is None else claim["hi"]
        return bool(claim["direction"] == direction and claim["lo"] <= change < hi)
