"""Blood state from the latest panel, read together with habitual activity (health · cross · history).

Evidence: ``threshold_flags`` on the latest draw on or before the end date (fasting glucose,
HbA1c, triglycerides, HDL with the sex-specific cut-off, HOMA-IR computed by ``homa_ir``) and
the percentile rank of the user's 28-day median daily steps among the cohort reference
percentiles of their age band and sex (``percentile_rank``).

The state has four parts, each decided by the flags alone:

- glycaemia: the worse of the fasting-glucose and HbA1c categories (normal, prediabetes,
  diabetes; ADA Standards of Care cut-offs in ``cutoffs.json``);
- insulin resistance: the HOMA-IR flag;
- lipids: normal, isolated high triglycerides (any flagged TG band), isolated low HDL, or both
  (atherogenic dyslipidaemia; NCEP ATP III cut-offs);
- activity (the cross-signal part): steps below or above the reference median (P50) of the
  user's age band and sex. Crossing the panel with activity makes ten distinct options possible
  for every panel and lets one draw serve several windows.

Options are the correct state and nine other states (each a misreading of at least one flag),
drawn from all 47 others with weights :func:`answer_weight` (a documented table of how often
each state is the answer, so every state is shown about ten times as often as it is correct),
written in one template whose slots are single words (only the glycaemia word varies in
length). The stem states every cut-off with its number (:func:`cutoff_text`, read from the
cut-off table), so the state is derivable from the prompt alone. Windows whose state is one of
the commonest answers are thinned at random (:attr:`BloodState.keep`, seeded by the item's ``rng``).
Dead-bands:
a panel is dropped when moving any biomarker by a small analytical margin (glucose 2 mg/dL,
HbA1c 0.05 %, TG 3 mg/dL, HDL 1 mg/dL, HOMA-IR 0.1) would change its part of the state; a
window is dropped when the steps percentile lies within 5 percentile points of the median.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from wearbench._labels import Labels
from wearbench.cohort import UserContext
from wearbench.primitives import cutoff_tables, homa_ir, threshold_flags
from wearbench.questions._graph import Graph, Ref
from wearbench.questions._helpers import require_coverage, weighted_sample
from wearbench.questions._helpers import thin as thin_answer
from wearbench.questions._qtype import CohortPool, Draft, Drop, Option, QuestionType, question, table

CARD = "prediabetes_cardiometabolic_risk"
PANEL = ("fasting_glucose", "hba1c", "insulin", "triglycerides", "hdl", "ldl", "total_cholesterol")
#: Biomarkers whose categories make up the blood part of the state.
STATE_MARKERS = ("fasting_glucose", "hba1c", "triglycerides", "hdl", "homa_ir")
STEP_DAYS = 56  # spacing of candidate end dates after a draw
ENDS_PER_DRAW = 4
GLYCAEMIA = ("normal", "prediabetes", "diabetes")
LIPIDS = ("normal", "high_tg", "low_hdl", "atherogenic")
ACTIVITY = ("lower", "higher")

#: Option wording: every slot's alternatives are single words of one length class, no negation
#: or hedge words; the stem names every alternative of every slot (:func:`cutoff_text`), so no
#: option shares more words with it than another and the text alone does not single out any state.
#: Single draws give range statements, never diagnoses (the card: one draw does not diagnose).
_GLYC_TEXT = {"normal": "normal", "prediabetes": "prediabetes", "diabetes": "diabetes"}
_IR_TEXT = {False: "insulin-sensitive", True: "insulin-resistant"}
_TG_TEXT = {False: "typical", True: "raised"}  # not "normal": the glycaemia slot may say it
_HDL_TEXT = {False: "healthy", True: "reduced"}
_ACT_TEXT = {"lower": "below", "higher": "above"}


def state_from_flags(flags: Mapping[str, Any]) -> dict[str, Any] | None:
    """The blood part of the state from JSON flags (``category`` per biomarker), or None if undefined."""
    cats = {k: (flags.get(k) or {}).get("category") for k in STATE_MARKERS}
    if any(c in (None, "missing", "undefined") for c in cats.values()):
        return None
    glyc = max(GLYCAEMIA.index(str(cats["fasting_glucose"])), GLYCAEMIA.index(str(cats["hba1c"])))
    high_tg, low_hdl = cats["triglycerides"] != "normal", cats["hdl"] == "low"
    lipids = (
        "atherogenic" if high_tg and low_hdl else "high_tg" if high_tg else "low_hdl" if low_hdl else "normal"
    )
    return {
        "glycaemia": GLYCAEMIA[glyc],
        "insulin_resistance": cats["homa_ir"] == "insulin_resistant",
        "lipids": lipids,
    }


def _blood_part(panel: Mapping[str, float], sex: str) -> dict[str, Any] | None:
    flags = threshold_flags(panel, sex="F" if sex == "F" else "M")
    return state_from_flags({k: {"category": f.category} for k, f in flags.items()})


def blood_state_of(panel: Mapping[str, float], sex: str) -> dict[str, Any] | None:
    """The blood part of the state of one draw (HOMA-IR computed from glucose and insulin)."""
    homa = homa_ir(panel["fasting_glucose"], panel["insulin"])
    return _blood_part({**panel, "homa_ir": float(homa)}, sex)


def knife_edge(panel: Mapping[str, float], sex: str, margins: Mapping[str, float]) -> bool:
    """Whether nudging any biomarker by its margin changes the blood part of the state.

    Args:
        panel: Biomarker → value (canonical units), HOMA-IR included.
        sex: ``"F"`` or ``"M"`` (the HDL cut-off is sex-specific).
        margins: Biomarker → analytical margin, in the biomarker's canonical units.
    """
    base = _blood_part(panel, sex)
    for marker, margin in margins.items():
        for sign in (-1.0, 1.0):
            moved = dict(panel)
            moved[marker] = panel[marker] + sign * margin
            if _blood_part(moved, sex) != base:
                return True
    return False


def _lower(biomarker: str, category: str, sex: str | None = None) -> str:
    """Inclusive lower bound of ``category`` in the default cut-off table, as printed in the stem.

    ``sex`` picks the sex-specific bands (``"F"``/``"M"``); None takes the one set of bands.
    """
    bands = cutoff_tables()["default"][biomarker].bands
    chosen = bands[sex] if sex is not None else next(iter(bands.values()))
    band = next(b for b in chosen if b.category == category)
    if band.lower is None or not band.lower_inclusive:
        raise ValueError(f"cutoffs.json: {biomarker} {category}: no inclusive lower bound to state")
    return f"{band.lower:g}"


def cutoff_text() -> str:
    """The stem's statement of every cut-off the state uses, read from the default cut-off table.

    Each option slot's alternatives all appear here (or none does), so no option shares more
    words with the stem than another (the shortcut audit's ``stem_overlap`` stays constant).
    """
    glu = (_lower("fasting_glucose", "prediabetes"), _lower("fasting_glucose", "diabetes"))
    a1c = (_lower("hba1c", "prediabetes"), _lower("hba1c", "diabetes"))
    homa, tg = _lower("homa_ir", "insulin_resistant"), _lower("triglycerides", "borderline_high")
    hdl = {sex: _lower("hdl", "normal", sex) for sex in ("M", "F")}
    return (
        "One draw gives ranges, not a diagnosis. Glycaemia is the worse of the fasting-glucose range "
        f"(normal under {glu[0]} mg/dL, prediabetes from {glu[0]} mg/dL, diabetes from {glu[1]} mg/dL) "
        f"and the HbA1c range (normal under {a1c[0]} %, prediabetes from {a1c[0]} %, diabetes from "
        f"{a1c[1]} %) (ADA). HOMA-IR = glucose × insulin / 405 is insulin-sensitive under {homa} and "
        f"insulin-resistant from {homa}. Triglycerides are typical under {tg} mg/dL and raised from "
        f"{tg} mg/dL; HDL is healthy from {hdl['M']} mg/dL in men and {hdl['F']} mg/dL in women and "
        "reduced under that (NCEP ATP III)."
    )


def describe(state: Mapping[str, Any]) -> str:
    """Option text of a state (one fixed template; each slot is one word of one length class)."""
    lipids = state["lipids"]
    high_tg, low_hdl = lipids in ("high_tg", "atherogenic"), lipids in ("low_hdl", "atherogenic")
    ir = _IR_TEXT[bool(state["insulin_resistance"])]
    return (
        f"Steps {_ACT_TEXT[state['activity']]} the peer median; on this draw glycaemia in the "
        f"{_GLYC_TEXT[state['glycaemia']]} range, HOMA-IR in the {ir} range, {_TG_TEXT[high_tg]} "
        f"triglycerides, {_HDL_TEXT[low_hdl]} HDL"
    )


def _key(state: Mapping[str, Any]) -> tuple[str, bool, str, str]:
    return (state["glycaemia"], bool(state["insulin_resistance"]), state["lipids"], state["activity"])


#: Answer counts per state (after :attr:`BloodState.keep`), measured on full builds of
#: ``wearbench.synth(200, 500, seed=s)`` for seeds 0 and 1 (summed; states never seen are 0).
#: Distractors are drawn with these weights (plus one), so that a state is shown roughly in
#: proportion to how often it is the answer: P(correct | shown) is near chance for every
#: wording, and the text prior of the shortcut audit has no class to learn. A class prior is
#: only exploitable when a common answer is shown less often than it is correct.
ANSWER_COUNTS: dict[tuple[str, bool, str, str], float] = {
    ("diabetes", True, "atherogenic", "higher"): 1,
    ("diabetes", True, "atherogenic", "lower"): 30,
    ("diabetes", True, "high_tg", "lower"): 24,
    ("diabetes", True, "low_hdl", "lower"): 2,
    ("diabetes", True, "normal", "higher"): 5,
    ("diabetes", True, "normal", "lower"): 3,
    ("normal", False, "atherogenic", "lower"): 8,
    ("normal", False, "high_tg", "higher"): 22,
    ("normal", False, "high_tg", "lower"): 23,
    ("normal", False, "low_hdl", "higher"): 14,
    ("normal", False, "low_hdl", "lower"): 11,
    ("normal", False, "normal", "higher"): 40,
    ("normal", False, "normal", "lower"): 48,
    ("normal", True, "atherogenic", "higher"): 1,
    ("normal", True, "atherogenic", "lower"): 5,
    ("normal", True, "high_tg", "higher"): 10,
    ("normal", True, "high_tg", "lower"): 12,
    ("normal", True, "low_hdl", "higher"): 3,
    ("normal", True, "low_hdl", "lower"): 4,
    ("normal", True, "normal", "higher"): 13,
    ("normal", True, "normal", "lower"): 25,
    ("prediabetes", False, "atherogenic", "lower"): 6,
    ("prediabetes", False, "high_tg", "higher"): 1,
    ("prediabetes", False, "high_tg", "lower"): 2,
    ("prediabetes", False, "low_hdl", "lower"): 4,
    ("prediabetes", False, "normal", "higher"): 28,
    ("prediabetes", False, "normal", "lower"): 31,
    ("prediabetes", True, "atherogenic", "higher"): 9,
    ("prediabetes", True, "atherogenic", "lower"): 55,
    ("prediabetes", True, "high_tg", "higher"): 26,
    ("prediabetes", True, "high_tg", "lower"): 42,
    ("prediabetes", True, "low_hdl", "higher"): 1,
    ("prediabetes", True, "low_hdl", "lower"): 5,
    ("prediabetes", True, "normal", "higher"): 28,
    ("prediabetes", True, "normal", "lower"): 27,
}


def answer_weight(state: Mapping[str, Any]) -> float:
    """Distractor weight of a state: its measured answer count plus one."""
    return ANSWER_COUNTS.get(_key(state), 0.0) + 1.0


def thin(
    state: Mapping[str, Any], keep: Mapping[tuple[str, bool, str, str], float], rng: np.random.Generator
) -> None:
    """Drop a share ``1 − keep[state]`` of the windows whose answer is ``state`` (seeded by ``rng``)."""
    thin_answer(_key(state), keep, rng)


def _all_states() -> list[dict[str, Any]]:
    return [
        {"glycaemia": g, "insulin_resistance": ir, "lipids": lp, "activity": a}
        for g in GLYCAEMIA
        for ir in (False, True)
        for lp in LIPIDS
        for a in ACTIVITY
    ]


@question()
@dataclass(frozen=True)
class BloodState(QuestionType):
    """Cardiometabolic blood state (glycaemia, insulin resistance, lipids) crossed with activity level.

    Attributes:
        keep: Share of windows kept per state (the rest are dropped, so the next candidate end
            is tried): all-normal panels are ~40 % of raw answers; no state should be far above
            a tenth of a type's answers, since one shown in every item yet correct more often
            than one time in ten is a class prior no choice of distractors can hide.
        margins: Biomarker → analytical margin of the knife-edge dead-band (canonical units:
            mg/dL, HbA1c in %, HOMA-IR unitless): a panel whose state changes when one
            biomarker moves by its margin is dropped.
        activity_dead_band: Dead-band around the reference P50 of median daily steps
            (percentile points).
    """

    keep: Mapping[tuple[str, bool, str, str], float] = table(
        {
            ("normal", False, "normal", "lower"): 0.3,
            ("normal", False, "normal", "higher"): 0.11,
            ("prediabetes", True, "high_tg", "lower"): 0.6,
        }
    )
    margins: Mapping[str, float] = table(
        {"fasting_glucose": 2.0, "hba1c": 0.05, "triglycerides": 3.0, "hdl": 1.0, "homa_ir": 0.1}
    )
    activity_dead_band: float = 5.0

    name = "blood_state"
    version = 5
    labels = Labels("health", "cross", "literature", "history")
    max_per_user = 8  # more windows per draw make up for the thinned all-normal panels

    def end_dates(self, ctx: UserContext) -> list[int]:
        """Ends every 56 days from each draw (before the next one), round-robin, latest draw first."""
        draw_idx = sorted(
            {int((np.datetime64(str(b["draw_date"]), "D") - ctx.dates[0]).astype(int)) for b in ctx.blood}
        )
        per_draw: list[list[int]] = []
        for i, d in enumerate(draw_idx):
            stop = draw_idx[i + 1] if i + 1 < len(draw_idx) else ctx.n_days
            ends = [d + k * STEP_DAYS for k in range(ENDS_PER_DRAW)]
            per_draw.append([e for e in ends if self.min_history - 1 <= e < min(stop, ctx.n_days)])
        per_draw.reverse()
        return [lst[k] for k in range(ENDS_PER_DRAW) for lst in per_draw if k < len(lst)]

    def make(self, ctx: UserContext, end: int, rng: np.random.Generator, pool: CohortPool) -> Draft:
        """Flag the latest panel, rank the window's median steps, and pose the ten states."""
        g = Graph(ctx, str(ctx.dates[end]))
        sex = g.demographic("sex")
        if sex.value not in ("F", "M"):
            raise Drop("sex unknown (HDL cut-off is sex-specific)")
        refs = {m: g.blood(m) for m in PANEL}
        panel = {m: float(r.value) for m, r in refs.items()}
        if any(np.isnan(panel[m]) for m in ("fasting_glucose", "hba1c", "insulin", "triglycerides", "hdl")):
            raise Drop("no blood draw on or before the end date, or a needed biomarker missing")
        homa = g.call("homa_ir", refs["fasting_glucose"], refs["insulin"])
        flags = g.call("threshold_flags", {**refs, "homa_ir": homa}, sex=str(sex.value))
        g.output("flags", flags)
        g.output("sex", sex)
        if knife_edge({**panel, "homa_ir": float(homa.value)}, str(sex.value), self.margins):
            raise Drop("a biomarker within the dead-band of a clinical cut-off")
        pct = self._activity(g)
        if abs(pct - 50.0) <= self.activity_dead_band:
            raise Drop("steps within the dead-band of the reference median")
        evidence = g.evidence()
        states = _all_states()
        correct_state = next(s for s in states if self.check(s, evidence))
        thin(correct_state, self.keep, rng)
        others = [s for s in states if s is not correct_state]
        picked = weighted_sample(others, [answer_weight(s) for s in others], 9, rng)
        distractors = tuple(Option(describe(s), s) for s in picked)
        text = (
            f"Using this user's latest blood panel (drawn on or before {g.end_date}) and their median "
            f"daily steps over the 28 days ending {g.end_date} compared with (above or below) the median "
            f"(P50) of the reference percentiles of their age band and sex, which description fits best? "
            f"{cutoff_text()}"
        )
        return Draft(
            text,
            Option(describe(correct_state), correct_state),
            distractors,
            g,
            ("steps",),
            grounding_ref=CARD,
        )

    def _activity(self, g: Graph) -> float:
        steps = g.series("steps", self.window_days)
        require_coverage(steps.value, 0.7, "steps")
        ref = g.reference("steps")
        if 50 not in ref.value:
            raise Drop("no reference percentiles for steps")
        median: Ref = g.call("nan_stat", steps, stat="median")
        pct = g.output("steps_pct", g.call("percentile_rank", median, ref))
        g.output("steps_median", median)
        return float(pct.value)

    @staticmethod
    def check(claim: Mapping[str, Any], evidence: Mapping[str, Any]) -> bool:
        """Every part of the claimed state matches the one derived from the flags and the steps percentile."""
        state = state_from_flags(evidence.get("flags") or {})
        pct = evidence.get("steps_pct")
        if state is None or pct is None or pct == 50.0:
            return False
        state["activity"] = "higher" if pct > 50.0 else "lower"
        return all(claim.get(k) == v for k, v in state.items())
