"""Text-level option checker: which option texts are true, judged from the item's evidence numbers.

Each checker reads an option's *text* (never the structured claim) and compares what it states
with ``item.evidence``; the stem is passed only for definitions it states (grade edges, bands).
An item passes when exactly one option is true and it is the keyed one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from tests.validity.solvers import (
    _strain,
    activity_recommendation,
    blood_state,
    cohort_position,
    concordance,
    conditional_effect,
    coupling_lag,
    excursion_count,
    fitness_prediction,
    period_comparison,
    sleep_phenotype,
    trend,
)
from tests.validity.solvers._common import number

from wearbench.questions import Item

__all__ = ["CHECKERS", "true_options"]

Checker = Callable[[str, Mapping[str, Any], str], bool]


def _trend(text: str, ev: Mapping[str, Any], stem: str) -> bool:
    if ev["lo"] is None or ev["hi"] is None or ev["slope"] is None:
        return False
    change = abs(ev["slope"]) * (ev["span_days"] - 1)
    return trend.holds(text, ev["lo"], ev["hi"], change)


def _excursions(text: str, ev: Mapping[str, Any], stem: str) -> bool:
    count = sum(1 for r in ev["runs"] if r["start"] >= ev["window_start"])
    return excursion_count.holds(text, count)


def _anomaly(text: str, ev: Mapping[str, Any], stem: str) -> bool:
    return bool(ev["decisive"]) and re.fullmatch(rf"\w+day {ev['winner']}", text) is not None


def _recovery(text: str, ev: Mapping[str, Any], stem: str) -> bool:
    if ev["days"] is None or ev["onset"] is None:
        return False
    return bool(text == ev["dates"][int(ev["onset"]) + int(ev["days"])])


def _period(text: str, ev: Mapping[str, Any], stem: str) -> bool:
    if ev["winner"] is None:
        return False
    year, month = ev["labels"][ev["winner"]].split("-")
    return text == f"{period_comparison.MONTHS[int(month) - 1]} {year}"


def _strongest(text: str, ev: Mapping[str, Any], stem: str) -> bool:
    x, y = str(ev["winner"]).split("->")
    return bool(ev["decisive"]) and text == f"{x.replace('_', ' ')} ↔ {y.replace('_', ' ')}"


def _coupling(text: str, ev: Mapping[str, Any], stem: str) -> bool:
    if ev["best_lag"] is None or ev["best_r"] is None:
        return False
    return coupling_lag.holds(text, int(ev["best_lag"]), float(ev["best_r"]))


#: Condition names in the options → the evidence's condition keys (``effect:<key>-><response>``).
_CONDITION_KEYS = {
    "short-sleep nights": "short_sleep",
    "poor-efficiency nights": "poor_sleep_efficiency",
    "high-stress days": "high_stress",
    "high-activity days": "high_activity",
}


def _conditional(text: str, ev: Mapping[str, Any], stem: str) -> bool:
    cond, response, _, _, _ = conditional_effect.reading(text)
    effect = ev.get(f"effect:{_CONDITION_KEYS[cond]}->{response}")
    return effect is not None and conditional_effect.holds(text, float(effect))


def _concordance(text: str, ev: Mapping[str, Any], stem: str) -> bool:
    _, _, a, b, _ = concordance.reading(text)
    r = ev.get(f"r:{a}~{b}")
    return r is not None and concordance.holds(text, float(r), concordance.grades(stem))


def _sleep(text: str, ev: Mapping[str, Any], stem: str) -> bool:
    cut = re.search(r"exceeds the cohort median of ([\d.,]+) min", stem)
    length, eff, reg = ev["sleep_minutes_pct"], ev["sleep_efficiency_pct"], ev["regularity_mean"]
    if cut is None or length is None or eff is None or reg is None:
        return False
    word = "reduced" if length < 25 else "lengthy" if length > 75 else "typical"
    return text == sleep_phenotype.phenotype(word, eff < 25, reg > number(cut.group(1)))


def _activity(text: str, ev: Mapping[str, Any], stem: str) -> bool:
    pct, recent, usual = ev["steps_pct"], ev["window_median"], ev["history_median"]
    share = re.search(r"differs by more than (\d+)%", stem)
    if pct is None or recent is None or not usual or share is None:
        return False
    quarter = sum(pct >= c for c in (25, 50, 75))
    rel = activity_recommendation.relation(recent, usual, int(share.group(1)) / 100)
    return activity_recommendation.holds(text, quarter, rel)


def _fitness(text: str, ev: Mapping[str, Any], stem: str) -> bool:
    """Quartile band of the VO2max among the cuts the stem states, its prognosis, the CI-read trend."""
    if None in (ev["vo2max"], ev["lo"], ev["hi"]):
        return False
    m = re.search(r"P25 = ([\d.,]+), P50 = ([\d.,]+), P75 = ([\d.,]+) mL/kg/min", stem)
    if m is None or fitness_prediction.RULE not in stem:
        return False
    cuts = (number(m.group(1)), number(m.group(2)), number(m.group(3)))
    stored = tuple(ev[f"ref_p{q}"] for q in (25, 50, 75))
    if any(abs(a - b) > 0.005 + 1e-9 for a, b in zip(cuts, stored, strict=True)):
        return False  # the stem must print the item's stored reference
    band = fitness_prediction.band(ev["vo2max"], cuts)
    return fitness_prediction.holds(text, band, fitness_prediction.trend_words(ev["lo"], ev["hi"]))


def _cohort(text: str, ev: Mapping[str, Any], stem: str) -> bool:
    """Decile of the evidence band (``<P10`` … ``>P90``) and the stem's reading of it."""
    band = str(ev["band"])
    decile = 0 if band.startswith("<") else 9 if band.startswith(">") else int(band[1:].split("-")[0]) // 10
    return cohort_position.holds(text, decile, stem)


def _blood(text: str, ev: Mapping[str, Any], stem: str) -> bool:
    """Biomarker values of the flags judged by the stem's cut-offs; steps percentile vs 50."""
    flags, pct = ev.get("flags") or {}, ev.get("steps_pct")
    keys = ("fasting_glucose", "hba1c", "homa_ir", "triglycerides", "hdl")
    if pct is None or pct == 50.0 or any(k not in flags for k in keys):
        return False
    panel = {k: float(flags[k]["value"]) for k in keys}
    facts = blood_state.facts(panel, str(ev["sex"]), pct > 50.0, blood_state.cuts(stem))
    return blood_state.holds(text, facts)


def _strain_state(ev: Mapping[str, Any], stem: str, judge_rhr: bool) -> _strain.State | None:
    rules = _strain.rules(stem)
    if ev["rhr_high"] is None or ev["rhr_low"] is None:
        return None
    high, low = float(ev["rhr_high"]), float(ev["rhr_low"])
    rhr = "up" if high >= rules.k_rhr else "under" if low <= -rules.k_rhr else "steady"
    if not judge_rhr and rhr != "up":  # differential_rhr: the stem's premise must hold
        return None
    z = {k[2:]: float(v) for k, v in ev.items() if k.startswith("z_") and v is not None}
    return _strain.State(rhr if judge_rhr else None, z)


def _acute(text: str, ev: Mapping[str, Any], stem: str) -> bool:
    state = _strain_state(ev, stem, judge_rhr=True)
    return state is not None and _strain.holds(text, state, _strain.rules(stem).t_co)


def _differential(text: str, ev: Mapping[str, Any], stem: str) -> bool:
    state = _strain_state(ev, stem, judge_rhr=False)
    return state is not None and _strain.holds(text, state, _strain.rules(stem).t_co)


CHECKERS: Mapping[str, Checker] = {
    "activity_recommendation": _activity,
    "acute_strain": _acute,
    "anomaly": _anomaly,
    "blood_state": _blood,
    "cohort_position": _cohort,
    "concordance": _concordance,
    "conditional_effect": _conditional,
    "coupling_lag": _coupling,
    "differential_rhr": _differential,
    "excursion_count": _excursions,
    "fitness_prediction": _fitness,
    "period_comparison": _period,
    "recovery_time": _recovery,
    "sleep_phenotype": _sleep,
    "strongest_pair": _strongest,
    "trend": _trend,
}


def true_options(item: Item) -> list[str]:
    """Letters whose option text the type's checker finds true (KeyError: no checker)."""
    check = CHECKERS[item.type]
    return [k for k in sorted(item.options) if check(item.options[k], item.evidence, item.question)]
