"""An OpenAPS-style temp-basal loop, written from oref0's published description.

Sources (descriptions only; no oref0 code is used): OpenAPS docs, "Understanding the
determine-basal logic" and "Understanding insulin on board calculations"
(https://openaps.readthedocs.io); the OpenAPS reference design (https://openaps.org/reference-design/);
the exponential insulin curve of :mod:`wearbench.sim.controller._insulin`. See
``docs/cgm-therapies.md`` for the equations and where this loop simplifies oref0.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

import numpy as np

from wearbench.sim.controller._base import Controller, ControllerAction
from wearbench.sim.controller._insulin import DoseHistory, exponential_iob, rule_1800_isf
from wearbench.sim.patient import PatientParams
from wearbench.sim.patient._params import FloatArray

_STEP = 5  # minutes between loop runs and prediction points


class Prediction(NamedTuple):
    """What the loop predicts at one run (mg/dL unless stated, shape ``(P,)``).

    Attributes:
        eventual: Predicted glucose at the end of the horizon (``eventualBG``).
        min_pred: Lowest prediction from ``min_pred_after`` minutes on, and ``eventual``.
        min_guard: Lowest prediction over the whole horizon.
        bgi: Glucose change from insulin over the next 5 minutes (mg/dL/5 min).
    """

    eventual: FloatArray
    min_pred: FloatArray
    min_guard: FloatArray
    bgi: FloatArray


class OpenAPSController(Controller):
    """oref0 "determine-basal"-like loop: a temp basal every 5 minutes, meal boluses on carbs.

    Every 5 minutes it predicts glucose from the CGM, net insulin on board (relative to the
    scheduled basal), carbs on board and the recent deviation, then sets a temp basal (rules in
    :meth:`decide`). Insulin on board counts every unit the pump reports (:meth:`observe`: temps,
    meal boluses and boluses the loop did not ask for), as oref0 reads the pump history. Announced
    carbs get a bolus of ``carbs / CR`` at once (reduced by
    ``(target - cgm) / ISF`` below target, never negative) and enter carbs on board. Rates are
    capped at ``min(max_basal, max_daily_safety_multiplier * max daily basal,
    current_basal_safety_multiplier * current basal)`` (the basal is flat, so both multipliers
    apply to the patient's rate), and high temps stop adding insulin once net IOB reaches ``max_iob``.

    Args:
        min_bg: Lower end of the target range (mg/dL).
        max_bg: Upper end of the target range (mg/dL); the target is their mean.
        dia: Duration of insulin action (min); also the prediction horizon.
        peak: Peak of insulin activity (min).
        max_iob_hours: ``max_iob`` (U) as hours of the patient's scheduled basal.
        max_daily_safety_multiplier: Cap as a multiple of the highest scheduled basal.
        current_basal_safety_multiplier: Cap as a multiple of the current scheduled basal.
        max_basal: Pump's maximum temp basal (U/h), ``None`` for no such setting.
        min_5m_carbimpact: Smallest assumed carb absorption while carbs are on board (mg/dL/5 min).
        max_absorption: Longest time over which carbs on board are predicted to absorb (min).
        deviation_decay: Minutes over which the current deviation is predicted to fade to 0.
        min_pred_after: Minutes from which the prediction's minimum counts as ``min_pred``.
        isf: Insulin sensitivity factor: ``"quest"`` (the patient's ``CF``) or ``"1800"``
            (:func:`~wearbench.sim.controller._insulin.rule_1800_isf`).
    """

    def __init__(
        self,
        min_bg: float = 100.0,
        max_bg: float = 120.0,
        dia: float = 300.0,
        peak: float = 75.0,
        max_iob_hours: float = 3.0,
        max_daily_safety_multiplier: float = 3.0,
        current_basal_safety_multiplier: float = 4.0,
        max_basal: float | None = None,
        min_5m_carbimpact: float = 8.0,
        max_absorption: float = 180.0,
        deviation_decay: float = 60.0,
        min_pred_after: float = 90.0,
        isf: Literal["quest", "1800"] = "1800",
    ) -> None:
        self.min_bg, self.max_bg, self.dia, self.peak = min_bg, max_bg, dia, peak
        self.max_iob_hours = max_iob_hours
        self.max_daily_safety_multiplier = max_daily_safety_multiplier
        self.current_basal_safety_multiplier = current_basal_safety_multiplier
        self.max_basal = max_basal
        self.min_5m_carbimpact = min_5m_carbimpact
        self.max_absorption = max_absorption
        self.deviation_decay = deviation_decay
        self.min_pred_after = min_pred_after
        self.isf = isf
        self._isf = np.zeros(0)
        self._params: PatientParams | None = None
        self._insulin: DoseHistory | None = None
        self._cob = self._rate = self._bgs = np.zeros(0)

    def reset(self, params: PatientParams) -> None:
        self._params = params
        curve = exponential_iob(np.arange(int(self.dia) + 1, dtype=np.float64), self.dia, self.peak)
        self._insulin = DoseHistory(params.n_patients, curve)
        self._isf = params.CF if self.isf == "quest" else rule_1800_isf(params.basal_rate)
        self._cob = np.zeros(params.n_patients)
        self._rate = params.basal_rate.copy()
        self._bgs = np.full((params.n_patients, 4), np.nan)  # CGM now, 5, 10, 15 min ago

    @property
    def target(self) -> float:
        """Glucose target (mg/dL), the middle of the target range."""
        return (self.min_bg + self.max_bg) / 2

    @property
    def threshold(self) -> float:
        """Low-glucose suspend threshold (mg/dL): ``min_bg - (min_bg - 40) / 2``."""
        return self.min_bg - 0.5 * (self.min_bg - 40.0)

    def policy(self, cgm: FloatArray, carbs: FloatArray, minute: int) -> ControllerAction:
        p, history = self._params, self._insulin
        if p is None or history is None:
            raise RuntimeError("OpenAPSController.reset(params) must be called before policy()")
        if minute % _STEP == 0:
            self._bgs = np.column_stack([cgm, self._bgs[:, :-1]])
            bgs = np.where(np.isnan(self._bgs), cgm[:, None], self._bgs)
            min_delta = np.minimum(bgs[:, 0] - bgs[:, 1], (bgs[:, 0] - bgs[:, 3]) / 3)
            iob = history.on_board(minute)
            pred = self.predict(cgm, min_delta, history.future(minute, int(self.dia) // _STEP, _STEP), p)
            self._absorb_carbs(min_delta - pred.bgi, p)
            self._rate = self.decide(cgm, min_delta, iob, pred, p.basal_rate)
        below = np.minimum(cgm - self.target, 0.0) / self._isf  # reduction below target (U)
        bolus = np.where(carbs > 0, np.maximum(carbs / p.CR + below, 0.0), 0.0)
        self._cob = self._cob + np.maximum(carbs, 0.0)
        history.record(minute, self._rate - p.basal_rate + bolus)
        return ControllerAction(basal=self._rate, bolus=bolus)

    def _absorb_carbs(self, deviation: FloatArray, p: PatientParams) -> None:
        csf = self._isf / p.CR  # mg/dL per g
        impact = np.maximum(deviation, self.min_5m_carbimpact)
        self._cob = np.maximum(self._cob - impact / csf, 0.0)

    def predict(
        self, bg: FloatArray, min_delta: FloatArray, iob_future: FloatArray, p: PatientParams
    ) -> Prediction:
        """Glucose predictions every 5 minutes over the horizon.

        Args:
            bg: CGM now (mg/dL).
            min_delta: ``min(last 5-min change, mean 5-min change over 15 min)`` (mg/dL/5 min).
            iob_future: Net IOB now and every 5 minutes ahead (U), shape ``(P, H + 1)``.
            p: The patients (``CR`` is the carb ratio; the ISF is set by ``isf``).

        Returns:
            The prediction summary.
        """
        steps = np.arange(1, iob_future.shape[1])
        bgi_path = -self._isf[:, None] * (iob_future[:, :-1] - iob_future[:, 1:])
        bgi = bgi_path[:, 0]
        dev = (min_delta - bgi)[:, None] * np.maximum(0.0, 1 - steps * _STEP / self.deviation_decay)
        iob_pred = bg[:, None] + np.cumsum(bgi_path + dev, axis=1)
        area = self._cob * self._isf / p.CR  # mg/dL still to come from carbs on board
        impact = np.maximum(min_delta - bgi, self.min_5m_carbimpact)
        span = np.clip(2 * area / impact, 1.0, self.max_absorption / _STEP)  # absorption, steps
        carb = (2 * area / span)[:, None] * np.maximum(0.0, 1 - (steps - 0.5) / span[:, None])
        cob_pred = bg[:, None] + np.cumsum(bgi_path + np.minimum(dev, 0.0) + carb, axis=1)
        pred = np.where((self._cob > 0)[:, None], cob_pred, iob_pred)
        eventual = pred[:, -1]
        after = min(int(self.min_pred_after) // _STEP, pred.shape[1] - 1)
        min_pred = np.minimum(pred[:, after:].min(axis=1), eventual)
        return Prediction(eventual, min_pred, pred.min(axis=1), bgi)

    def decide(
        self, bg: FloatArray, min_delta: FloatArray, iob: FloatArray, pred: Prediction, basal: FloatArray
    ) -> FloatArray:
        """Temp basal rate (U/min) from the prediction, by the determine-basal rules.

        1. ``bg`` or the lowest prediction below :attr:`threshold`: zero temp (suspend).
        2. ``eventual < min_bg``: if glucose rises faster than expected (``min_delta > 0`` and
           above ``bgi + (target - eventual) / 24``), scheduled basal; else a low temp
           ``basal + 2 * insulin_req`` U/h with ``insulin_req = min(0, (eventual - target) / ISF)``.
        3. ``eventual < max_bg`` or ``min_pred < min_bg``: scheduled basal.
        4. Glucose falling faster than expected (``min_delta < bgi + (target - eventual) / 24``,
           oref0's "Delta < Exp. Delta"): scheduled basal, no high temp.
        5. Otherwise a high temp ``basal + 2 * insulin_req`` U/h with
           ``insulin_req = (min(eventual, min_pred) - target) / ISF`` capped at ``max_iob - iob``
           (and at 0), the rate capped at the maximum safe basal.

        Args:
            bg: CGM now (mg/dL).
            min_delta: Recent glucose change (mg/dL/5 min).
            iob: Net insulin on board (U).
            pred: The prediction.
            basal: Scheduled basal (U/min).

        Returns:
            Temp basal (U/min), shape ``(P,)``.
        """
        p = self._params
        if p is None:
            raise RuntimeError("OpenAPSController.reset(params) must be called before decide()")
        isf = self._isf
        expected = pred.bgi + (self.target - pred.eventual) / 24
        low_req = np.minimum(0.0, (pred.eventual - self.target) / isf)
        low = np.where((min_delta > 0) & (min_delta > expected), basal, np.maximum(basal + low_req / 30, 0.0))
        max_iob = self.max_iob_hours * 60 * basal
        high_req = (np.minimum(pred.eventual, pred.min_pred) - self.target) / isf
        high_req = np.clip(high_req, 0.0, np.maximum(max_iob - iob, 0.0))
        cap = np.minimum(self.max_daily_safety_multiplier, self.current_basal_safety_multiplier) * basal
        if self.max_basal is not None:
            cap = np.minimum(cap, self.max_basal / 60)
        high = np.minimum(basal + high_req / 30, np.maximum(cap, basal))
        keep = (pred.eventual < self.max_bg) | (pred.min_pred < self.min_bg) | (min_delta < expected)
        rate = np.where(keep, basal, high)
        rate = np.where(pred.eventual < self.min_bg, low, rate)
        return np.where((bg < self.threshold) | (pred.min_guard < self.threshold), 0.0, rate)

    def observe(self, minute: int, basal: FloatArray, bolus: FloatArray) -> None:
        """Count what the pump reports for ``minute`` (replaces the request counted in :meth:`policy`)."""
        if self._params is None or self._insulin is None:
            raise RuntimeError("OpenAPSController.reset(params) must be called before observe()")
        self._insulin.record(minute, basal - self._params.basal_rate + bolus)
