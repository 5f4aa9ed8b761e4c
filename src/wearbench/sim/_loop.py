"""The simulator's one minute loop and the stages it calls: sensor, meal announcement, pump.

Each minute the loop asks a :class:`CGMStage` for the reading, a :class:`MealStage` for the carbs
announced to the controller, the controller for insulin, and a :class:`PumpStage` for the dose,
then advances the patient model. The plain stages here are fault-free; faults wrap them
(:mod:`wearbench.sim.faults`), and a new therapy or counterfactual run plugs in another stage or
controller without a second loop.
"""

from __future__ import annotations

from typing import NamedTuple, Protocol

import numpy as np

from wearbench.sim.controller import Controller, ControllerAction
from wearbench.sim.patient import PatientState, step_minute, step_system
from wearbench.sim.patient._model import exercise_step
from wearbench.sim.patient._params import FloatArray, PatientParams
from wearbench.sim.pump import Pump
from wearbench.sim.sensor import Sensor

__all__ = [
    "RECORDED",
    "CGMReading",
    "CGMStage",
    "Dose",
    "MealStage",
    "PlainMeals",
    "PlainPump",
    "PlainSensor",
    "PumpStage",
    "run_loop",
]

#: Streams the loop records each minute, each of shape ``(minutes, P)``.
RECORDED = ("true_bg", "gsub", "cgm", "cgm_clean", "carbs", "insulin", "insulin_requested",
            "insulin_delivered", "basal", "bolus", "long_acting")  # fmt: skip


class CGMReading(NamedTuple):
    """One minute of the CGM stream (mg/dL, shape ``(P,)``).

    Attributes:
        clean: The fault-free sensor reading (held between samples).
        shown: What the sensor showed (NaN while missing).
        seen: What the controller uses (the last valid reading shown).
    """

    clean: FloatArray
    shown: FloatArray
    seen: FloatArray


class Dose(NamedTuple):
    """One minute of insulin (U/min, shape ``(P,)``).

    Attributes:
        basal: Basal rate the pump showed.
        bolus: Bolus rate the pump showed.
        shown: ``basal + bolus`` as shown.
        requested: The controller's dose after pump rounding and clipping.
        delivered: What entered the patient.
    """

    basal: FloatArray
    bolus: FloatArray
    shown: FloatArray
    requested: FloatArray
    delivered: FloatArray


class CGMStage(Protocol):
    """The sensor as the loop sees it."""

    def read(self, minute: int, gsub: FloatArray) -> CGMReading:
        """The reading at ``minute`` from subcutaneous glucose ``gsub`` (mg/dL)."""


class MealStage(Protocol):
    """The meal announcement as the loop sees it."""

    def announce(self, minute: int, eaten: FloatArray) -> FloatArray:
        """Carbs (g) announced to the controller at ``minute`` when ``eaten`` are eaten."""


class PumpStage(Protocol):
    """The pump as the loop sees it."""

    def deliver(self, minute: int, action: ControllerAction) -> Dose:
        """The dose at ``minute`` for the controller's request."""


class PlainSensor:
    """Sample-and-hold CGM: a noisy, clipped reading every ``sample_time`` minutes.

    Args:
        sensor: The sensor, or ``None`` for noise-free subcutaneous glucose every minute.
        noise: Additive noise (mg/dL) of shape ``(P, minutes)`` from :meth:`Sensor.noise`.
    """

    def __init__(self, sensor: Sensor | None, noise: FloatArray | None) -> None:
        self.sensor, self.noise = sensor, noise
        self._last: FloatArray | None = None

    def is_sample(self, minute: int) -> bool:
        """Whether the sensor takes a reading at ``minute`` (every minute without a sensor)."""
        return self.sensor is None or self.sensor.is_sample(minute)

    def read(self, minute: int, gsub: FloatArray) -> CGMReading:
        if self.sensor is None or self.noise is None:
            self._last = gsub
        elif self._last is None or self.sensor.is_sample(minute):
            self._last = self.sensor.read(gsub, self.noise[:, minute])
        return CGMReading(self._last, self._last, self._last)


class PlainMeals:
    """Every carb eaten is announced."""

    def announce(self, minute: int, eaten: FloatArray) -> FloatArray:
        return eaten


class PlainPump:
    """Rounds and clips the request like the pump, or delivers it exactly without one.

    Args:
        pump: The pump, or ``None``.
        n_patients: Patients in the run (scalar requests are broadcast to ``(P,)``).
    """

    def __init__(self, pump: Pump | None, n_patients: int) -> None:
        self.pump, self._zeros = pump, np.zeros(n_patients)

    def deliver(self, minute: int, action: ControllerAction) -> Dose:
        basal, bolus, p = action.basal, action.bolus, self.pump
        if p is not None:
            basal, bolus = p.basal(basal), p.bolus(bolus)
        basal, bolus = basal + self._zeros, bolus + self._zeros
        total = basal + bolus
        return Dose(basal, bolus, total, total, total)


def run_loop(
    params: PatientParams,
    state: PatientState,
    eaten: FloatArray,
    controller: Controller,
    stages: tuple[CGMStage, MealStage, PumpStage],
    substeps: int,
    exercise: FloatArray | None = None,
    engine: str = "numpy",
) -> dict[str, FloatArray]:
    """Run the closed loop minute by minute, all patients at once.

    Args:
        params: Patient parameters.
        state: Initial patient state.
        eaten: Carbs eaten (g), shape ``(P, minutes)``.
        controller: A reset controller, called once per minute.
        stages: Sensor, meal-announcement and pump stages.
        substeps: RK4 steps per minute.
        exercise: Exercise intensity (0-1), shape ``(P, minutes)``, or ``None``.
        engine: The patient step's engine, ``"numpy"``, ``"numba"`` or ``"auto"``
            (:func:`~wearbench.sim.patient.step_system`).

    Returns:
        Each stream of :data:`RECORDED`, shape ``(minutes, P)``.
    """
    sensor, meals, pump = stages
    n, minutes = eaten.shape
    rec = {k: np.empty((minutes, n)) for k in RECORDED}
    system = step_system(params, engine)
    z = np.zeros(n)  # exercise sensitivity state
    for t in range(minutes):
        gsub = state.gsub(params)
        reading = sensor.read(t, gsub)
        carbs = eaten[:, t]
        announced = meals.announce(t, carbs)
        action = controller.policy(reading.seen, announced, t)
        dose = pump.deliver(t, action)
        for k, v in (("true_bg", state.bg(params)), ("gsub", gsub), ("cgm", reading.shown),
                     ("cgm_clean", reading.clean), ("carbs", announced), ("insulin", dose.shown),
                     ("insulin_requested", dose.requested), ("insulin_delivered", dose.delivered),
                     ("basal", dose.basal), ("bolus", dose.bolus),
                     ("long_acting", 0.0 if action.long_acting is None else action.long_acting)):  # fmt: skip
            rec[k][t] = v
        if exercise is None:
            state = step_minute(state, carbs, dose.delivered, params, substeps, system)
        else:
            uptake, gain, z = exercise_step(exercise[:, t], z)
            state = step_minute(state, carbs, dose.delivered, params, substeps, system, uptake, gain)
    return rec
