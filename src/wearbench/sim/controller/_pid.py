"""simglucose's PID controller, vectorised over patients."""

from __future__ import annotations

import numpy as np

from wearbench.sim.controller._base import Controller, ControllerAction
from wearbench.sim.patient import PatientParams
from wearbench.sim.patient._params import FloatArray


class PIDController(Controller):
    """PID on sensor glucose, as simglucose's ``PIDController``; output is all basal.

    ``basal = P*(cgm - target) + I*integral + D*(cgm - previous)/dt`` (U/min), where the integral
    of ``cgm - target`` (mg/dL*min) is updated after each call; the first derivative term uses a
    previous value of 0, as in simglucose. Announced carbs are ignored. The pump clips negative
    rates to its minimum. Defaults are the gains of simglucose's PID example, which are not tuned
    per patient.

    Args:
        p: Proportional gain (U/min per mg/dL).
        i: Integral gain (U/min per mg/dL/min).
        d: Derivative gain (U per mg/dL).
        target: Glucose target (mg/dL).
        dt: Minutes between calls.
    """

    def __init__(
        self, p: float = 0.001, i: float = 0.00001, d: float = 0.001, target: float = 140.0, dt: float = 1.0
    ) -> None:
        self.p, self.i, self.d, self.target, self.dt = p, i, d, target, dt
        self._integral: FloatArray | None = None
        self._previous: FloatArray | None = None

    def reset(self, params: PatientParams) -> None:
        self._integral = np.zeros(params.n_patients)
        self._previous = np.zeros(params.n_patients)

    def policy(self, cgm: FloatArray, carbs: FloatArray, minute: int) -> ControllerAction:
        if self._integral is None or self._previous is None:
            raise RuntimeError("PIDController.reset(params) must be called before policy()")
        error = cgm - self.target
        basal = self.p * error + self.i * self._integral + self.d * (cgm - self._previous) / self.dt
        self._previous = cgm.copy()
        self._integral = self._integral + error * self.dt
        return ControllerAction(basal=basal, bolus=np.zeros_like(basal))
