"""Position of a 28-day median against cohort reference percentiles, with its health reading.

(health · single · window; WearableQA "position vs cohort reference percentiles".)

Evidence: the median of one core metric over the 28-day window (``nan_stat``) and the band of
the reference percentiles of the user's age band and sex that holds it (``percentile_band``:
``<P5``, ``P5-P10``, …, ``>P95``; eight bands). Each metric has a literature card giving the
direction of its association with outcomes, which turns a band into a reading:

- resting heart rate: lower is more favourable (higher RHR, higher mortality);
- steps and HRV: higher is more favourable;
- sleep duration: U-shaped (both short and long sleep are associated with higher mortality).

A reading is relative to peers only (no study-specific cut-off is used): the outer bands
(below P10 / above P90) are "well below/above most peers", P10–P25 and P75–P90 "below/above
most peers", P25–P75 "within the middle half". Options: the eight bands with their correct
reading plus two misreadings (a random band paired with a reading that contradicts the card).
Dead-band: windows whose median lies within 2 % of the P5–P95 range of any cut are dropped.
Sleep efficiency has reference percentiles but no verified literature card yet, so it is not
asked.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

import numpy as np

from wearbench.questions._context import UserContext
from wearbench.questions._graph import Graph
from wearbench.questions._helpers import require_coverage
from wearbench.questions._labels import Labels
from wearbench.questions._qtype import CohortPool, Draft, Drop, Option, QuestionType, question

Direction = Literal["lower_better", "higher_better", "u_shaped"]

#: Metric → (direction of the literature association, card id, wording).
METRICS: dict[str, tuple[Direction, str, str]] = {
    "resting_hr": ("lower_better", "rhr_mortality", "resting heart rate"),
    "steps": ("higher_better", "steps_mortality_dose_response", "daily steps"),
    "hrv": ("higher_better", "hrv_cardiovascular_risk", "heart-rate variability (RMSSD)"),
    "sleep_minutes": ("u_shaped", "sleep_duration_mortality", "sleep duration"),
}
BANDS = ("<P5", "P5-P10", "P10-P25", "P25-P50", "P50-P75", "P75-P90", "P90-P95", ">P95")
#: Band → position relative to peers (-2 well below … +2 well above).
POSITION = {
    "<P5": -2,
    "P5-P10": -2,
    "P10-P25": -1,
    "P25-P50": 0,
    "P50-P75": 0,
    "P75-P90": 1,
    "P90-P95": 2,
    ">P95": 2,
}
READINGS = ("less_favourable", "typical", "more_favourable")
DEAD_BAND = 0.02  # share of the P5–P95 range

_BAND_TEXT = {
    "<P5": "Below the 5th percentile",
    "P5-P10": "Between the 5th and 10th percentiles",
    "P10-P25": "Between the 10th and 25th percentiles",
    "P25-P50": "Between the 25th and 50th percentiles",
    "P50-P75": "Between the 50th and 75th percentiles",
    "P75-P90": "Between the 75th and 90th percentiles",
    "P90-P95": "Between the 90th and 95th percentiles",
    ">P95": "Above the 95th percentile",
}


def reading(metric: str, band: str) -> str:
    """Health reading of ``band`` for ``metric`` under its card's direction of association."""
    direction, pos = METRICS[metric][0], POSITION[band]
    if pos == 0 or (direction == "u_shaped" and abs(pos) == 1):
        return "typical"
    if direction == "u_shaped":
        return "less_favourable"
    favourable = pos > 0 if direction == "higher_better" else pos < 0
    return "more_favourable" if favourable else "less_favourable"


def _reading_text(metric: str, band: str, key: str) -> str:
    pos = POSITION[band]
    where = {
        -2: "well below most peers",
        -1: "below most peers",
        0: "within the middle half of peers",
        1: "above most peers",
        2: "well above most peers",
    }[pos]
    what = {
        "less_favourable": "a less favourable position, the direction associated with higher risk",
        "typical": "no marked deviation from peers in either direction of risk",
        "more_favourable": "a more favourable position, the direction associated with lower risk",
    }[key]
    return f"{where}; {what}"


def option(metric: str, band: str, key: str) -> Option:
    """Option text and claim for a band read as ``key``."""
    text = f"{_BAND_TEXT[band]} of peers: {_reading_text(metric, band, key)}"
    return Option(text, {"metric": metric, "band": band, "reading": key})


def near_cut(value: float, cuts: Mapping[int, float], share: float) -> bool:
    """Whether ``value`` lies within ``share`` of the P5–P95 range of any percentile cut."""
    margin = share * (max(cuts.values()) - min(cuts.values()))
    return any(abs(value - c) <= margin for c in cuts.values())


@question()
class CohortPosition(QuestionType):
    """Band of a 28-day median among cohort reference percentiles (age band, sex) and its health reading."""

    name = "cohort_position"
    version = 1
    labels = Labels("health", "single", "literature", "window")
    max_per_user = 3

    def make(self, ctx: UserContext, end: int, rng: np.random.Generator, pool: CohortPool) -> Draft:
        """Pick a metric with reference percentiles, band its 28-day median, and read the band."""
        metric = str(rng.choice(list(METRICS)))
        g = Graph(ctx, str(ctx.dates[end]))
        ref = g.reference(metric)
        if len(ref.value) < 2:
            raise Drop("no reference percentiles for the metric")
        s = g.series(metric, self.window_days)
        require_coverage(s.value, 0.7, metric)
        median = g.output("median", g.call("nan_stat", s, stat="median"))
        band = g.output("band", g.call("percentile_band", median, ref))
        if near_cut(float(median.value), ref.value, DEAD_BAND):
            raise Drop("median within the dead-band of a percentile cut")
        if band.value not in BANDS:
            raise Drop("reference percentiles are not the standard P5…P95 cuts")
        correct = option(metric, str(band.value), reading(metric, str(band.value)))
        others = [option(metric, b, reading(metric, b)) for b in BANDS if b != band.value]
        wrong = [(b, k) for b in BANDS for k in READINGS if k != reading(metric, b)]
        picks = rng.choice(len(wrong), 2, replace=False)
        misreadings = [option(metric, *wrong[int(i)]) for i in picks]
        label = METRICS[metric][2]
        text = (
            f"Where does this user's median {label} over the 28 days ending {g.end_date} fall among the "
            f"cohort reference percentiles for their age band and sex, and what does that position mean "
            f"for long-term health risk?"
        )
        return Draft(
            text,
            correct,
            (*others, *misreadings),
            g,
            (metric,),
            grounding_ref=METRICS[metric][1],
            variant=metric,
        )

    @staticmethod
    def check(claim: Mapping[str, Any], evidence: Mapping[str, Any]) -> bool:
        """The claimed band holds the median and the claimed reading is the card's reading of that band."""
        metric, band = claim.get("metric"), claim.get("band")
        if metric not in METRICS or band not in POSITION or evidence.get("band") != band:
            return False
        return bool(claim.get("reading") == reading(str(metric), str(band)))
