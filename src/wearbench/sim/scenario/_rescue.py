"""Hypoglycaemia self-treatment ("rescue carbs"): the person eats fast carbs when low.

The rule (``docs/cgm-healthloopqa.md``, "Hypoglycaemia treatment"): eat ``grams`` of fast
carbohydrate when the CGM's urgent-low alarm sounds (the displayed reading is at or below
``alarm_mg_dl``, Dexcom G6's fixed urgent-low alarm at 55 mg/dL) and a fingerstick confirms it
(plasma glucose below ``confirm_mg_dl``: ADA Standards of Care, section 7, advise checking with a
meter when CGM readings and symptoms disagree, so a faulty sensor alone does not make the person
eat), or when plasma glucose is below
``symptom_mg_dl`` (level-2 hypoglycaemia, < 54 mg/dL, which a person feels even when the CGM shows
nothing or shows wrongly), then wait ``recheck_min`` minutes before treating again (the "rule of
15" of the ADA Standards of Care, section 6). Rescue carbs are eaten, not announced: the
controller is not told of them (no bolus for a hypo treatment). The rule is deterministic.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from wearbench._errors import WearbenchError
from wearbench.sim.patient._params import FloatArray

HYPO_TREATMENT = "hypo_treatment"
"""``meal_type`` of the carbs eaten to treat a low in a simulated folder's events (not a meal)."""


@dataclass(frozen=True)
class RescueCarbs:
    """When and how much a person eats to treat a low (see the module docstring).

    Attributes:
        grams: Fast carbohydrate eaten per treatment (g), in one minute.
        alarm_mg_dl: Urgent-low alarm: treat when the displayed CGM is at or below this (mg/dL).
        confirm_mg_dl: An alarm is acted on only if plasma glucose (the fingerstick) is below
            this (mg/dL); ``None`` acts on every alarm.
        symptom_mg_dl: Symptoms: treat when plasma glucose is below this (mg/dL).
        recheck_min: Minutes to wait after a treatment before the next one.
    """

    grams: float = 15.0
    alarm_mg_dl: float = 55.0
    confirm_mg_dl: float | None = 70.0
    symptom_mg_dl: float = 54.0
    recheck_min: int = 15

    def __post_init__(self) -> None:
        values = (self.grams, self.alarm_mg_dl, self.symptom_mg_dl, self.confirm_mg_dl or 0.0)
        if not all(math.isfinite(v) for v in values) or self.grams <= 0 or self.recheck_min < 1:
            raise WearbenchError(
                f"RescueCarbs needs finite thresholds, grams > 0 and recheck_min >= 1, got {self}"
            )

    def stage(self, n_patients: int) -> RescueTreatment:
        """A fresh treatment stage for ``n_patients`` patients (no treatment yet)."""
        return RescueTreatment(self, n_patients)


class RescueTreatment:
    """The rule of :class:`RescueCarbs` applied minute by minute, with its per-patient state.

    Args:
        rule: The rule.
        n_patients: Patients in the run.

    Attributes:
        last: Minute of each patient's last treatment, shape ``(P,)`` (``-inf`` before the first).
    """

    def __init__(self, rule: RescueCarbs, n_patients: int) -> None:
        self.rule = rule
        self.last: FloatArray = np.full(n_patients, -np.inf)

    def treat(self, minute: int, shown: FloatArray, true_bg: FloatArray) -> FloatArray:
        """Carbs (g) each patient eats at ``minute`` as treatment, shape ``(P,)``.

        Args:
            minute: The minute.
            shown: The displayed CGM (mg/dL; NaN while missing: no alarm).
            true_bg: Plasma glucose (mg/dL).
        """
        r = self.rule
        alarm = shown <= r.alarm_mg_dl
        if r.confirm_mg_dl is not None:
            alarm &= true_bg < r.confirm_mg_dl
        low = alarm | (true_bg < r.symptom_mg_dl)
        due = low & (minute - self.last >= r.recheck_min)
        self.last = np.where(due, float(minute), self.last)
        return np.where(due, r.grams, 0.0)
