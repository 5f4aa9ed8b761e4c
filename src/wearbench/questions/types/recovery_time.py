"""Recovery time after the most recent excursion (data · single · history).

Evidence: :func:`excursions` over the ``LOOKBACK_DAYS`` days ending at the end date (runs of
consecutive days with z ≥ ``K`` above, or ≤ −``K`` below, the trailing 28-day mean and SD);
the most recent run's first day is the onset, and :func:`recovery_time` gives the days from
the onset until the value is first back within ``K_RECOVER`` SD of the pre-episode baseline
(mean and SD of the 28 days before the onset, frozen there).

Options are 1…9 days and "10 days or more"; the adjacent day counts are the near-misses.

Dead-bands (drop, never approximate): a day from the onset's eve to the end date whose z lies
within ``DEAD_BAND`` of ``K`` (the onset or which run is the most recent could change), a day
up to the recovery whose distance from the baseline lies within ``DEAD_BAND`` of ``K_RECOVER``
SD, no excursion with a full baseline, and no recovery within ``MAX_DAYS``. One-day recoveries
(the commonest answer) are subsampled (``KEEP_SHARE``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from wearbench.cohort import metric as metric_spec
from wearbench.primitives import rolling_baseline, zscore
from wearbench.questions._context import UserContext
from wearbench.questions._graph import Graph
from wearbench.questions._helpers import require_coverage
from wearbench.questions._labels import Labels
from wearbench.questions._qtype import CohortPool, Draft, Drop, Option, QuestionType, question

#: (metric, direction) pairs: the direction of an adverse excursion.
SIGNALS = (
    ("resting_hr", "above"),
    ("stress", "above"),
    ("hrv", "below"),
    ("sleep_minutes", "below"),
    ("sleep_efficiency", "below"),
    ("steps", "below"),
)
LOOKBACK_DAYS = 120
BASELINE_DAYS = 28
K = 1.5
K_RECOVER = 0.5
MAX_DAYS = 28
#: Half-width of the dead-bands around ``K`` and ``K_RECOVER`` (SD units).
DEAD_BAND = 0.05
#: Day counts offered one by one (then "N_SINGLE + 1 days or more").
N_SINGLE = 9
#: Share of episodes kept per recovery time (the commonest, 1 day, is subsampled, seeded).
KEEP_SHARE = {1: 0.5}


def _bins() -> list[tuple[int, int | None, str]]:
    bins: list[tuple[int, int | None, str]] = [
        (d, d + 1, f"{d} day{'' if d == 1 else 's'}") for d in range(1, N_SINGLE + 1)
    ]
    return [*bins, (N_SINGLE + 1, None, f"{N_SINGLE + 1} days or more")]


@question()
class RecoveryTime(QuestionType):
    """Days until a metric returned to baseline after its most recent excursion."""

    name = "recovery_time"
    version = 1
    labels = Labels("data", "single", "literature", "history")
    min_history = LOOKBACK_DAYS
    max_per_user = 2

    def make(self, ctx: UserContext, end: int, rng: np.random.Generator, pool: CohortPool) -> Draft:
        """Find the most recent excursion of a random metric and ask how long recovery took."""
        metric, direction = SIGNALS[int(rng.integers(len(SIGNALS)))]
        b = BASELINE_DAYS
        g = Graph(ctx, str(ctx.dates[end]))
        s = g.series(metric, LOOKBACK_DAYS)
        require_coverage(s.value, 0.7, metric)
        runs = g.call("excursions", s, k=K, direction=direction, window=b, min_count=b // 2)
        if not runs.value or runs.value[-1].start < b:
            raise Drop("no excursion with a full baseline in the lookback")
        last = len(runs.value) - 1
        onset = int(runs.value[last].start)
        g.output("onset", runs[last]["start"])
        days = g.call(
            "recovery_time",
            s,
            onset=onset,
            k_recover=K_RECOVER,
            window=b,
            min_count=b // 2,
            max_days=MAX_DAYS,
        )
        g.output("days", days)
        if not np.isfinite(days.value):
            raise Drop("not recovered within the horizon")
        self._gate(s.value, onset, int(days.value), direction)
        if rng.random() >= KEEP_SHARE.get(int(days.value), 1.0):
            raise Drop("common answer not sampled (answer balance)")
        options = [Option(text, {"metric": metric, "lo": lo, "hi": hi}) for lo, hi, text in _bins()]
        correct = next(o for o in options if self.check(o.claim, g.evidence()))
        text = self._text(metric, direction, ctx.span_dates(end, LOOKBACK_DAYS))
        distractors = tuple(o for o in options if o is not correct)
        return Draft(text, correct, distractors, g, (metric,), variant=f"{metric}:{direction}")

    @staticmethod
    def _gate(values: np.ndarray, onset: int, days: int, direction: str) -> None:
        """Drop when the onset, the run identity or the recovery day is knife-edge."""
        b = BASELINE_DAYS
        z = zscore(values, window=b, min_count=b // 2)
        signed = (z if direction == "above" else -z)[onset - 1 :]
        if np.any(np.abs(signed[np.isfinite(signed)] - K) < DEAD_BAND):
            raise Drop("a day within the dead-band of the excursion threshold")
        base = rolling_baseline(values, window=b, min_count=b // 2)
        mean, sd = float(base.center[onset]), float(base.scale[onset])
        dist = np.abs(values[onset + 1 : onset + days + 1] - mean) / sd
        if np.any(np.abs(dist[np.isfinite(dist)] - K_RECOVER) < DEAD_BAND):
            raise Drop("a day within the dead-band of the recovery band")

    @staticmethod
    def _text(metric: str, direction: str, dates: np.ndarray) -> str:
        name, unit = metric_spec(metric).description, metric_spec(metric).unit
        rel = f"≥ {K:g} SD above" if direction == "above" else f"≤ {K:g} SD below"
        return (
            f"Between {dates[0]} and {dates[-1]}, consider the most recent excursion of this "
            f"user's {name} ({unit}): a run of consecutive days with {name} {rel} the mean of the "
            f"previous {BASELINE_DAYS} days (mean and SD of those days, missing days skipped; a "
            "missing day ends a run). Counting from the first day of that run, after how many "
            f"days was {name} first back within {K_RECOVER:g} SD of its pre-episode baseline "
            f"(mean and SD of the {BASELINE_DAYS} days before the run began)? Missing days never "
            "count as recovered."
        )

    @staticmethod
    def check(claim: Mapping[str, Any], evidence: Mapping[str, Any]) -> bool:
        """The recovery time (days) lies in the claimed ``[lo, hi)`` (``hi`` None = open)."""
        days = evidence["days"]
        if days is None:
            return False
        return bool(claim["lo"] <= days and (claim["hi"] is None or days < claim["hi"]))
