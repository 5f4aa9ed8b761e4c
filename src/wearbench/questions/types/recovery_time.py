"""Recovery time after the most recent excursion (data · single · history).

Evidence: :func:`excursions` over the ``LOOKBACK_DAYS`` days ending at the end date (runs of
consecutive days with z ≥ ``k`` above, or ≤ −``k`` below, the trailing 28-day mean and SD);
the most recent run's first day is the onset, and :func:`recovery_time` gives the days from
the onset until the value is first back within ``k_recover`` SD of the pre-episode baseline
(mean and SD of the 28 days before the onset, frozen there).

The question asks for the recovery *date* (onset + recovery time). Options are ten consecutive
calendar days with the answer at a uniformly random position among them (the adjacent days are
the natural near-misses). A text-only model does not know the onset, so neither the skew of
recovery times towards short ones nor the answer's rank among the shown days gives the answer
away. A draw whose days would run past the end date is dropped (rejection, so that the
answer's position stays uniform given where the shown days lie), and recent recoveries are
subsampled (:meth:`RecoveryTime.gap_keep_share`) so that, within the shown days, later ones are hardly
likelier to be the answer.

Dead-bands (drop, never approximate): a day from the onset's eve to the end date whose z lies
within ``dead_band`` of ``k`` (the onset or which run is the most recent could change), a day
up to the recovery whose distance from the baseline lies within ``dead_band`` of ``k_recover``
SD, no excursion with a full baseline, and no recovery within ``MAX_DAYS``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from wearbench._labels import Labels
from wearbench.cohort import UserContext
from wearbench.cohort import metric as metric_spec
from wearbench.primitives import rolling_baseline, zscore
from wearbench.questions._graph import Graph
from wearbench.questions._helpers import keep_share, require_coverage
from wearbench.questions._qtype import CohortPool, Draft, Drop, Option, QuestionType, question

LOOKBACK_DAYS = 120
BASELINE_DAYS = 28
MAX_DAYS = 28
#: Consecutive calendar days offered.
N_OPTIONS = 10


@question()
@dataclass(frozen=True)
class RecoveryTime(QuestionType):
    """The date a metric was back at baseline after its most recent excursion (recovery time).

    Attributes:
        signals: (metric, direction) pairs: the direction of an adverse excursion.
        gap_full: Recoveries close to the end date are the commonest (the episode is the most
            recent one), so a recovery ``gap`` days before the end date is kept with
            ``exp((gap − gap_full) / gap_scale)`` (1 from ``gap_full`` on): later shown days are
            then hardly likelier than earlier ones.
        gap_scale: Days over which that share falls by a factor e.
        k: Excursion threshold: |z| against the trailing 28-day mean and SD (stated in the stem).
        k_recover: Recovered when back within this many SD of the pre-episode baseline (stated
            in the stem).
        dead_band: Half-width of the dead-bands around ``k`` and ``k_recover`` (SD units).
    """

    signals: tuple[tuple[str, str], ...] = (
        ("resting_hr", "above"),
        ("stress", "above"),
        ("hrv", "below"),
        ("sleep_minutes", "below"),
        ("sleep_efficiency", "below"),
        ("steps", "below"),
    )
    gap_full: int = 40
    gap_scale: float = 30.0
    k: float = 1.5
    k_recover: float = 0.5
    dead_band: float = 0.05

    name = "recovery_time"
    version = 3
    labels = Labels("data", "single", "definition", "history")
    min_history = LOOKBACK_DAYS
    max_per_user = 2

    def gap_keep_share(self, gap: int) -> float:
        """Share of recoveries ``gap`` days before the end date that are kept (seeded draw)."""
        return float(min(1.0, np.exp((gap - self.gap_full) / self.gap_scale)))

    def make(self, ctx: UserContext, end: int, rng: np.random.Generator, pool: CohortPool) -> Draft:
        """Find the most recent excursion of a random metric and ask how long recovery took."""
        metric, direction = self.signals[int(rng.integers(len(self.signals)))]
        b = BASELINE_DAYS
        g = Graph(ctx, str(ctx.dates[end]))
        s = g.series(metric, LOOKBACK_DAYS)
        require_coverage(s.value, 0.7, metric)
        runs = g.call("excursions", s, k=self.k, direction=direction, window=b, min_count=b // 2)
        if not runs.value or runs.value[-1].start < b:
            raise Drop("no excursion with a full baseline in the lookback")
        last = len(runs.value) - 1
        onset = int(runs.value[last].start)
        g.output("onset", runs[last]["start"])
        days = g.call(
            "recovery_time",
            s,
            onset=onset,
            k_recover=self.k_recover,
            window=b,
            min_count=b // 2,
            max_days=MAX_DAYS,
        )
        g.output("days", days)
        if not np.isfinite(days.value):
            raise Drop("not recovered within the horizon")
        self._gate(s.value, onset, int(days.value), direction)
        recovered = onset + int(days.value)
        keep_share(self.gap_keep_share(LOOKBACK_DAYS - 1 - recovered), rng)
        first = recovered - int(rng.integers(N_OPTIONS))
        if first + N_OPTIONS > LOOKBACK_DAYS:
            raise Drop("date options would run past the end date")
        dates = g.dates(LOOKBACK_DAYS)
        g.output("dates", dates)
        shown = [str(dates.value[i]) for i in range(first, first + N_OPTIONS)]
        options = [Option(d, {"metric": metric, "date": d}) for d in shown]
        correct = options[recovered - first]
        text = self._text(metric, direction, ctx.span_dates(end, LOOKBACK_DAYS))
        distractors = tuple(o for o in options if o is not correct)
        return Draft(text, correct, distractors, g, (metric,), variant=f"{metric}:{direction}")

    def _gate(self, values: np.ndarray, onset: int, days: int, direction: str) -> None:
        """Drop when the onset, the run identity or the recovery day is knife-edge."""
        b = BASELINE_DAYS
        z = zscore(values, window=b, min_count=b // 2)
        signed = (z if direction == "above" else -z)[onset - 1 :]
        if np.any(np.abs(signed[np.isfinite(signed)] - self.k) < self.dead_band):
            raise Drop("a day within the dead-band of the excursion threshold")
        base = rolling_baseline(values, window=b, min_count=b // 2)
        mean, sd = float(base.center[onset]), float(base.scale[onset])
        dist = np.abs(values[onset + 1 : onset + days + 1] - mean) / sd
        if np.any(np.abs(dist[np.isfinite(dist)] - self.k_recover) < self.dead_band):
            raise Drop("a day within the dead-band of the recovery band")

    def _text(self, metric: str, direction: str, dates: np.ndarray) -> str:
        name, unit = metric_spec(metric).description, metric_spec(metric).unit
        rel = f"≥ {self.k:g} SD above" if direction == "above" else f"≤ {self.k:g} SD below"
        return (
            f"Between {dates[0]} and {dates[-1]}, consider the most recent excursion of this "
            f"user's {name} ({unit}): a run of consecutive days with {name} {rel} the mean of the "
            f"previous {BASELINE_DAYS} days (mean and SD of those days, missing days skipped, "
            f"defined only when at least {BASELINE_DAYS // 2} of them have data; a missing day or "
            "a day without a defined baseline ends a run). On which date, after the first day of "
            "that run, was "
            f"{name} first back within {self.k_recover:g} SD of its pre-episode baseline (mean and SD "
            f"of the {BASELINE_DAYS} days before the run began)? Missing days never count as "
            "recovered."
        )

    @staticmethod
    def check(claim: Mapping[str, Any], evidence: Mapping[str, Any]) -> bool:
        """The claimed date is the onset's date plus the recovery time (days)."""
        days, onset, dates = evidence["days"], evidence["onset"], evidence["dates"]
        if days is None or onset is None:
            return False
        day = int(onset) + int(days)
        return bool(0 <= day < len(dates) and dates[day] == claim["date"])
