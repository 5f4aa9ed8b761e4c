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
drawn with weights :func:`state_prior` (so common states are shown about as often as they are
the answer) from the remaining combinations whose glycaemia word has the same length as the
correct one's (euglycaemic/prediabetic vs diabetic), written in one template whose slots are
single words of one length, so that no text feature singles out the correct state. Dead-bands:
a panel is dropped when moving any biomarker by a small analytical margin (glucose 2 mg/dL,
HbA1c 0.05 %, TG 3 mg/dL, HDL 1 mg/dL, HOMA-IR 0.1) would change its part of the state; a
window is dropped when the steps percentile lies within 5 percentile points of the median.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from wearbench.primitives import threshold_flags
from wearbench.questions._context import UserContext
from wearbench.questions._graph import Graph, Ref
from wearbench.questions._helpers import require_coverage
from wearbench.questions._labels import Labels
from wearbench.questions._qtype import CohortPool, Draft, Drop, Option, QuestionType, question

CARD = "prediabetes_cardiometabolic_risk"
PANEL = ("fasting_glucose", "hba1c", "insulin", "triglycerides", "hdl", "ldl", "total_cholesterol")
#: Biomarker → analytical margin (canonical units) of the knife-edge dead-band.
MARGINS = {"fasting_glucose": 2.0, "hba1c": 0.05, "triglycerides": 3.0, "hdl": 1.0, "homa_ir": 0.1}
ACTIVITY_DEAD_BAND = 5.0  # percentile points around P50
STEP_DAYS = 56  # spacing of candidate end dates after a draw
ENDS_PER_DRAW = 4
GLYCAEMIA = ("normal", "prediabetes", "diabetes")
LIPIDS = ("normal", "high_tg", "low_hdl", "atherogenic")
ACTIVITY = ("lower", "higher")

#: Option wording: every slot's alternatives are single words of one length class, no negation
#: or hedge words, none shared with the stem, so the text alone does not single out any state.
_GLYC_TEXT = {"normal": "Euglycaemic", "prediabetes": "Prediabetic", "diabetes": "Diabetic"}
_IR_TEXT = {False: "insulin-sensitive", True: "insulin-resistant"}
_TG_TEXT = {False: "normal", True: "raised"}
_HDL_TEXT = {False: "healthy", True: "reduced"}
_ACT_TEXT = {"lower": "below", "higher": "above"}


def state_from_flags(flags: Mapping[str, Any]) -> dict[str, Any] | None:
    """The blood part of the state from JSON flags (``category`` per biomarker), or None if undefined."""
    cats = {k: (flags.get(k) or {}).get("category") for k in MARGINS}
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


def knife_edge(panel: Mapping[str, float], sex: str) -> bool:
    """Whether nudging any biomarker by its margin changes the blood part of the state."""
    base = _blood_part(panel, sex)
    for marker, margin in MARGINS.items():
        for sign in (-1.0, 1.0):
            moved = dict(panel)
            moved[marker] = panel[marker] + sign * margin
            if _blood_part(moved, sex) != base:
                return True
    return False


def describe(state: Mapping[str, Any]) -> str:
    """Option text of a state (one fixed template; each slot is one word of one length class)."""
    lipids = state["lipids"]
    high_tg, low_hdl = lipids in ("high_tg", "atherogenic"), lipids in ("low_hdl", "atherogenic")
    return (
        f"Steps {_ACT_TEXT[state['activity']]} the peer median; {_GLYC_TEXT[state['glycaemia']].lower()}, "
        f"{_IR_TEXT[bool(state['insulin_resistance'])]}, {_TG_TEXT[high_tg]} triglycerides, "
        f"{_HDL_TEXT[low_hdl]} HDL"
    )


#: A two-phenotype prior of the state (metabolically healthy vs metabolic-syndrome-like, half of
#: adults each; within each, the parts independent), used only to pick distractors so that common
#: states are shown about as often as they are the answer. Abnormal parts cluster, which a single
#: product of prevalences would miss.
PHENOTYPES: tuple[dict[str, dict[Any, float]], ...] = (
    {
        "glycaemia": {"normal": 0.8, "prediabetes": 0.18, "diabetes": 0.02},
        "insulin_resistance": {False: 0.85, True: 0.15},
        "lipids": {"normal": 0.75, "high_tg": 0.12, "low_hdl": 0.08, "atherogenic": 0.05},
        "activity": {"lower": 0.4, "higher": 0.6},
    },
    {
        "glycaemia": {"normal": 0.25, "prediabetes": 0.55, "diabetes": 0.2},
        "insulin_resistance": {False: 0.15, True: 0.85},
        "lipids": {"normal": 0.25, "high_tg": 0.3, "low_hdl": 0.1, "atherogenic": 0.35},
        "activity": {"lower": 0.7, "higher": 0.3},
    },
)


def state_prior(state: Mapping[str, Any]) -> float:
    """Prior weight of a state under :data:`PHENOTYPES` (an equal mixture of the two)."""
    return float(np.mean([np.prod([ph[k][state[k]] for k in ph]) for ph in PHENOTYPES]))


def _all_states() -> list[dict[str, Any]]:
    return [
        {"glycaemia": g, "insulin_resistance": ir, "lipids": lp, "activity": a}
        for g in GLYCAEMIA
        for ir in (False, True)
        for lp in LIPIDS
        for a in ACTIVITY
    ]


@question()
class BloodState(QuestionType):
    """Cardiometabolic blood state (glycaemia, insulin resistance, lipids) crossed with activity level."""

    name = "blood_state"
    version = 2
    labels = Labels("health", "cross", "literature", "history")
    max_per_user = 3

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
        if knife_edge({**panel, "homa_ir": float(homa.value)}, str(sex.value)):
            raise Drop("a biomarker within the dead-band of a clinical cut-off")
        pct = self._activity(g)
        if abs(pct - 50.0) <= ACTIVITY_DEAD_BAND:
            raise Drop("steps within the dead-band of the reference median")
        evidence = g.evidence()
        states = _all_states()
        correct_state = next(s for s in states if self.check(s, evidence))
        # Distractors share the correct state's glycaemia length class (the one slot whose words
        # differ in length), so no option stands out by its length.
        size = len(_GLYC_TEXT[correct_state["glycaemia"]])
        others = [s for s in states if s is not correct_state and len(_GLYC_TEXT[s["glycaemia"]]) == size]
        weights = np.array([state_prior(s) for s in others])
        picks = rng.choice(len(others), 9, replace=False, p=weights / weights.sum())
        distractors = tuple(Option(describe(others[int(i)]), others[int(i)]) for i in picks)
        text = (
            f"Using this user's latest blood panel (drawn on or before {g.end_date}; ADA glycaemic and "
            f"NCEP ATP III lipid cut-offs, HDL by sex, HOMA-IR = glucose × insulin / 405 with 2.5 as the "
            f"insulin-resistance threshold) and their median daily steps over the 28 days ending "
            f"{g.end_date} compared with the median (P50) of the reference percentiles of their age band "
            f"and sex, which description fits best?"
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
