"""Number of excursions from the personal baseline within the window (data · single · window).

Evidence: :func:`excursions` over the window plus the 28 days before it, against the trailing
28-day personal baseline (mean and SD of the previous 28 days): runs of consecutive days with
``z ≥ k`` (above) or ``z ≤ −k`` (below); a missing day ends a run. The answer counts the runs
inside the window (``start ≥ window_start``, the index of the window's first day).

Options are the ten counts 0…9 (the adjacent counts are the natural near-misses).

Dead-bands (drop, never approximate): any window day (or the day before the window) whose
z-score lies within ``DEAD_BAND`` of the threshold ``k`` (a run could appear, vanish or split),
a run straddling the window start, fewer than 80% of window days with a defined z-score, and
ten or more runs. The commonest counts (0 and 1) are subsampled (``KEEP_SHARE``) so that the
answers are less concentrated.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from wearbench.cohort import metric as metric_spec
from wearbench.questions._context import UserContext
from wearbench.questions._graph import Graph
from wearbench.questions._helpers import require_coverage
from wearbench.questions._labels import Labels
from wearbench.questions._qtype import CohortPool, Draft, Drop, Option, QuestionType, question

#: (metric, direction) pairs asked about.
SIGNALS = (
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
#: Thresholds in baseline SD units.
KS = (1.0, 1.5, 2.0)
BASELINE_DAYS = 28
#: Half-width of the dead-band around ``k`` (SD units).
DEAD_BAND = 0.05
N_OPTIONS = 10
#: Share of windows kept per count (the commonest counts are subsampled, seeded).
KEEP_SHARE = {0: 0.6, 1: 0.6}


def metric_phrase(metric: str) -> str:
    """``"resting heart rate (bpm)"``: the metric's description and unit."""
    spec = metric_spec(metric)
    return f"{spec.description} ({spec.unit})"


def _runs_text(n: int) -> str:
    return f"{n} excursion{'' if n == 1 else 's'}"


@question()
class ExcursionCount(QuestionType):
    """How many excursions beyond k SD of the personal baseline the window holds."""

    name = "excursion_count"
    version = 1
    labels = Labels("data", "single", "literature", "window")
    min_history = 28 + BASELINE_DAYS
    max_per_user = 2

    def make(self, ctx: UserContext, end: int, rng: np.random.Generator, pool: CohortPool) -> Draft:
        """Count excursion runs in the window for a random metric, direction and threshold."""
        metric, direction = SIGNALS[int(rng.integers(len(SIGNALS)))]
        k = float(rng.choice(KS))
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
        if count >= N_OPTIONS:
            raise Drop("too many excursions for the count options")
        if rng.random() >= KEEP_SHARE.get(count, 1.0):
            raise Drop("common answer not sampled (answer balance)")
        options = [Option(_runs_text(n), {"metric": metric, "count": n}) for n in range(N_OPTIONS)]
        text = self._text(metric, direction, k, ctx.span_dates(end, w))
        correct = options[count]
        distractors = tuple(o for o in options if o is not correct)
        return Draft(text, correct, distractors, g, (metric,), variant=f"{metric}:{direction}:{k}")

    def _gate(self, z: np.ndarray, runs: tuple[Any, ...], k: float, direction: str) -> None:
        """Drop windows whose count is knife-edge or ill-defined."""
        b = BASELINE_DAYS
        zw = z[b - 1 :] if direction == "above" else -z[b - 1 :]
        if np.isfinite(zw[1:]).sum() < 0.8 * self.window_days:
            raise Drop("personal baseline undefined on too many window days")
        if np.any(np.abs(zw[np.isfinite(zw)] - k) < DEAD_BAND):
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
            f"skipped) and z = (value − mean) / SD; an excursion is a run of consecutive days with "
            f"z {sign}{k:g}, and a missing day ends a run. Count the runs inside these dates."
        )

    @staticmethod
    def check(claim: Mapping[str, Any], evidence: Mapping[str, Any]) -> bool:
        """The claimed count equals the number of runs starting at or after the window start."""
        start = evidence["window_start"]
        return bool(sum(1 for r in evidence["runs"] if r["start"] >= start) == claim["count"])
