"""Multiple daily injections: long-acting basal insulin plus rapid-acting meal boluses."""

from __future__ import annotations

from typing import Literal

import numpy as np

from wearbench.sim.controller._base import Controller, ControllerAction
from wearbench.sim.controller._insulin import long_acting_rate, rule_1800_isf
from wearbench.sim.patient import PatientParams
from wearbench.sim.patient._params import FloatArray

_DAY = 1440


class MDIController(Controller):
    """Injection therapy: long-acting insulin once or twice a day, carb-counted meal boluses.

    * Long-acting: the daily dose is ``basal_rate * 1440 * basal_scale`` (U), split equally over
      the injections at ``injection_hours`` (hours of the day, minute 0 being midnight) and
      optionally rounded to the pen's ``basal_increment``. Each dose is absorbed with the
      glargine-like profile of :func:`~wearbench.sim.controller._insulin.long_acting_rate`; the
      absorption is returned as ``basal`` (U/min) and the dose itself as ``long_acting`` (U) in
      the minute of injection. The run starts at steady state: the injections of the 3 previous
      days are counted, so with equally spaced injections (and no rounding) the absorption equals
      the basal need ``basal_rate`` at every minute.
    * Meal bolus, when carbs are announced: ``carbs / CR`` plus a correction
      ``(g - target) / ISF`` from the glucose the CGM trend points to, ``g = cgm + trend_minutes *
      slope`` (``slope``: the more negative of the last 5-minute change and the 15-minute mean,
      mg/dL/min; the trend-arrow dose adjustment of Pettus & Edelman 2017, J Diabetes Sci Technol
      11:138, and Aleppo et al. 2017, J Endocr Soc 1:1445). The correction is added when ``cgm``
      is above ``correction_threshold`` and the last bolus was ``correction_gap`` minutes ago or
      more, and it reduces the bolus whenever ``g`` is below target (``reduce_below_target``, as
      bolus calculators do). The bolus is never negative and is rounded down to the pen's
      ``bolus_increment``. No correction between meals, no insulin-on-board accounting, no
      automatic adjustment.

    Args:
        injection_hours: Hours of the day of the long-acting injections (22.0 = 22:00).
        basal_scale: Daily long-acting dose as a fraction of the patient's basal need.
        onset: Onset time constant of the long-acting absorption (min).
        duration: Duration of the flat long-acting release (min).
        basal_increment: Pen increment for long-acting doses (U), 0 for none.
        bolus_increment: Pen increment for meal boluses (U), 0 for none.
        target: Glucose target of the meal-time correction (mg/dL).
        correction_threshold: CGM above which the meal bolus includes a correction (mg/dL).
        correction_gap: Minutes after a bolus during which meal boluses include no correction.
        isf: Correction factor: ``"quest"`` (the patient's ``CF``) or ``"1800"``
            (:func:`~wearbench.sim.controller._insulin.rule_1800_isf`).
        trend_minutes: Minutes ahead the CGM trend is extrapolated for the correction; 0 for none
            (the CGM now).
        reduce_below_target: Whether a glucose below target reduces the meal bolus.
    """

    def __init__(
        self,
        injection_hours: tuple[float, ...] = (22.0,),
        basal_scale: float = 1.0,
        onset: float = 54.0,
        duration: float = 1440.0,
        basal_increment: float = 0.0,
        bolus_increment: float = 0.5,
        target: float = 140.0,
        correction_threshold: float = 150.0,
        correction_gap: int = 180,
        isf: Literal["quest", "1800"] = "1800",
        trend_minutes: float = 30.0,
        reduce_below_target: bool = True,
    ) -> None:
        self.injection_hours = injection_hours
        self.basal_scale = basal_scale
        self.onset = onset
        self.duration = duration
        self.basal_increment = basal_increment
        self.bolus_increment = bolus_increment
        self.target = target
        self.correction_threshold = correction_threshold
        self.correction_gap = correction_gap
        self.isf = isf
        self.trend_minutes, self.reduce_below_target = trend_minutes, reduce_below_target
        self._bgs = np.zeros((0, 4))
        self._last_bolus = np.zeros(0)
        self._params: PatientParams | None = None
        self._dose = np.zeros(0)
        self._times: tuple[int, ...] = ()

    def reset(self, params: PatientParams) -> None:
        if not self.injection_hours or any(not 0 <= h < 24 for h in self.injection_hours):
            raise ValueError(f"injection_hours must be hours in [0, 24), got {self.injection_hours}")
        self._params = params
        self._times = tuple(sorted(round(h * 60) % _DAY for h in self.injection_hours))
        dose = params.basal_rate * _DAY * self.basal_scale / len(self._times)
        self._dose = _round_to(dose, self.basal_increment)
        self._last_bolus = np.full(params.n_patients, -np.inf)
        self._bgs = np.full((params.n_patients, 4), np.nan)  # CGM now, 5, 10, 15 min ago

    def absorption(self, minute: int) -> FloatArray:
        """Long-acting absorption (U/min) at ``minute``, counting injections since 3 days before."""
        day = minute // _DAY
        starts = np.add.outer(np.arange(day - 3, day + 1) * _DAY, np.asarray(self._times)).ravel()
        since = (minute - starts)[starts <= minute].astype(np.float64)
        return self._dose * float(long_acting_rate(since, self.onset, self.duration).sum())

    def trend(self, cgm: FloatArray) -> FloatArray:
        """Glucose the CGM trend points to ``trend_minutes`` ahead (mg/dL); ``cgm`` without history."""
        bgs = np.where(np.isnan(self._bgs), cgm[:, None], self._bgs)
        slope = np.minimum(bgs[:, 0] - bgs[:, 1], (bgs[:, 0] - bgs[:, 3]) / 3) / 5
        return np.asarray(cgm + self.trend_minutes * slope)

    def policy(self, cgm: FloatArray, carbs: FloatArray, minute: int) -> ControllerAction:
        p = self._params
        if p is None:
            raise RuntimeError("MDIController.reset(params) must be called before policy()")
        injected = self._dose if minute % _DAY in self._times else np.zeros_like(self._dose)
        if minute % 5 == 0:
            self._bgs = np.column_stack([cgm, self._bgs[:, :-1]])
        due = (cgm > self.correction_threshold) & (minute - self._last_bolus >= self.correction_gap)
        isf = p.CF if self.isf == "quest" else rule_1800_isf(p.basal_rate)
        over = (self.trend(cgm) - self.target) / isf
        correction = np.where(due | (self.reduce_below_target & (over < 0)), over, 0.0)
        bolus = np.where(
            carbs > 0, _round_to(np.maximum(carbs / p.CR + correction, 0.0), self.bolus_increment), 0.0
        )
        self._last_bolus = np.where(bolus > 0, float(minute), self._last_bolus)
        return ControllerAction(basal=self.absorption(minute), bolus=bolus, long_acting=injected)


def _round_to(units: FloatArray, increment: float) -> FloatArray:
    """``units`` rounded down to a multiple of ``increment`` (unchanged when it is 0)."""
    return units if increment <= 0 else np.floor(units / increment + 1e-9) * increment
