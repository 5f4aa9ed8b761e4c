"""Knowledge-prior baseline: answer every item from textbook physiology alone, with no data.

A model that knows physiology but sees no data can still rank options: couplings have usual
lags and signs (a short night lowers HRV that same morning; stress raises resting HR the same
day), responses move in a usual direction after a personal low or high (after a short-sleep
night resting HR is up and HRV down), seasons shift daily behaviour (more steps in July, more
sleep in January), weekends deviate most in steps and sleep, excursion counts follow from the
threshold, and some option combinations contradict the stated rule (an "advantageous"
reading of a high resting HR). :func:`prior_scores` turns that knowledge into one plausibility
score per option (``-inf``: logically excluded); :func:`prior_pick` takes the best, ties
broken by a seeded hash of the item id and the option text (so the pick does not depend on the
letter order). A benchmark without knowledge shortcuts keeps this prior near the 10% chance
level; the build's balancing (:func:`wearbench.bench._balance.balance`) drops items until its
per-type accuracy is not significantly above chance, and :func:`prior_audit` reports it.

Every scorer is a pure function of the stem and the options' texts and claims; none reads the
item's evidence, graph or answer. Knowledge tables are northern-hemisphere and textbook-level
(:data:`USUAL_COUPLING`, :data:`USUAL_RESPONSE`, :data:`SEASON_PEAK`), not fitted to any cohort.
"""

from __future__ import annotations

import hashlib
import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from wearbench._stats import Accuracy, accuracy
from wearbench.grounding import DEFINITIONAL_PAIRS, LOCKSTEP_PAIRS
from wearbench.questions import LETTERS, Item
from wearbench.questions.types.cohort_position import reading
from wearbench.questions.types.conditional_effect import USUAL_DIRECTION
from wearbench.questions.types.coupling_lag import USUAL_COUPLING

OptionSpec = tuple[str, Mapping[str, Any]]
Scorer = Callable[[str, Sequence[OptionSpec]], np.ndarray]

#: Condition → response: usual direction of the response after such days (the type's design
#: table, held once in the question type as :data:`USUAL_COUPLING` is).
USUAL_RESPONSE: Mapping[str, str] = USUAL_DIRECTION
#: Usual size class of a next-day effect (index into the effect bins: 0.6–0.9 SD).
USUAL_EFFECT_BIN = 1
#: Metric → month (1–12) of its seasonal maximum (northern hemisphere): more steps and activity
#: in summer, longer sleep and higher resting HR in winter.
SEASON_PEAK: Mapping[str, int] = {
    "steps": 7,
    "active_kcal": 7,
    "exercise_minutes": 7,
    "hrv": 7,
    "sleep_minutes": 1,
    "sleep_efficiency": 1,
    "resting_hr": 1,
    "stress": 1,
}
#: Pairs whose daily coupling is textbook-strong (definitional ones strongest).
_PAIR_STRENGTH: Mapping[str, float] = {
    "stress->hrv": 2.0,
    "stress->resting_hr": 1.8,
    "sleep_minutes->hrv": 1.5,
    "sleep_efficiency->resting_hr": 1.2,
    "sleep_minutes->stress": 1.2,
    "bedtime_regularity->sleep_efficiency": 0.5,
}
#: Pairs linked by how the device counts or computes them (ranked above every empirical pair).
_DEFINITIONAL = frozenset(p.name for p in (*DEFINITIONAL_PAIRS, *LOCKSTEP_PAIRS))
_TIE = 1e-9
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")


def _claims(options: Sequence[OptionSpec]) -> list[Mapping[str, Any]]:
    return [c for _, c in options]


def _flat(question: str, options: Sequence[OptionSpec]) -> np.ndarray:
    """No knowledge applies: every option is equally plausible."""
    return np.zeros(len(options))


def _coupling_lag(question: str, options: Sequence[OptionSpec]) -> np.ndarray:
    """Usual sign first (weight 3), then closeness to the usual lag in the asked order."""
    out = []
    for c in _claims(options):
        usual = USUAL_COUPLING.get(str(c["pair"]))
        if usual is None:
            out.append(0.0)
            continue
        lag, sign = usual
        asked = lag if str(c["pair"]).split("->")[0] == c["first"] else -lag
        out.append(3.0 * (c["sign"] == sign) - abs(int(c["lag"]) - asked))
    return np.array(out, dtype=float)


def _conditional_effect(question: str, options: Sequence[OptionSpec]) -> np.ndarray:
    """Usual direction (weight 3), then closeness to the usual size class."""
    out = []
    for c in _claims(options):
        usual = USUAL_RESPONSE.get(str(c["family"]))
        direction = 3.0 * (c["direction"] == usual) if usual else 0.0
        out.append(direction - 0.5 * abs(int(c["bin"]) - USUAL_EFFECT_BIN))
    return np.array(out, dtype=float)


def _season(metric: str, month: float) -> float:
    """Seasonal level in [-1, 1] at ``month`` (1–12, fractional), 0 without a known season."""
    peak = SEASON_PEAK.get(metric)
    return 0.0 if peak is None else math.cos(2 * math.pi * (month - peak) / 12)


def _period_comparison(question: str, options: Sequence[OptionSpec]) -> np.ndarray:
    """The month closest to the metric's seasonal peak (highest) or trough (lowest)."""
    sign = -1.0 if "lowest" in question else 1.0
    return np.array(
        [sign * _season(str(c["metric"]), int(str(c["period"]).split("-")[1])) for c in _claims(options)]
    )


def _window_month(question: str) -> float | None:
    """Fractional month (1–12) of the middle of the first two dates in the stem."""
    dates = _DATE.findall(question)
    if len(dates) < 2:
        return None
    days = [np.datetime64(f"{y}-{m}-{d}") for y, m, d in dates[:2]]
    mid = days[0] + (days[1] - days[0]) // 2
    month = int(str(mid)[5:7])
    return month + (int(str(mid)[8:10]) - 1) / 31


#: Typical size of a clear 28-day change per metric (units of the metric), a textbook scale.
_TYPICAL_CHANGE: Mapping[str, float] = {
    "resting_hr": 3.0,
    "hrv": 8.0,
    "steps": 2000.0,
    "sleep_minutes": 30.0,
    "stress": 6.0,
    "sleep_efficiency": 3.0,
}


def _size_fit(claim: Mapping[str, Any], typical: float) -> float:
    """Closeness (0 best, negative log ratio) of the claimed size range to a typical size."""
    lo, hi = float(claim["lo"]), claim["hi"]
    centre = lo * 1.25 if hi is None else (lo + float(hi)) / 2
    return -abs(math.log(max(centre, 1e-9) / typical))


def _trend(question: str, options: Sequence[OptionSpec]) -> np.ndarray:
    """Seasonal direction at the window (weight 2), then a typical size; no trend scores 1."""
    month = _window_month(question)
    out = []
    for c in _claims(options):
        metric = str(c["metric"])
        if c["direction"] == "none":
            out.append(1.0)
            continue
        slope = 0.0 if month is None else _season(metric, month + 0.5) - _season(metric, month - 0.5)
        sign = 1.0 if c["direction"] == "increasing" else -1.0
        size = _size_fit(c, _TYPICAL_CHANGE.get(metric, 1.0)) * 0.2
        out.append(2.0 * float(np.sign(slope) * sign) + size)
    return np.array(out, dtype=float)


def _anomaly(question: str, options: Sequence[OptionSpec]) -> np.ndarray:
    """Weekends deviate most in steps and sleep; other metrics have no usual day."""
    out = []
    for text, c in options:
        weekend = text.split()[0] in ("Saturday", "Sunday")
        out.append(float(weekend and c["metric"] in ("steps", "sleep_minutes")))
    return np.array(out)


_K = re.compile(r"z [≥≤] [+−-]?(\d+(?:\.\d+)?)")
_SPAN = re.compile(r"\((\d+) days\)")


def _excursion_count(question: str, options: Sequence[OptionSpec]) -> np.ndarray:
    """Closeness to the expected number of runs beyond k SD for independent normal days."""
    k_match, span_match = _K.search(question), _SPAN.search(question)
    if k_match is None or span_match is None:
        return _flat(question, options)
    p = 0.5 * math.erfc(float(k_match.group(1)) / math.sqrt(2))
    expected = int(span_match.group(1)) * p * (1 - p)
    out = []
    for c in _claims(options):
        centre = float(c["lo"]) if c["hi"] is None else (float(c["lo"]) + float(c["hi"]) - 1) / 2
        out.append(-abs(centre - expected))
    return np.array(out)


def _strongest_pair(question: str, options: Sequence[OptionSpec]) -> np.ndarray:
    """Definitional pairs first, then textbook-strong autonomic couplings."""
    return np.array(
        [
            3.0 if c["pair"] in _DEFINITIONAL else _PAIR_STRENGTH.get(str(c["pair"]), 1.0)
            for c in _claims(options)
        ]
    )


#: Plausibility of each |r| grade A–E of a linked pair (moderate-to-strong is usual).
_GRADE_PLAUSIBILITY = (0.0, 0.5, 0.5, 0.2, 0.0)


def _concordance(question: str, options: Sequence[OptionSpec]) -> np.ndarray:
    """Linked signals usually move together in health terms, at grades B–C."""
    return np.array(
        [(c["direction"] == "concordant") + _GRADE_PLAUSIBILITY[int(c["bin"])] for c in _claims(options)],
        dtype=float,
    )


#: Share of peers in each percentile band (how likely a random user is to fall in it).
def _band_mass(band: str) -> float:
    """Share of peers in a percentile band named ``<Pa``, ``Pa-Pb`` or ``>Pb`` (0.1 if unreadable)."""
    cuts = [int(x) for x in re.findall(r"P(\d+)", band)]
    if band.startswith("<") and len(cuts) == 1:
        return cuts[0] / 100
    if band.startswith(">") and len(cuts) == 1:
        return (100 - cuts[0]) / 100
    return (cuts[1] - cuts[0]) / 100 if len(cuts) == 2 else 0.1


def _cohort_position(question: str, options: Sequence[OptionSpec]) -> np.ndarray:
    """Exclude readings that contradict the metric's direction; then the likeliest band."""
    out = []
    for c in _claims(options):
        try:
            consistent = reading(str(c["metric"]), str(c["band"])) == c["reading"]
        except KeyError:
            consistent = True
        out.append(math.log(_band_mass(str(c["band"]))) if consistent else -math.inf)
    return np.array(out)


def _fitness_prediction(question: str, options: Sequence[OptionSpec]) -> np.ndarray:
    """Risk must follow the band (above the peer median, lower risk); a flat VO2max is usual.

    The bands are the quartiles of matched peers, so each holds a quarter of them: no band is
    likelier than another without the data.
    """
    trend = {"no_clear_change": 0.5, "improving": 0.2, "declining": 0.0}
    out = []
    for c in _claims(options):
        band = str(c.get("band"))
        expected = "higher" if band in ("low", "below_median") else "lower"
        out.append(trend.get(str(c.get("trend")), 0.0) if c.get("risk") == expected else -math.inf)
    return np.array(out)


def _keyed(weights: Mapping[str, Mapping[str, float]]) -> Scorer:
    """A scorer summing, per claim key, the plausibility of the claimed value (0 if unlisted)."""

    def score(question: str, options: Sequence[OptionSpec]) -> np.ndarray:
        return np.array(
            [sum(w.get(str(c.get(key)), 0.0) for key, w in weights.items()) for c in _claims(options)],
            dtype=float,
        )

    return score


_SCORERS: Mapping[str, Scorer] = {
    "coupling_lag": _coupling_lag,
    "conditional_effect": _conditional_effect,
    "period_comparison": _period_comparison,
    "trend": _trend,
    "anomaly": _anomaly,
    "excursion_count": _excursion_count,
    "strongest_pair": _strongest_pair,
    "concordance": _concordance,
    "cohort_position": _cohort_position,
    "fitness_prediction": _fitness_prediction,
    # the usual state is the quiet one; an RHR rise is most often a full illness pattern
    "acute_strain": _keyed({"reading": {"no_deviation": 1.0, "illness": 0.5}}),
    "differential_rhr": _keyed({"explanation": {"illness_full": 1.0}}),
    "activity_recommendation": _keyed({"relation": {"usual": 1.0}}),
    "sleep_phenotype": _keyed({"duration": {"adequate": 1.0}, "continuity": {"consolidated": 0.5}}),
}


def prior_scores(type_name: str, question: str, options: Sequence[OptionSpec]) -> np.ndarray:
    """Plausibility of each option from knowledge alone (higher: likelier; ``-inf``: excluded).

    Args:
        type_name: The item's question type (a type without a scorer gets equal scores).
        question: The stem.
        options: ``(text, claim)`` per option.
    """
    return _SCORERS.get(type_name, _flat)(question, options)


def _tie_key(seed: int, item_id: str, text: str) -> str:
    return hashlib.sha256(f"prior|{seed}|{item_id}|{text}".encode()).hexdigest()


def prior_pick(
    item_id: str, type_name: str, question: str, options: Sequence[OptionSpec], seed: int = 0
) -> int:
    """Index of the option the prior picks: the best score, ties by a seeded hash of id and text."""
    scores = prior_scores(type_name, question, options)
    if not np.isfinite(scores).any():
        scores = np.zeros(len(options))
    best = np.flatnonzero(scores >= np.max(scores) - _TIE)
    return int(min(best, key=lambda j: _tie_key(seed, item_id, options[int(j)][0])))


def prior_hit(
    item_id: str, type_name: str, question: str, options: Sequence[OptionSpec], seed: int = 0
) -> bool:
    """Whether the prior picks ``options[0]`` (builders pass the correct option first)."""
    return prior_pick(item_id, type_name, question, options, seed) == 0


def _specs(item: Item) -> list[OptionSpec]:
    return [(item.options[letter], item.claims[letter]) for letter in item.options]


def prior_answers(items: Sequence[Item], seed: int = 0) -> dict[str, str]:
    """The knowledge prior's letter per item."""
    return {i.id: LETTERS[prior_pick(i.id, i.type, i.question, _specs(i), seed)] for i in items}


@dataclass(frozen=True)
class PriorAudit:
    """Accuracy of the knowledge prior, overall and per question type (chance is 10%)."""

    overall: Accuracy
    by_type: Mapping[str, Accuracy]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary."""
        return {
            "overall": self.overall.to_dict(),
            "by_type": {t: a.to_dict() for t, a in self.by_type.items()},
        }


def prior_audit(items: Sequence[Item], seed: int = 0) -> PriorAudit:
    """The knowledge prior's accuracy with Wilson 95% CIs, per type and overall."""
    picks = prior_answers(items, seed)
    by_type = {}
    for name in sorted({i.type for i in items}):
        members = [i for i in items if i.type == name]
        by_type[name] = accuracy(sum(picks[i.id] == i.answer for i in members), len(members))
    hits = sum(picks[i.id] == i.answer for i in items)
    return PriorAudit(accuracy(hits, len(items)), by_type)
