"""Decile of a 28-day median among age- and sex-matched peers, with its stated health reading.

(health · single · window; WearableQA "position vs cohort reference percentiles".)

Evidence: the median of one core metric over the 28-day window (``nan_stat``) and the decile
band of the reference the item compares against that holds it (``percentile_band`` over the
cuts P10, P20, …, P90: ``<P10``, ``P10-P20``, …, ``>P90``; ten bands). The reference is never a
set that includes the user (:class:`~wearbench.cohort.ReferenceResolver`: an independent
population, ≥ 30 other cohort users of the same age band and sex, or a cited external table); a
reference without all nine decile cuts drops the window. Each metric has a literature card
giving the direction of its association with outcomes, and the stem states the rule that
turns a band into a reading:

- resting heart rate (lower is more favourable): below P20 advantageous, above P80
  unfavourable, P20–P80 intermediate;
- steps and HRV (higher is more favourable): below P20 unfavourable, above P80 advantageous;
- sleep duration (U-shaped: both short and long sleep carry higher mortality): below P20 or
  above P80 unfavourable, else intermediate.

A reading is relative to peers only (no study-specific cut-off is used); the extreme quintiles
(two outer deciles on each side) are the usual contrast of cohort studies.

Design (issue 10, options state their rule): with the seven cuts P5…P95 there are only eight
bands, so ten band-consistent options cannot exist, and mixing readings let a physiology prior
rule options out. Deciles give exactly ten bands of equal population share; the ten options
are the ten bands, each with the reading the stated rule gives it, in one template ("Quantile
rank 0.40 to 0.50 among peers: an intermediate position for long-term risk"). No option
contradicts the rule, and a priori each band holds a tenth of peers, so neither the option text
nor physiology knowledge singles one out. Dead-band: windows whose median lies within
:attr:`CohortPosition.dead_band` of a band's width from a cut are dropped (relative to the local band width,
so every band loses about the same share); the two outer bands, which lose only one edge and
collect the extra spread of a 28-day median, are thinned (:data:`KEEP_OUTER`) so that each band
stays about equally often the answer. Sleep
efficiency has reference percentiles but no verified literature card yet, so it is not asked.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from wearbench._labels import Labels
from wearbench.cohort import UserContext
from wearbench.questions._graph import Graph
from wearbench.questions._helpers import choose_metric, keep_share, require_coverage
from wearbench.questions._qtype import CohortPool, Draft, Drop, Option, QuestionType, question

Direction = Literal["lower_better", "higher_better", "u_shaped"]

#: Metric → (direction of the literature association, card id, wording).
METRICS: dict[str, tuple[Direction, str, str]] = {
    "resting_hr": ("lower_better", "rhr_mortality", "resting heart rate"),
    "steps": ("higher_better", "steps_mortality_dose_response", "daily steps"),
    "hrv": ("higher_better", "hrv_cardiovascular_risk", "heart-rate variability (RMSSD)"),
    "sleep_minutes": ("u_shaped", "sleep_duration_mortality", "sleep duration"),
}
#: Decile cuts of the reference.
CUTS: tuple[int, ...] = (10, 20, 30, 40, 50, 60, 70, 80, 90)
BANDS: tuple[str, ...] = ("<P10", *(f"P{a}-P{b}" for a, b in itertools.pairwise(CUTS)), ">P90")
#: Readings change at these percentiles (the extreme quintiles).
LOW_BELOW, HIGH_ABOVE = 20, 80
READINGS = ("less_favourable", "typical", "more_favourable")
#: Share of outer-band windows kept. The outer bands lose only one edge to the dead-band, and a
#: 28-day median is more dispersed than the per-user long-term medians the reference is made of,
#: so more windows land in them; measured on the default build (200 users x 500 days, seed 0),
#: ">P90" was about 1.9 times as often the answer as an inner band before thinning.
KEEP_OUTER = {"<P10": 0.9, ">P90": 0.5}

#: Band → quantile-rank interval among peers, written with two decimals so that every option
#: has the same digits and length.
_BAND_RANGE = {
    band: (f"{lo / 100:.2f}", f"{hi / 100:.2f}")
    for band, lo, hi in zip(BANDS, (0, *CUTS), (*CUTS, 100), strict=True)
}
#: Reading → one word of one length class (12 letters, all starting with a vowel).
_READING_TEXT = {
    "less_favourable": "unfavourable",
    "typical": "intermediate",
    "more_favourable": "advantageous",
}
_DIRECTION_TEXT = {
    "lower_better": "lower is more favourable",
    "higher_better": "higher is more favourable",
    "u_shaped": "both short and long sleep carry higher risk",
}


def position(band: str) -> int:
    """-1 below P20, +1 above P80, else 0."""
    lo = round(float(_BAND_RANGE[band][0]) * 100)
    return -1 if lo < LOW_BELOW else 1 if lo >= HIGH_ABOVE else 0


def reading(metric: str, band: str) -> str:
    """Health reading of ``band`` for ``metric`` under the stated rule (the card's direction)."""
    direction, pos = METRICS[metric][0], position(band)
    if pos == 0:
        return "typical"
    if direction == "u_shaped":
        return "less_favourable"
    favourable = pos > 0 if direction == "higher_better" else pos < 0
    return "more_favourable" if favourable else "less_favourable"


def rule_text(metric: str) -> str:
    """The band-to-reading rule of ``metric`` as stated in the stem."""
    direction = METRICS[metric][0]
    low, high = (_READING_TEXT[reading(metric, b)] for b in ("<P10", ">P90"))
    return (
        f"{_DIRECTION_TEXT[direction]}, so a median below P{LOW_BELOW} is {low}, above P{HIGH_ABOVE} "
        f"{high}, and from P{LOW_BELOW} to P{HIGH_ABOVE} intermediate"
    )


def option(metric: str, band: str) -> Option:
    """Option text and claim for a band with the reading the stated rule gives it."""
    lo, hi = _BAND_RANGE[band]
    key = reading(metric, band)
    text = f"Quantile rank {lo} to {hi} among peers: an {_READING_TEXT[key]} position for long-term risk"
    return Option(text, {"metric": metric, "band": band, "reading": key})


def near_cut(value: float, cuts: Mapping[int, float], share: float) -> bool:
    """Whether ``value`` lies within ``share`` of the narrower adjoining band's width of any cut.

    The outer bands have no width; a cut next to one uses its inner neighbour's width.
    """
    vals = [cuts[p] for p in sorted(cuts)]
    widths = [b - a for a, b in itertools.pairwise(vals)]
    for i, c in enumerate(vals):
        near = [w for w in (widths[i - 1] if i > 0 else None, widths[i] if i < len(widths) else None) if w]
        if abs(value - c) <= share * min(near, default=0.0):
            return True
    return False


@question()
@dataclass(frozen=True)
class CohortPosition(QuestionType):
    """Decile of a 28-day median among age- and sex-matched peers, with the stated reading of that decile.

    Attributes:
        dead_band: Dead-band half-width as a share of the narrower band next to a cut.
    """

    dead_band: float = 0.1

    name = "cohort_position"
    version = 4
    labels = Labels("health", "single", "literature", "window")
    max_per_user = 3

    def make(self, ctx: UserContext, end: int, rng: np.random.Generator, pool: CohortPool) -> Draft:
        """Pick a metric, band its 28-day median among the reference deciles, and read the band."""
        metric = choose_metric(ctx, end, self.window_days, list(METRICS), 0.7, rng)
        g = Graph(ctx, str(ctx.dates[end]))
        ref = g.reference(metric, CUTS)
        if sorted(ref.value) != list(CUTS):
            raise Drop("reference lacks the decile cuts P10…P90")
        s = g.series(metric, self.window_days)
        require_coverage(s.value, 0.7, metric)
        median = g.output("median", g.call("nan_stat", s, stat="median"))
        band = g.output("band", g.call("percentile_band", median, ref))
        if near_cut(float(median.value), ref.value, self.dead_band):
            raise Drop("median within the dead-band of a percentile cut")
        if band.value in KEEP_OUTER:
            keep_share(KEEP_OUTER[str(band.value)], rng)
        options = [option(metric, b) for b in BANDS]
        correct = options[BANDS.index(str(band.value))]
        label = METRICS[metric][2]
        text = (
            f"Where does this user's median {label} over the 28 days ending {g.end_date} fall among the "
            f"deciles (P10 to P90) of the reference for their age band and sex shown with this question "
            f"(as its quantile rank among peers, the share of peers with a lower value), and what does "
            f"that position mean for long-term risk? For {label}, {rule_text(metric)}."
        )
        return Draft(
            text,
            correct,
            tuple(o for o in options if o is not correct),
            g,
            (metric,),
            grounding_ref=METRICS[metric][1],
            variant=metric,
        )

    @staticmethod
    def check(claim: Mapping[str, Any], evidence: Mapping[str, Any]) -> bool:
        """The claimed band holds the median and the claimed reading is the stated reading of that band."""
        metric, band = claim.get("metric"), claim.get("band")
        if metric not in METRICS or band not in BANDS or evidence.get("band") != band:
            return False
        return bool(claim.get("reading") == reading(str(metric), str(band)))
