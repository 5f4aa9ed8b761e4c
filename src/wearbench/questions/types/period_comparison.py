"""Which calendar month of the long history had the highest or lowest mean (data · single · history).

Evidence: :func:`period_aggregate` of the metric over the shown history (up to 500 days) into
calendar months, each month's mean over its present days and defined only with at least
``MIN_DAYS`` present days; :func:`nan_argext` picks the highest (or lowest) defined month.

Options are ten defined months: the answer, the runner-up and the next-ranked months, each
with one adjacent month (the "adjacent period" distractors), filled with random adjacent pairs
of other months (:func:`paired_options`): every option, not only the answer, has a neighbour
among the options, so the layout carries no information.

Dead-bands (drop, never approximate): the winner must beat the runner-up by ``margin`` daily
SDs of the metric over the history (no answer hinges on a near-tie), and at least ten months
must be defined.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from wearbench._labels import Labels
from wearbench.cohort import UserContext
from wearbench.questions._graph import Graph
from wearbench.questions._helpers import metric_phrase, paired_options
from wearbench.questions._qtype import HISTORY_DAYS, CohortPool, Draft, Drop, Option, QuestionType, question

METRICS = ("resting_hr", "hrv", "steps", "sleep_minutes", "sleep_efficiency", "stress", "active_kcal")
#: Fewest present days for a month to count.
MIN_DAYS = 20
N_OPTIONS = 10
#: Top-ranked periods that each bring one adjacent period as a distractor.
ANCHORS = 4
#: Shortest history (days) the question is asked on.
MIN_HISTORY = 300
_MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)


def month_text(label: str) -> str:
    """``"2024-03"`` → ``"March 2024"``."""
    year, month = label.split("-")
    return f"{_MONTHS[int(month) - 1]} {year}"


@question()
@dataclass(frozen=True)
class PeriodComparison(QuestionType):
    """Which calendar month of the history had the highest (or lowest) mean of a metric.

    Attributes:
        margin: Smallest lead of the winner over the runner-up, in daily SDs of the metric.
    """

    margin: float = 0.15

    name = "period_comparison"
    version = 2
    labels = Labels("data", "single", "definition", "history")
    min_history = MIN_HISTORY
    max_per_user = 2

    def make(self, ctx: UserContext, end: int, rng: np.random.Generator, pool: CohortPool) -> Draft:
        """Rank the months of the history for a random metric and ask for the extreme one."""
        metric = str(rng.choice(METRICS))
        which = "max" if rng.random() < 0.5 else "min"
        days = min(HISTORY_DAYS, end + 1)
        g = Graph(ctx, str(ctx.dates[end]))
        s = g.series(metric, days)
        table = g.call("period_aggregate", s, g.dates(days), period="month", stat="mean", min_count=MIN_DAYS)
        g.output("labels", table["labels"])
        g.output("means", table["values"])
        g.output("winner", g.call("nan_argext", table["values"], which=which))
        sd = float(g.call("nan_stat", s, stat="sd", min_count=MIN_DAYS).value)
        means = np.asarray(table.value.values, dtype=float)
        defined = np.flatnonzero(np.isfinite(means)).tolist()
        if len(defined) < N_OPTIONS:
            raise Drop("too few months with enough days")
        ranked = sorted(defined, key=lambda i: (-means[i] if which == "max" else means[i], i))
        gap = abs(means[ranked[0]] - means[ranked[1]])
        if not (sd > 0 and gap >= self.margin * sd):
            raise Drop("winner within the dead-band of the runner-up")
        labels = table.value.labels
        picks = paired_options(ranked, rng, anchors=ANCHORS, n=N_OPTIONS)
        options = [Option(month_text(labels[i]), {"metric": metric, "period": labels[i]}) for i in picks]
        text = self._text(metric, which, str(ctx.dates[end - days + 1]), g.end_date)
        gates = {"gap": float(gap), "daily_sd": sd, "gap_sd": float(gap / sd)}
        return Draft(text, options[0], tuple(options[1:]), g, (metric,), gates=gates, variant=metric)

    @staticmethod
    def _text(metric: str, which: str, start: str, end_date: str) -> str:
        name = metric_phrase(metric)
        word = "highest" if which == "max" else "lowest"
        return (
            f"From {start} to {end_date}, which calendar month had the {word} average of this "
            f"user's {name}? Average each month over its days with data (missing days skipped) "
            f"and consider only months with at least {MIN_DAYS} days of data."
        )

    @staticmethod
    def check(claim: Mapping[str, Any], evidence: Mapping[str, Any]) -> bool:
        """The claimed month is the one the extreme-value index points to."""
        winner = evidence["winner"]
        return bool(winner is not None and evidence["labels"][winner] == claim["period"])
