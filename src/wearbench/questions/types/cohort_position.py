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
(below P10 / above P90) are unfavourable or advantageous according to the card's direction,
P10–P25 and P75–P90 likewise (intermediate for sleep), P25–P75 intermediate. Options are
(band, reading) pairs in one template ("Quantile rank 0.25 to 0.50 among peers: an
intermediate position for long-term risk"): the correct pair, 0–2 other readings of the same
band, and the rest from lower and higher bands with any reading, the split chosen so that the
correct range's rank among the ten is spread uniformly (see :func:`pick_options`).
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
from wearbench.questions._helpers import choose_metric, require_coverage
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

#: Band → quantile-rank interval among peers, written with two decimals so that every option
#: has the same digits and length.
_BAND_RANGE = {
    "<P5": ("0.00", "0.05"),
    "P5-P10": ("0.05", "0.10"),
    "P10-P25": ("0.10", "0.25"),
    "P25-P50": ("0.25", "0.50"),
    "P50-P75": ("0.50", "0.75"),
    "P75-P90": ("0.75", "0.90"),
    "P90-P95": ("0.90", "0.95"),
    ">P95": ("0.95", "1.00"),
}
#: Reading → one word of one length class (12 letters, all starting with a vowel).
_READING_TEXT = {
    "less_favourable": "unfavourable",
    "typical": "intermediate",
    "more_favourable": "advantageous",
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


def option(metric: str, band: str, key: str) -> Option:
    """Option text and claim for a band read as ``key`` (one template for every band and reading)."""
    lo, hi = _BAND_RANGE[band]
    text = f"Quantile rank {lo} to {hi} among peers: an {_READING_TEXT[key]} position for long-term risk"
    return Option(text, {"metric": metric, "band": band, "reading": key})


def pick_options(metric: str, band: str, rng: np.random.Generator) -> tuple[Option, list[Option]]:
    """The correct option and nine distractors placed so that the correct band's rank is spread.

    Distractors are (band, reading) pairs: ``k`` (0–2) other readings of the correct band, and
    the rest from lower and higher bands. The number of lower-band distractors is a uniform
    draw over the ten rank positions, clipped to what the band allows, so the correct option is
    not systematically the lowest, highest or middle percentile range. Readings are drawn with
    weights :func:`reading_prior` (how often each reading is correct for a user drawn from the
    reference population), so that every reading is shown about as often as it is the answer.
    """
    b = BANDS.index(band)
    prior = reading_prior(metric)
    correct = option(metric, band, reading(metric, band))

    def draw(pairs: list[tuple[str, str]], n: int) -> list[Option]:
        if n == 0:
            return []
        w = np.array([prior[k] for _, k in pairs]) + 1e-3
        return [
            option(metric, *pairs[int(i)]) for i in rng.choice(len(pairs), n, replace=False, p=w / w.sum())
        ]

    same = [(band, k) for k in READINGS if k != reading(metric, band)]
    below = [(x, k) for x in BANDS[:b] for k in READINGS]
    above = [(x, k) for x in BANDS[b + 1 :] for k in READINGS]
    k_same = int(rng.integers(0, len(same) + 1))
    m = 9 - k_same
    n_below = int(np.clip(rng.integers(0, m + 1), max(0, m - len(above)), min(m, len(below))))
    return correct, [*draw(same, k_same), *draw(below, n_below), *draw(above, m - n_below)]


#: Share of the reference population in each band (percentile widths).
BAND_SHARE = dict(zip(BANDS, (0.05, 0.05, 0.15, 0.25, 0.25, 0.15, 0.05, 0.05), strict=True))


def reading_prior(metric: str) -> dict[str, float]:
    """Share of the reference population whose band reads as each reading (e.g. typical 0.5)."""
    out = dict.fromkeys(READINGS, 0.0)
    for b, share in BAND_SHARE.items():
        out[reading(metric, b)] += share
    return out


def near_cut(value: float, cuts: Mapping[int, float], share: float) -> bool:
    """Whether ``value`` lies within ``share`` of the P5–P95 range of any percentile cut."""
    margin = share * (max(cuts.values()) - min(cuts.values()))
    return any(abs(value - c) <= margin for c in cuts.values())


@question()
class CohortPosition(QuestionType):
    """Band of a 28-day median among cohort reference percentiles (age band, sex) and its health reading."""

    name = "cohort_position"
    version = 3
    labels = Labels("health", "single", "literature", "window")
    max_per_user = 3

    def make(self, ctx: UserContext, end: int, rng: np.random.Generator, pool: CohortPool) -> Draft:
        """Pick a metric with reference percentiles, band its 28-day median, and read the band."""
        metric = choose_metric(ctx, end, self.window_days, list(METRICS), 0.7, rng)
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
        correct, distractors = pick_options(metric, str(band.value), rng)
        label = METRICS[metric][2]
        text = (
            f"Where does this user's median {label} over the 28 days ending {g.end_date} fall among the "
            f"cohort reference percentiles for their age band and sex (as its quantile rank among peers, "
            f"the share of peers with a lower value), and is that position unfavourable, intermediate "
            f"or advantageous for long-term risk given the direction of the literature association?"
        )
        return Draft(
            text,
            correct,
            tuple(distractors),
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
