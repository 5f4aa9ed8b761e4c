"""Number of excursions from the personal baseline within the span (data · single · window).

Evidence: :func:`excursions` over the ``SPAN_DAYS`` span plus the 28 days before it, against the
trailing 28-day personal baseline (mean and SD of the previous 28 days): runs of consecutive
days with ``z ≥ k`` (above) or ``z ≤ −k`` (below); a missing day ends a run. The answer counts
the runs inside the span (``start ≥ window_start``, the index of the span's first day).

Options are the counts 0…``N_OPTIONS − 2`` and "``N_OPTIONS − 1`` or more" (the adjacent counts
are the natural near-misses). The span is eight weeks, so that counts spread over the whole
ladder (over four weeks they pile up at 0–2 and the top of any ten-count ladder is never the
answer), and the commonest counts are subsampled *per threshold* (:attr:`ExcursionCount.keep_share`) so that,
for each ``k``, the counts it produces are about equally often the answer: neither the
answer's rank among the options nor the textbook expectation of runs beyond ``k`` SD gives it.

Dead-bands (drop, never approximate): any span day (or the day before the span) whose z-score
lies within ``dead_band`` of the threshold ``k`` (a run could appear, vanish or split), a run
straddling the span start, and fewer than 80% of span days with a defined z-score.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from wearbench._labels import Labels
from wearbench.cohort import UserContext
from wearbench.questions._graph import Graph
from wearbench.questions._helpers import metric_phrase, require_coverage, thin
from wearbench.questions._qtype import CohortPool, Draft, Drop, Option, QuestionType, question, table

BASELINE_DAYS = 28
N_OPTIONS = 10
#: Days counted (the question's span); end dates step by :data:`STEP_DAYS`.
SPAN_DAYS = 56
STEP_DAYS = 28


def count_options(metric: str) -> list[Option]:
    """The counts ``0 … N_OPTIONS − 2`` and the open top bin, as ``[lo, hi)`` claims."""
    top = N_OPTIONS - 1
    options = [Option(f"Excursions: {n}", {"metric": metric, "lo": n, "hi": n + 1}) for n in range(top)]
    return [*options, Option(f"Excursions: {top} or more", {"metric": metric, "lo": top, "hi": None})]


@question()
@dataclass(frozen=True)
class ExcursionCount(QuestionType):
    """How many excursions beyond k SD of the personal baseline the window holds.

    Attributes:
        signals: (metric, direction) pairs asked about.
        ks: Thresholds in baseline SD units and how often each is asked (the lowest, which
            gives the highest counts, most often, so that the top of the count ladder is the
            answer often enough).
        dead_band: Half-width of the dead-band around ``k`` (SD units).
        keep_share: Share of windows kept per threshold ``k`` and count (unlisted: 1; seeded
            draws), set from the default synthetic cohort's raw counts per ``k`` (about 12
            windows per count kept) so that, *for each threshold*, the counts it can produce are
            about equally often the answer: a model that knows the expected number of runs
            beyond ``k`` SD (or any other single guess per ``k``) then gains little over picking
            any count in that threshold's range.
    """

    signals: tuple[tuple[str, str], ...] = (
        ("resting_hr", "above"),
        ("stress", "above"),
        ("hrv", "below"),
        ("hrv", "above"),
        ("steps", "below"),
        ("steps", "above"),
        ("sleep_minutes", "below"),
        ("sleep_efficiency", "below"),
        ("resting_hr", "below"),
    )
    ks: Mapping[float, float] = table({1.0: 0.5, 1.5: 0.25, 2.0: 0.25})
    dead_band: float = 0.05
    keep_share: Mapping[float, Mapping[int, float]] = table(
        {
            1.0: {3: 0.67, 4: 0.22, 5: 0.18, 6: 0.18, 7: 0.21, 8: 0.26, 9: 0.4},
            1.5: {1: 0.5, 2: 0.19, 3: 0.15, 4: 0.19, 5: 0.43, 6: 0.92},
            2.0: {0: 0.1, 1: 0.09, 2: 0.11, 3: 0.2, 4: 0.75},
        }
    )

    name = "excursion_count"
    version = 3
    labels = Labels("data", "single", "definition", "window")
    window_days = SPAN_DAYS
    min_history = SPAN_DAYS + BASELINE_DAYS
    end_step = STEP_DAYS
    max_per_user = 2

    def make(self, ctx: UserContext, end: int, rng: np.random.Generator, pool: CohortPool) -> Draft:
        """Count excursion runs in the window for a random metric, direction and threshold."""
        metric, direction = self.signals[int(rng.integers(len(self.signals)))]
        k = float(rng.choice(list(self.ks), p=list(self.ks.values())))
        w, b = self.window_days, BASELINE_DAYS
        g = Graph(ctx, str(ctx.dates[end]))
        s = g.series(metric, w + b)
        require_coverage(s.value[-w:], 0.8, metric)
        args = {"k": k, "direction": direction, "window": b, "min_count": b // 2}
        runs = g.call("excursions", s, **args)
        g.output("runs", runs)
        g.output("window_start", g.call("count_days", g.series(metric, b, offset=w)))
        z = g.call("zscore", s, window=b, min_count=b // 2, method="mean_sd")
        self._gate(np.asarray(z.value, dtype=float), runs.value, k, direction)
        count = sum(1 for r in runs.value if r.start >= b)
        thin(min(count, N_OPTIONS - 1), self.keep_share.get(k, {}), rng)
        options = count_options(metric)
        text = self._text(metric, direction, k, ctx.span_dates(end, w))
        correct = options[min(count, N_OPTIONS - 1)]
        distractors = tuple(o for o in options if o is not correct)
        return Draft(text, correct, distractors, g, (metric,), variant=f"{metric}:{direction}:{k}")

    def _gate(self, z: np.ndarray, runs: tuple[Any, ...], k: float, direction: str) -> None:
        """Drop windows whose count is knife-edge or ill-defined."""
        b = BASELINE_DAYS
        zw = z[b - 1 :] if direction == "above" else -z[b - 1 :]
        if np.isfinite(zw[1:]).sum() < 0.8 * self.window_days:
            raise Drop("personal baseline undefined on too many window days")
        if np.any(np.abs(zw[np.isfinite(zw)] - k) < self.dead_band):
            raise Drop("a day within the dead-band of the threshold")
        if any(r.start < b <= r.end for r in runs):
            raise Drop("an excursion straddles the window start")

    def _text(self, metric: str, direction: str, k: float, dates: np.ndarray) -> str:
        name = metric_phrase(metric)
        sign = "≥ +" if direction == "above" else "≤ −"
        return (
            f"Between {dates[0]} and {dates[-1]} ({self.window_days} days), how many excursions "
            f"{direction} the personal baseline did this user's {name} have? For each day the "
            f"baseline is the mean and SD of the previous {BASELINE_DAYS} days (missing days "
            f"skipped; defined only when at least {BASELINE_DAYS // 2} of them have data) and "
            f"z = (value − mean) / SD; an excursion is a run of consecutive days with "
            f"z {sign}{k:g}, and a missing day or a day without a defined baseline ends a run. "
            "Count the runs inside these dates."
        )

    @staticmethod
    def check(claim: Mapping[str, Any], evidence: Mapping[str, Any]) -> bool:
        """The number of runs starting at or after the span start lies in ``[lo, hi)``."""
        start = evidence["window_start"]
        count = sum(1 for r in evidence["runs"] if r["start"] >= start)
        return bool(claim["lo"] <= count and (claim["hi"] is None or count < claim["hi"]))
