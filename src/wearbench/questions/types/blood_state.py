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

Options are the correct state and nine other states drawn uniformly from the 47 remaining
combinations (each one a misreading of at least one flag). Dead-bands: a panel is dropped when
moving any biomarker by a small analytical margin (glucose 2 mg/dL, HbA1c 0.05 %, TG 3 mg/dL,
HDL 1 mg/dL, HOMA-IR 0.1) would change its part of the state; a window is dropped when the
steps percentile lies within 5 percentile points of the median.
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

_GLYC_TEXT = {
    "normal": "Normoglycaemic",
    "prediabetes": "Prediabetic-range glycaemia",
    "diabetes": "Diabetic-range glycaemia",
}
_LIPID_TEXT = {
    "normal": "normal triglycerides and HDL",
    "high_tg": "isolated high triglycerides",
    "low_hdl": "isolated low HDL cholesterol",
    "atherogenic": "atherogenic dyslipidaemia (high triglycerides, low HDL)",
}
_ACT_TEXT = {
    "lower": "habitual daily steps below the median of peers of the same age band and sex",
    "higher": "habitual daily steps above the median of peers of the same age band and sex",
}


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
    """Option text of a state."""
    ir = "with insulin resistance" if state["insulin_resistance"] else "without insulin resistance"
    return (
        f"{_GLYC_TEXT[state['glycaemia']]} {ir}, {_LIPID_TEXT[state['lipids']]}; "
        f"{_ACT_TEXT[state['activity']]}"
    )


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
    version = 1
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
        others = [s for s in states if s is not correct_state]
        picks = rng.choice(len(others), 9, replace=False)
        distractors = tuple(Option(describe(others[int(i)]), others[int(i)]) for i in picks)
        text = (
            f"Using this user's latest blood panel (drawn on or before {g.end_date}; ADA glycaemic and "
            f"NCEP ATP III lipid cut-offs, HDL by sex, HOMA-IR = glucose × insulin / 405 with 2.5 as the "
            f"insulin-resistance threshold) and their daily steps over the 28 days ending {g.end_date} "
            f"compared with the reference percentiles of their age band and sex, which description fits best?"
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
