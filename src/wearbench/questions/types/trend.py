"""Trend direction and size of one metric over the 28-day window (data · single · window).

Evidence: the Theil–Sen slope of the metric over the window, with its 95% CI. The trend is
*increasing* or *decreasing* when the CI excludes zero and *no clear trend* when it includes
zero. The size of a directional trend is the change over the window,
``slope × (window_days − 1)``, binned on a ladder of equal-width bins.

Options: "no clear trend" plus directional claims (2 directions × 5 size bins ``[0, w)``,
``[w, 2w)``, ``[2w, 3w)``, ``[3w, 4w)``, ``[4w, ∞)``), one directional distractor left out so
that there are exactly ten mutually exclusive claims. The bin width ``w`` is placed around the
answer: for a directional trend the answer's bin is drawn uniformly from the five and ``w`` is
the change divided by a random point of that bin (rounded to two significant figures), so the
answer's rank among the shown sizes carries no information (the builder's text-only audit
checks this). The left-out distractor is from the answer's direction or the other one with
equal odds, so neither direction is over-represented. Without a trend, ``w`` is the cohort's
median ``|change|`` over a random point of the five bins (same construction, cohort scale).

Dead-bands (drop, never approximate): a CI bound within ``ci_dead_band`` of the CI width from
zero (trend vs no trend would be knife-edge), and, for a directional trend, a change within
``dead_band`` of a bin width from a bin edge (only after rounding ``w``). Windows without a
clear trend are the majority, so only a seeded share ``no_trend_share`` of them is kept, which
makes "no clear trend" about as often correct as any other option.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from wearbench._labels import Labels
from wearbench.cohort import UserContext
from wearbench.cohort import metric as metric_spec
from wearbench.questions._graph import Graph
from wearbench.questions._helpers import choose_metric, keep_share, metric_phrase, require_coverage
from wearbench.questions._qtype import CohortPool, Draft, Drop, Option, QuestionType, question

METRICS = ("resting_hr", "hrv", "steps", "sleep_minutes", "stress", "sleep_efficiency")
#: Size bins per direction: ``[0, w)``, ``[w, 2w)``, … and the open ``[(N_BINS − 1)·w, ∞)``.
N_BINS = 5
#: Where in its bin the answer is placed before rounding (share of a bin width).
BIN_POINT = (0.2, 0.8)
#: Bin width as a share of the change the ladder is built around.
BIN_WIDTH = (0.1, 0.24)
#: Cohort ``|change|`` quantile above which "no clear trend" items draw their scale.
SCALE_QUANTILE = 0.75
NO_TREND = "no clear trend"


def ladder_edges(change: float, rank: int, point: float, width: float) -> list[float]:
    """Size-bin edges ``[0, e, e + w, e + 2w, e + 3w, inf]`` with ``change`` in bin ``rank``.

    ``w = width × change`` (two significant figures) and ``e`` is placed so that, before
    rounding, the change sits ``point`` of a bin width into bin ``rank`` (for the open bottom
    bin, ``point`` of a width below ``e``; for the open top bin, above ``e + 3w``).

    Args:
        change: The |change| the ladder is built around (> 0).
        rank: The bin the change falls in, ``0 … N_BINS − 1``.
        point: Where in that bin, as a share of the bin width.
        width: Bin width as a share of ``change`` (below ``1 / (N_BINS − 1)`` so ``e > 0``).

    Returns:
        :data:`N_BINS` + 1 edges, exact at the shown precision.

    Raises:
        Drop: If the change is not positive or the rounded ladder does not start above zero.
    """
    if not change > 0:
        raise Drop("change undefined")
    w = float(f"{width * change:.2g}")
    places = _decimals(w)
    first = round(change - (rank - 1 + point) * w, places)
    if first <= 0:
        raise Drop("magnitude ladder does not start above zero")
    return [0.0, *(round(first + i * w, places) for i in range(N_BINS - 1)), math.inf]


def cohort_scale(pool_changes: np.ndarray, rng: np.random.Generator) -> float:
    """A random cohort ``|change|`` above :data:`SCALE_QUANTILE` (the size of a typical clear trend).

    Raises:
        Drop: If the pool is too small.
    """
    mags = np.abs(pool_changes[np.isfinite(pool_changes)])
    if mags.size < 50:
        raise Drop("cohort pool too small for magnitude bins")
    top = np.sort(mags[mags >= np.quantile(mags, SCALE_QUANTILE)])
    return float(top[int(rng.integers(top.size))])


def ci_in_dead_band(lo_ci: float, hi_ci: float, band: float) -> bool:
    """Whether a CI bound lies within ``band`` (a share of the CI width) from zero."""
    return min(abs(lo_ci), abs(hi_ci)) <= band * (hi_ci - lo_ci)


def _direction(lo_ci: float, hi_ci: float) -> str:
    return "increasing" if lo_ci > 0 else "decreasing" if hi_ci < 0 else "none"


def _decimals(w: float) -> int:
    """Decimals that show every multiple of a two-significant-figure ``w`` exactly."""
    return max(0, 1 - math.floor(math.log10(w)))


@question()
@dataclass(frozen=True)
class Trend(QuestionType):
    """Direction and size of a 28-day trend, or no clear trend.

    Attributes:
        no_trend_share: Share of "no clear trend" windows kept (the rest are dropped, seeded).
        dead_band: Dead-band around a size-bin edge, as a share of the bin width.
        ci_dead_band: Dead-band around zero for the CI bounds, as a share of the CI width.
        max_tries: Draws of the bin point before a change near an edge is dropped.
    """

    no_trend_share: float = 0.016
    dead_band: float = 0.1
    ci_dead_band: float = 0.1
    max_tries: int = 8

    name = "trend"
    version = 5
    labels = Labels("data", "single", "definition", "window")
    max_per_user = 2

    def make(self, ctx: UserContext, end: int, rng: np.random.Generator, pool: CohortPool) -> Draft:
        """Build the trend question for one metric chosen at random among those with data."""
        metric = choose_metric(ctx, end, self.window_days, METRICS, 0.7, rng)
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
        if ci_in_dead_band(lo, hi, self.ci_dead_band):
            raise Drop("CI bound within the dead-band of zero")
        direction = _direction(lo, hi)
        if direction == "none":
            keep_share(self.no_trend_share, rng)
        rank = int(rng.integers(N_BINS))
        if direction == "none":
            scale = cohort_scale(pool.window_slopes.get(metric, np.array([])) * (self.window_days - 1), rng)
            edges = ladder_edges(scale, rank, float(rng.uniform(*BIN_POINT)), float(rng.uniform(*BIN_WIDTH)))
        else:
            change = abs(float(fit["slope"].value)) * (self.window_days - 1)
            edges = self._fit_edges(change, rank, rng)
        correct, distractors = self._options(metric, edges, g.evidence(), rng)
        return Draft(
            self._text(metric, g.end_date, ctx, end), correct, distractors, g, (metric,), variant=metric
        )

    def _fit_edges(self, change: float, rank: int, rng: np.random.Generator) -> list[float]:
        """Ladder edges with ``change`` in bin ``rank`` and clear of every edge's dead-band.

        Rounding ``w`` can push the change towards an edge (more so in the upper bins); the
        point in the bin is redrawn a few times rather than dropping, so that every rank keeps
        the same chance of being the answer.

        Raises:
            Drop: If no draw clears the dead-band.
        """
        for _ in range(self.max_tries):
            edges = ladder_edges(change, rank, float(rng.uniform(*BIN_POINT)), float(rng.uniform(*BIN_WIDTH)))
            w = edges[2] - edges[1]
            near = any(abs(change - e) <= self.dead_band * w for e in edges[1:-1])
            if not near and edges[rank] <= change < edges[rank + 1]:
                return edges
        raise Drop("change within the dead-band of a magnitude edge")

    def _options(
        self, metric: str, edges: list[float], evidence: Mapping[str, Any], rng: np.random.Generator
    ) -> tuple[Option, tuple[Option, ...]]:
        """The correct option and nine distractors (one directional distractor left out)."""
        places = _decimals(edges[2] - edges[1])
        sides = {
            d: [self._option(metric, d, edges[i], edges[i + 1], places) for i in range(N_BINS)]
            for d in ("increasing", "decreasing")
        }
        none = Option(
            f"{NO_TREND.capitalize()} (the confidence interval of the slope includes zero)",
            {"metric": metric, "direction": "none"},
        )
        options = [none, *sides["increasing"], *sides["decreasing"]]
        correct = next(o for o in options if self.check(o.claim, evidence))
        side = str(rng.choice(("increasing", "decreasing")))
        pool = [o for o in sides[side] if o is not correct]
        left_out = pool[int(rng.integers(len(pool)))]
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
            f"change across the window, in {metric_spec(metric).unit}."
        )

    @staticmethod
    def _option(metric: str, direction: str, lo: float, hi: float, places: int) -> Option:
        if math.isinf(hi):
            size = f"at least {lo:,.{places}f}"
        elif lo == 0:
            size = f"less than {hi:,.{places}f}"
        else:
            size = f"{lo:,.{places}f} to {hi:,.{places}f}"
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
