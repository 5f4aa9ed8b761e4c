"""Sensor-augmented pump: fixed pump basal, bolus-calculator meal boluses, CGM corrections."""

from __future__ import annotations

from typing import Literal

import numpy as np

from wearbench.sim.controller._base import Controller, ControllerAction
from wearbench.sim.controller._insulin import DoseHistory, exponential_iob, rule_1800_isf
from wearbench.sim.patient import PatientParams
from wearbench.sim.patient._params import FloatArray


class SAPController(Controller):
    """Pump basal at the patient's rate; boluses from a bolus calculator and the displayed CGM.

    Bolus insulin on board (IOB, U) follows the exponential curve of
    :func:`~wearbench.sim.controller._insulin.exponential_iob` (``dia``, ``peak``), counting
    boluses only, as pump bolus calculators do (Zisser et al. 2008, Diabetes Technol Ther 10:441),
    and every bolus the pump reports (:meth:`observe`), not only those it calculated.

    The correction factor ``ISF`` is by default the 1800 rule, not ``CF``: simglucose's ``CF``
    (``Quest.csv``) is 2-4 times smaller, and corrections with it drive some children to the
    model's floor (``docs/cgm-therapies.md``).

    * Meal bolus, when carbs are announced: ``carbs / CR + c`` with the correction
      ``c = max(0, f (cgm - target) / ISF - IOB)`` above target (0 within ``min_gap`` minutes of
      the last bolus, against insulin stacking) and ``c = f (cgm - target) / ISF`` (a reduction)
      below it, ``f`` the ``correction_fraction``; never negative. Insulin on board reduces only
      the correction part.
    * Correction bolus between meals, checked every ``check_every`` minutes: when the CGM is above
      ``correction_threshold``, not lower than ``trend_window`` minutes before (a falling CGM,
      e.g. a post-meal peak on its way down, is not corrected; after the trend-arrow advice of
      Aleppo et al. 2017, J Endocr Soc 1:1445), and the last bolus was at least ``min_gap``
      minutes ago, give
      ``f (cgm - target) / ISF - IOB`` if that is at least ``min_bolus`` U.
    * No automatic change of the basal rate, except the pump's low-glucose suspend: basal 0 while
      the CGM is below ``suspend_below`` (threshold suspend, MiniMed 530G; Bergenstal et al.
      2013, N Engl J Med 369:224) and, checked at every CGM check, while the CGM trend (the more
      negative of the last 5-minute change and the 15-minute mean, per minute) extrapolated
      ``predict_minutes`` ahead is below ``predict_below`` (predictive low-glucose suspend,
      Tandem Basal-IQ: 80 mg/dL in 30 minutes; Forlenza et al. 2018, Diabetes Care 41:2155).

    Args:
        target: Glucose target of corrections (mg/dL).
        correction_threshold: CGM above which a correction bolus between meals is due (mg/dL).
        min_gap: Minutes since the last bolus before a correction bolus is allowed.
        min_bolus: Smallest correction bolus given (U).
        check_every: Minutes between checks of the CGM for a correction.
        dia: Duration of insulin action for IOB (min).
        peak: Peak insulin activity for IOB (min).
        correction_fraction: Fraction of each calculated correction that is given (1 = full).
        isf: Correction factor used for corrections: ``"quest"`` (the patient's ``CF``) or
            ``"1800"`` (:func:`~wearbench.sim.controller._insulin.rule_1800_isf`).
        trend_window: Minutes back over which a correction needs a CGM that is not falling.
        suspend_below: Low-glucose suspend: basal is 0 while the CGM is below this (mg/dL); 0 for
            none.
        predict_below: Predictive suspend: basal is 0 while the CGM extrapolated
            ``predict_minutes`` ahead is below this (mg/dL); 0 for none.
        predict_minutes: Minutes ahead of the predictive suspend.
    """

    def __init__(
        self,
        target: float = 140.0,
        correction_threshold: float = 250.0,
        min_gap: int = 240,
        min_bolus: float = 0.1,
        check_every: int = 5,
        dia: float = 300.0,
        peak: float = 75.0,
        correction_fraction: float = 1.0,
        isf: Literal["quest", "1800"] = "1800",
        trend_window: int = 30,
        suspend_below: float = 70.0,
        predict_below: float = 80.0,
        predict_minutes: float = 30.0,
    ) -> None:
        self.target = target
        self.correction_threshold = correction_threshold
        self.min_gap = min_gap
        self.min_bolus = min_bolus
        self.check_every = check_every
        self.dia = dia
        self.peak = peak
        self.correction_fraction = correction_fraction
        self.isf = isf
        self.trend_window = trend_window
        self.suspend_below = suspend_below
        self.predict_below, self.predict_minutes = predict_below, predict_minutes
        self._predicted_low = np.zeros(0, dtype=bool)
        self._cgm_log = np.zeros((0, 0))
        self._params: PatientParams | None = None
        self._iob: DoseHistory | None = None
        self._last_bolus = np.zeros(0)

    def reset(self, params: PatientParams) -> None:
        self._params = params
        curve = exponential_iob(np.arange(int(self.dia) + 1, dtype=np.float64), self.dia, self.peak)
        self._iob = DoseHistory(params.n_patients, curve)
        self._last_bolus = np.full(params.n_patients, -np.inf)
        self._predicted_low = np.zeros(params.n_patients, dtype=bool)
        self._cgm_log = np.full((params.n_patients, self.trend_window // self.check_every + 1), np.nan)

    def policy(self, cgm: FloatArray, carbs: FloatArray, minute: int) -> ControllerAction:
        p, history = self._params, self._iob
        if p is None or history is None:
            raise RuntimeError("SAPController.reset(params) must be called before policy()")
        iob = history.on_board(minute)
        isf = p.CF if self.isf == "quest" else rule_1800_isf(p.basal_rate)
        over = self.correction_fraction * (cgm - self.target) / isf
        gap_ok = minute - self._last_bolus >= self.min_gap
        meal = carbs / p.CR + np.where(over > 0, np.where(gap_ok, np.maximum(over - iob, 0.0), 0.0), over)
        bolus = np.where(carbs > 0, np.maximum(meal, 0.0), 0.0)
        if minute % self.check_every == 0:
            self._cgm_log = np.column_stack([cgm, self._cgm_log[:, :-1]])
            before = self._cgm_log[:, -1]
            rising = cgm >= before  # False while the window is not yet filled (NaN)
            due = (carbs <= 0) & (cgm > self.correction_threshold) & gap_ok & rising
            correction = over - iob
            bolus = np.where(due & (correction >= self.min_bolus), correction, bolus)
            self._predicted_low = self._trend(cgm) < self.predict_below
        self._last_bolus = np.where(bolus > 0, float(minute), self._last_bolus)
        history.record(minute, bolus)
        suspend = (cgm < self.suspend_below) | self._predicted_low
        return ControllerAction(basal=np.where(suspend, 0.0, p.basal_rate), bolus=bolus)

    def _trend(self, cgm: FloatArray) -> FloatArray:
        """CGM extrapolated ``predict_minutes`` ahead from its trend (mg/dL; ``cgm`` without history)."""
        log = np.where(np.isnan(self._cgm_log), cgm[:, None], self._cgm_log)
        back = min(3, log.shape[1] - 1)
        slope = np.minimum(log[:, 0] - log[:, min(1, back)], (log[:, 0] - log[:, back]) / max(back, 1))
        return np.asarray(cgm + self.predict_minutes / self.check_every * slope)

    def observe(self, minute: int, basal: FloatArray, bolus: FloatArray) -> None:
        """Count the boluses the pump reports for ``minute`` (its bolus history), replacing the request."""
        del basal
        if self._iob is None:
            raise RuntimeError("SAPController.reset(params) must be called before observe()")
        self._iob.record(minute, bolus)
        self._last_bolus = np.where(bolus > 0, float(minute), self._last_bolus)
