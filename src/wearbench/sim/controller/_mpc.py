"""Hybrid closed loop: a linear model-predictive controller of the basal rate, meal boluses."""

from __future__ import annotations

from typing import Literal

import numpy as np

from wearbench.sim.controller._base import Controller, ControllerAction
from wearbench.sim.controller._insulin import DoseHistory, erlang_remaining, exponential_iob, rule_1800_isf
from wearbench.sim.patient import PatientParams
from wearbench.sim.patient._params import FloatArray

_STEP = 5  # minutes between controller runs and prediction points


def mpc_gain(horizon: int, moves: int, weight: float, dia: float = 300.0, peak: float = 75.0) -> FloatArray:
    """First row of the unconstrained MPC solution, for a patient with ISF 1 mg/dL per U.

    The model: a rate ``du_m`` (U/min above the scheduled basal) held over 5-minute step ``s``
    acts like a dose of ``5 du_m`` U at the start of the step, and lowers glucose by
    ``ISF * 5 du_m * (1 - iob(5 (k - s)))`` mg/dL by step ``k`` (the exponential insulin curve).
    Move ``m < moves - 1`` covers step ``m``; the last move is held to the end of the horizon. With
    ``B[k, m]`` those effects per unit ISF, the predicted glucose is ``g = g_free + ISF B du`` and

    ``J = sum_k (g_k - target)^2 + weight * sum_m (60 ISF du_m)^2``

    (prediction error in mg/dL squared; each move penalised as the glucose drop, mg/dL, of one
    hour of it). Its minimiser is ``du = -(B'B + 3600 weight I)^-1 B' (g_free - target) / ISF``;
    the returned row ``K`` gives the first move ``du_0 = -K @ (g_free - target) / ISF``.

    Args:
        horizon: Prediction steps of 5 minutes.
        moves: Control moves (at most ``horizon``).
        weight: Penalty ``weight`` on the moves (dimensionless).
        dia: Duration of insulin action (min).
        peak: Peak insulin activity (min).

    Returns:
        The gain ``K`` (U/min per mg/dL once divided by ISF), shape ``(horizon,)``.
    """
    if not 1 <= moves <= horizon:
        raise ValueError(f"need 1 <= moves <= horizon, got moves={moves}, horizon={horizon}")
    k = np.arange(1, horizon + 1)[:, None]
    s = np.arange(horizon)[None, :]
    effect = np.where(
        k > s, -_STEP * (1 - exponential_iob(_STEP * (k - s).astype(np.float64), dia, peak)), 0.0
    )
    b = np.column_stack([effect[:, m] for m in range(moves - 1)] + [effect[:, moves - 1 :].sum(axis=1)])
    gain = np.linalg.solve(b.T @ b + 3600 * weight * np.eye(moves), b.T)
    return np.asarray(gain[0])


class MPCController(Controller):
    """Hybrid closed loop: every 5 minutes an MPC sets the basal; announced meals get a bolus.

    The meal bolus is ``carbs / CR``, reduced by ``(target - cgm) / ISF`` when the CGM is below
    target (never negative), as a pump's bolus calculator does.

    Prediction model (linear, per patient, identified from its ISF, see ``isf``, and carb ratio ``CR``):
    over ``horizon`` steps of 5 minutes, the free glucose path (scheduled basal from now on) is

    ``g_free(k) = cgm + sum_{i<=k} [ -ISF (I(i-1) - I(i)) + ISF/CR (C(i-1) - C(i)) + d(i) ]``

    with ``I(i)`` the net insulin on board (above the scheduled basal; exponential curve,
    ``dia``/``peak``) and ``C(i)`` the announced carbs not yet absorbed (Erlang-2, ``carb_tau``)
    ``5 i`` minutes ahead, from doses and meals already given, and ``d(i)`` the current
    unexplained glucose change (observed mean 5-minute change over 15 minutes minus the model's),
    fading linearly to 0 over ``disturbance_decay`` minutes. The basal correction is the first move
    of :func:`mpc_gain` (closed form, precomputed in :meth:`reset`), then the safety rules:

    1. predicted low: ``cgm < low_bg``, or ``min(g_free)`` over the next ``suspend_horizon``
       minutes (the whole horizon by default) below ``suspend_below``, or the CGM trend (the more
       negative of the last 5-minute change and the 15-minute mean) extrapolated
       ``trend_horizon`` minutes ahead below ``suspend_below``: basal 0 (suspend);
    2. falling glucose: CGM falling faster than ``falling_rate`` mg/dL/min (the more negative of
       the last 5-minute change and the 15-minute mean): no rate above the basal;
    3. net insulin on board above ``max_iob_hours`` hours of basal: no rate above the basal;
    4. the rate is clipped to ``[0, max_basal_multiple * basal]``.

    Insulin on board counts every unit the pump reports (:meth:`observe`: the loop's own basal
    changes, meal boluses, and boluses it did not ask for), as a loop reading the pump history
    does; without reports it counts its own requests.

    Args:
        target: Glucose target (mg/dL).
        horizon: Prediction horizon (5-minute steps).
        moves: Control moves in the horizon.
        weight: Penalty on the moves (see :func:`mpc_gain`).
        dia: Duration of insulin action (min).
        peak: Peak insulin activity (min).
        carb_tau: Time constant of the carb absorption model (min).
        disturbance_decay: Minutes over which the unexplained glucose change fades.
        suspend_below: Predicted glucose that suspends the basal (mg/dL).
        suspend_horizon: Minutes ahead the model-based suspend rule looks.
        low_bg: CGM below which the basal is suspended whatever the prediction (mg/dL).
        max_iob_hours: Net insulin on board, as hours of scheduled basal, above which the loop
            adds no insulin.
        max_basal_multiple: Largest rate as a multiple of the scheduled basal.
        falling_rate: CGM fall (mg/dL/min) from which the loop gives no more than the basal;
            ``inf`` for none.
        trend_horizon: Minutes ahead the CGM trend is extrapolated for the suspend; 0 for none.
        isf: The model's insulin sensitivity: ``"quest"`` (the patient's ``CF``) or ``"1800"``
            (:func:`~wearbench.sim.controller._insulin.rule_1800_isf`).
    """

    def __init__(
        self,
        target: float = 120.0,
        horizon: int = 36,
        moves: int = 2,
        weight: float = 0.5,
        dia: float = 300.0,
        peak: float = 75.0,
        carb_tau: float = 45.0,
        disturbance_decay: float = 60.0,
        suspend_below: float = 80.0,
        suspend_horizon: float = 180.0,
        low_bg: float = 70.0,
        max_iob_hours: float = 2.0,
        max_basal_multiple: float = 4.0,
        falling_rate: float = 1.0,
        trend_horizon: float = 30.0,
        isf: Literal["quest", "1800"] = "1800",
    ) -> None:
        self.target, self.horizon, self.moves, self.weight = target, horizon, moves, weight
        self.dia, self.peak, self.carb_tau = dia, peak, carb_tau
        self.disturbance_decay = disturbance_decay
        self.suspend_below, self.suspend_horizon, self.low_bg = suspend_below, suspend_horizon, low_bg
        self.max_iob_hours, self.max_basal_multiple = max_iob_hours, max_basal_multiple
        self.falling_rate, self.trend_horizon = falling_rate, trend_horizon
        self.isf = isf
        self._isf = np.zeros(0)
        self._params: PatientParams | None = None
        self._insulin: DoseHistory | None = None
        self._carbs: DoseHistory | None = None
        self._gain = self._rate = self._bgs = np.zeros(0)

    def reset(self, params: PatientParams) -> None:
        self._params = params
        n = params.n_patients
        ages = np.arange(int(self.dia) + 1, dtype=np.float64)
        self._insulin = DoseHistory(n, exponential_iob(ages, self.dia, self.peak))
        carb_ages = np.arange(int(12 * self.carb_tau) + 1, dtype=np.float64)
        self._carbs = DoseHistory(n, np.append(erlang_remaining(carb_ages[:-1], self.carb_tau), 0.0))
        self._isf = params.CF if self.isf == "quest" else rule_1800_isf(params.basal_rate)
        self._gain = mpc_gain(self.horizon, self.moves, self.weight, self.dia, self.peak)
        self._rate = params.basal_rate.copy()
        self._bgs = np.full((n, 4), np.nan)  # CGM now, 5, 10, 15 min ago

    def free_path(self, bg: FloatArray, delta: FloatArray, minute: int) -> FloatArray:
        """Predicted glucose (mg/dL) at the next ``horizon`` steps with the scheduled basal, ``(P, H)``.

        Args:
            bg: CGM now (mg/dL).
            delta: Observed mean glucose change per 5 minutes over the last 15 minutes.
            minute: Minute of the run (doses and meals before it count).
        """
        p, ins, carbs = self._params, self._insulin, self._carbs
        if p is None or ins is None or carbs is None:
            raise RuntimeError("MPCController.reset(params) must be called before free_path()")
        i_fut, c_fut = ins.future(minute, self.horizon, _STEP), carbs.future(minute, self.horizon, _STEP)
        model = -self._isf[:, None] * (i_fut[:, :-1] - i_fut[:, 1:]) + (self._isf / p.CR)[:, None] * (
            c_fut[:, :-1] - c_fut[:, 1:]
        )
        steps = np.arange(1, self.horizon + 1)
        d = (delta - model[:, 0])[:, None] * np.maximum(0.0, 1 - steps * _STEP / self.disturbance_decay)
        out: FloatArray = bg[:, None] + np.cumsum(model + d, axis=1)
        return out

    def decide(self, bg: FloatArray, free: FloatArray, iob: FloatArray, slope: FloatArray) -> FloatArray:
        """Basal rate (U/min) by the rules above.

        Args:
            bg: CGM now (mg/dL).
            free: Free glucose path (mg/dL), shape ``(P, horizon)``.
            iob: Net insulin on board (U).
            slope: CGM trend (mg/dL/min): the more negative of the last 5-minute change and the
                15-minute mean, per minute.
        """
        p = self._params
        if p is None:
            raise RuntimeError("MPCController.reset(params) must be called before decide()")
        basal = p.basal_rate
        rate = basal - (free - self.target) @ self._gain / self._isf
        hold = (iob > self.max_iob_hours * 60 * basal) | (slope < -self.falling_rate)
        rate = np.clip(np.where(hold, np.minimum(rate, basal), rate), 0.0, self.max_basal_multiple * basal)
        near = free[:, : max(1, int(self.suspend_horizon) // _STEP)]
        low = (bg < self.low_bg) | (near.min(axis=1) < self.suspend_below)
        low |= (self.trend_horizon > 0) & (bg + self.trend_horizon * slope < self.suspend_below)
        return np.where(low, 0.0, rate)

    def policy(self, cgm: FloatArray, carbs: FloatArray, minute: int) -> ControllerAction:
        p, ins, meals = self._params, self._insulin, self._carbs
        if p is None or ins is None or meals is None:
            raise RuntimeError("MPCController.reset(params) must be called before policy()")
        if minute % _STEP == 0:
            self._bgs = np.column_stack([cgm, self._bgs[:, :-1]])
            bgs = np.where(np.isnan(self._bgs), cgm[:, None], self._bgs)
            mean = (bgs[:, 0] - bgs[:, 3]) / 3  # mean change per 5 min over 15 min
            free = self.free_path(cgm, mean, minute)
            slope = np.minimum(bgs[:, 0] - bgs[:, 1], mean) / _STEP
            self._rate = self.decide(cgm, free, ins.on_board(minute), slope)
        below = np.minimum(cgm - self.target, 0.0) / self._isf  # reduction below target (U)
        bolus = np.where(carbs > 0, np.maximum(carbs / p.CR + below, 0.0), 0.0)
        ins.record(minute, self._rate - p.basal_rate + bolus)
        meals.record(minute, np.maximum(carbs, 0.0))
        return ControllerAction(basal=self._rate, bolus=bolus)

    def observe(self, minute: int, basal: FloatArray, bolus: FloatArray) -> None:
        """Count what the pump reports for ``minute`` (replaces the request counted in :meth:`policy`)."""
        if self._params is None or self._insulin is None:
            raise RuntimeError("MPCController.reset(params) must be called before observe()")
        self._insulin.record(minute, basal - self._params.basal_rate + bolus)
