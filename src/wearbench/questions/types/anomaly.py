"""The most anomalous day of the window against the personal baseline (data · single · window).

Evidence: each window day's robust z-score against its trailing 28-day personal baseline,
``(x − median) / (1.4826 · MAD)`` of the previous 28 days (:func:`robust_zscore` over the
window plus the 28 days before it), and :func:`argmax_pair` over the window days ranked by
``|z|``. The answer is the day with the largest ``|z|``.

Options are ten days of the window: the answer, the runner-up and the next-ranked days, each
with one adjacent day (the "adjacent window" distractors), filled with random adjacent pairs
of other window days (:func:`paired_options`): every option, not only the answer, has a
neighbour among the options, so the layout carries no information.

Dead-bands (drop, never approximate): the top day must itself be an excursion
(``|z| ≥ min_z``) and beat the runner-up by ``margin`` SD units.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from wearbench._labels import Labels
from wearbench.cohort import UserContext
from wearbench.questions._graph import Graph
from wearbench.questions._helpers import choose_metric, metric_phrase, paired_options, require_coverage
from wearbench.questions._qtype import CohortPool, Draft, Drop, Option, QuestionType, question

METRICS = ("resting_hr", "hrv", "steps", "sleep_minutes", "sleep_efficiency", "stress")
#: Trailing baseline window (days).
BASELINE_DAYS = 28
N_OPTIONS = 10
#: Top-ranked days that each bring one adjacent day as a distractor.
ANCHORS = 4


def _label(date: np.datetime64) -> str:
    day = str(date)
    weekday = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
    return f"{weekday[int((date.astype('int64') + 3) % 7)]} {day}"


@question()
@dataclass(frozen=True)
class Anomaly(QuestionType):
    """Which day of the 28-day window deviates most from the personal baseline.

    Attributes:
        min_z: Smallest |robust z| of the top day (it must be an excursion itself).
        margin: Smallest lead of the top day's |z| over the runner-up's (SD units).
    """

    min_z: float = 1.5
    margin: float = 0.5

    name = "anomaly"
    version = 3
    labels = Labels("data", "single", "definition", "window")
    min_history = 28 + BASELINE_DAYS
    max_per_user = 2

    def make(self, ctx: UserContext, end: int, rng: np.random.Generator, pool: CohortPool) -> Draft:
        """Rank the window days by |robust z| for a random metric and ask for the top one."""
        metric = choose_metric(ctx, end, self.window_days, METRICS, 0.8, rng)
        w = self.window_days
        g = Graph(ctx, str(ctx.dates[end]))
        s = g.series(metric, w + BASELINE_DAYS)
        require_coverage(s.value[-w:], 0.8, metric)
        z = g.call("robust_zscore", s, window=BASELINE_DAYS, min_count=BASELINE_DAYS // 2)
        dates = ctx.span_dates(end, w)
        scores = {str(dates[i]): z[BASELINE_DAYS + i] for i in range(w)}
        win = g.call("argmax_pair", scores, margin=self.margin, by_abs=True)
        for key in ("winner", "value", "runner_up", "gap", "decisive"):
            g.output(key, win[key])
        zw = np.abs(np.asarray(z.value[-w:], dtype=float))
        if np.isfinite(zw).sum() < 0.8 * w:
            raise Drop("personal baseline undefined on too many window days")
        if abs(float(win["value"].value)) < self.min_z:
            raise Drop("top day is not an excursion")
        if not win["decisive"].value:
            raise Drop("top day within the dead-band of the runner-up")
        ranked = sorted(np.flatnonzero(np.isfinite(zw)).tolist(), key=lambda i: (-zw[i], i))
        days = paired_options([int(i) for i in ranked], rng, anchors=ANCHORS, n=N_OPTIONS)
        options = [Option(_label(dates[i]), {"metric": metric, "date": str(dates[i])}) for i in days]
        return Draft(self._text(metric, dates), options[0], tuple(options[1:]), g, (metric,), variant=metric)

    def _text(self, metric: str, dates: np.ndarray) -> str:
        name = metric_phrase(metric)
        return (
            f"Between {dates[0]} and {dates[-1]} ({self.window_days} days), on which day did this "
            f"user's {name} deviate most from their personal baseline? For each day, the "
            f"baseline is the median of the previous {BASELINE_DAYS} days and its spread is "
            "1.4826 × their median absolute deviation; the deviation is the robust z-score "
            "(value − median) / spread, and the most deviating day has the largest |z| in either "
            "direction."
        )

    @staticmethod
    def check(claim: Mapping[str, Any], evidence: Mapping[str, Any]) -> bool:
        """The claimed date is the decisive winner of the |z| ranking."""
        return bool(evidence["decisive"] and claim["date"] == evidence["winner"])
