"""Sleep phenotype of a 28-day window (health · cross · window).

Literature cards ``short_sleep_adverse_outcomes`` and ``sleep_irregularity_adverse_outcomes``.
Three axes, all cohort-relative (no study cut-off is used):

- *duration*: the window's mean sleep minutes as a percentile of the reference percentiles of
  the user's age band and sex (``percentile_rank``): short below P25, long above P75, else
  adequate (the reference is resolved per item and never includes the user — an independent
  population, ≥ 30 other cohort users up to the end date, or a cited external table — and is
  stored in the item's graph and shown in the prompt; without one the window is dropped);
- *continuity*: the window's mean sleep efficiency as a reference percentile: fragmented below
  P25, else consolidated;
- *timing*: the window's mean bedtime regularity (SD of sleep onset, minutes) against the cohort
  median of the same quantity (carried in every claim): irregular above it, else regular.

The 3 × 2 × 2 = 12 phenotypes give the correct one and nine distractors drawn at random from
the other eleven. Windows with too few nights, no reference percentiles, or a value inside a
dead-band (``pct_band`` percentile points of a percentile edge, default 4; ``reg_band`` of the
regularity median, default 10 %) are dropped. Sleep stages are not used: the reference
percentiles cover duration and efficiency only, so a stage axis would need a threshold the
cohort does not provide.

Options read "Sleep of <reduced|typical|lengthy> length, <poor|good> efficiency and
<erratic|regular> timing": the words of one axis have equal lengths, so every option has the
same length, and the stem defines every word. The commonest phenotypes are thinned at random
(:attr:`SleepPhenotype.keep`) so that the answer classes are flatter.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from wearbench._labels import Labels
from wearbench.cohort import UserContext
from wearbench.questions._graph import Graph
from wearbench.questions._helpers import thin
from wearbench.questions._qtype import CohortPool, Draft, Drop, Option, QuestionType, question, table

#: Option words per axis value; the words of one axis have equal lengths so that every option
#: text has the same length (a text-only model must not read the answer off the form).
DURATION = {"short": "reduced", "adequate": "typical", "long": "lengthy"}
CONTINUITY = {"fragmented": "poor", "consolidated": "good"}
TIMING = {"regular": "regular", "irregular": "erratic"}
SHORT_BELOW, LONG_ABOVE, FRAGMENTED_BELOW = 25.0, 75.0, 25.0
MIN_NIGHTS = 20


def classify(evidence: Mapping[str, Any], regularity_median: float) -> tuple[str, str, str] | None:
    """(duration, continuity, timing) of the evidence, or None where a value is undefined."""
    dur, eff, reg = (
        evidence["sleep_minutes_pct"],
        evidence["sleep_efficiency_pct"],
        evidence["regularity_mean"],
    )
    if dur is None or eff is None or reg is None:
        return None
    duration = "short" if dur < SHORT_BELOW else "long" if dur > LONG_ABOVE else "adequate"
    continuity = "fragmented" if eff < FRAGMENTED_BELOW else "consolidated"
    timing = "irregular" if reg > regularity_median else "regular"
    return duration, continuity, timing


def _near_edge(
    evidence: Mapping[str, Any], regularity_median: float, pct_band: float, reg_band: float
) -> bool:
    """Whether a value lies within its dead-band of a phenotype edge.

    ``pct_band`` is in percentile points around a percentile edge; ``reg_band`` is a share of
    the cohort regularity median around that median.
    """
    dur, eff, reg = (
        evidence["sleep_minutes_pct"],
        evidence["sleep_efficiency_pct"],
        evidence["regularity_mean"],
    )
    return bool(
        min(abs(dur - SHORT_BELOW), abs(dur - LONG_ABOVE)) < pct_band
        or abs(eff - FRAGMENTED_BELOW) < pct_band
        or abs(reg - regularity_median) < reg_band * regularity_median
    )


def _option(phenotype: tuple[str, str, str], regularity_median: float) -> Option:
    duration, continuity, timing = phenotype
    text = (
        f"Sleep of {DURATION[duration]} length, {CONTINUITY[continuity]} efficiency "
        f"and {TIMING[timing]} timing"
    )
    claim = {
        "duration": duration,
        "continuity": continuity,
        "timing": timing,
        "regularity_median": regularity_median,
    }
    return Option(text, claim)


@question()
@dataclass(frozen=True)
class SleepPhenotype(QuestionType):
    """Sleep phenotype (duration × continuity × timing) of a 28-day window.

    Evidence: reference-percentile ranks of the window's mean sleep duration and efficiency
    (user's age band and sex) and the window's mean bedtime regularity; the cohort median of
    window-mean bedtime regularity rides in every claim. Options: twelve phenotypes, ten shown.

    Attributes:
        keep: Share of windows kept per phenotype (see :attr:`.AcuteStrain.keep`).
        pct_band: Dead-band around a percentile edge (percentile points).
        reg_band: Dead-band around the cohort regularity median (share of the median).
    """

    keep: Mapping[tuple[str, str, str], float] = table(
        {
            ("adequate", "consolidated", "regular"): 0.45,
            ("adequate", "consolidated", "irregular"): 0.5,
            ("long", "consolidated", "irregular"): 0.6,
        }
    )
    pct_band: float = 4.0
    reg_band: float = 0.10

    name = "sleep_phenotype"
    version = 3
    labels = Labels("health", "cross", "literature", "window")
    max_per_user = 3

    def make(self, ctx: UserContext, end: int, rng: np.random.Generator, pool: CohortPool) -> Draft:
        """Build the phenotype question for the window ending at ``end``."""
        median = _regularity_median(pool)
        g = Graph(ctx, str(ctx.dates[end]))
        for m in ("sleep_minutes", "sleep_efficiency"):
            mean = g.call("nan_stat", g.series(m, self.window_days), stat="mean", min_count=MIN_NIGHTS)
            g.output(f"{m}_mean", mean)
            ref = g.reference(m)
            if not ref.value:
                raise Drop("too few nights or no reference percentiles")
            g.output(f"{m}_pct", g.call("percentile_rank", mean, ref))
        reg = g.series("bedtime_regularity", self.window_days)
        g.output("regularity_mean", g.call("nan_stat", reg, stat="mean", min_count=MIN_NIGHTS))
        evidence = g.evidence()
        answer = classify(evidence, median)
        if answer is None:
            raise Drop("too few nights or no reference percentiles")
        if _near_edge(evidence, median, self.pct_band, self.reg_band):
            raise Drop("a value lies within the dead-band of a phenotype edge")
        thin(answer, self.keep, rng)
        others = [(d, c, t) for d in DURATION for c in CONTINUITY for t in TIMING if (d, c, t) != answer]
        picked = sorted(int(i) for i in rng.choice(len(others), size=9, replace=False))
        correct = _option(answer, median)
        stem = (
            f"Over the 28 days ending {g.end_date}, which sleep phenotype describes this user? Sleep "
            "length (mean minutes) and efficiency are ranked against the reference percentiles for "
            f"their age band and sex: length is reduced below P{SHORT_BELOW:g}, lengthy above "
            f"P{LONG_ABOVE:g} and typical in between; efficiency is poor below P{FRAGMENTED_BELOW:g} "
            "and good otherwise. Timing is erratic when the mean bedtime regularity (SD of sleep "
            f"onset) exceeds the cohort median of {median:g} min, and regular otherwise."
        )
        card = (
            "sleep_irregularity_adverse_outcomes"
            if answer[2] == "irregular"
            else "short_sleep_adverse_outcomes"
        )
        return Draft(
            stem,
            correct,
            tuple(_option(others[i], median) for i in picked),
            g,
            ("sleep_minutes", "sleep_efficiency", "bedtime_regularity"),
            grounding_ref=card,
        )

    @staticmethod
    def check(claim: Mapping[str, Any], evidence: Mapping[str, Any]) -> bool:
        """The claimed phenotype equals the one the evidence and the claim's median give."""
        got = classify(evidence, float(claim["regularity_median"]))
        return got == (claim["duration"], claim["continuity"], claim["timing"])


def _regularity_median(pool: CohortPool) -> float:
    values = pool.window_means.get("bedtime_regularity", np.array([]))
    values = values[np.isfinite(values)]
    if values.size < 10:
        raise Drop("cohort pool too small for the regularity median")
    median = round(float(np.median(values)), 1)
    if not math.isfinite(median) or median <= 0:
        raise Drop("cohort regularity median is not positive")
    return median
