"""The simulator's one minute loop and the stages it calls: sensor, meal announcement, pump.

Each minute the loop asks a :class:`CGMStage` for the reading, a :class:`MealStage` for the carbs
announced to the controller, the controller for insulin, and a :class:`PumpStage` for the dose,
then advances the patient model; an optional :class:`RescueStage` adds the carbs a person eats
to treat a low (not announced). The plain stages here are fault-free; faults wrap them
(:mod:`wearbench.sim.faults`), and a new therapy or counterfactual run plugs in another stage or
controller without a second loop.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import ClassVar, NamedTuple, Protocol

import numpy as np

from wearbench._errors import WearbenchError
from wearbench.sim._state import select_state, snapshot
from wearbench.sim.controller import Controller, ControllerAction
from wearbench.sim.patient import PatientState, step_minute, step_system
from wearbench.sim.patient._model import exercise_step
from wearbench.sim.patient._params import FloatArray, PatientParams
from wearbench.sim.pump import Pump
from wearbench.sim.sensor import Sensor

#: Streams the loop records each minute, each of shape ``(minutes, P)``.
RECORDED = ("true_bg", "gsub", "cgm", "cgm_clean", "carbs", "insulin", "insulin_requested",
            "insulin_delivered", "basal", "bolus", "long_acting", "rescue")  # fmt: skip


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


class RescueStage(Protocol):
    """Hypoglycaemia self-treatment as the loop sees it (:class:`~wearbench.sim.scenario.RescueTreatment`)."""

    def treat(self, minute: int, shown: FloatArray, true_bg: FloatArray) -> FloatArray:
        """Carbs (g) eaten at ``minute`` to treat a low, from the displayed CGM and plasma glucose."""


class PlainSensor:
    """Sample-and-hold CGM: a noisy, clipped reading every ``sample_time`` minutes.

    Args:
        sensor: The sensor, or ``None`` for noise-free subcutaneous glucose every minute.
        noise: Additive noise (mg/dL) of shape ``(P, minutes)`` from :meth:`Sensor.noise`.
    """

    snapshot_shares: ClassVar[tuple[str, ...]] = ("noise",)  #: never changed (``sim/_state.py``)

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


@dataclass(frozen=True)
class LoopState:
    """Everything the loop carries from one minute to the next, at the start of ``minute``.

    Attributes:
        minute: The next minute the loop will run.
        patient: Patient model state.
        z: Exercise sensitivity state (dimensionless), shape ``(P,)``.
        controller: The controller with its internal state.
        stages: Sensor, meal-announcement and pump stages with their state.
        rescue: The hypoglycaemia self-treatment with its state, or ``None`` (none).
    """

    minute: int
    patient: PatientState
    z: FloatArray
    controller: Controller
    stages: tuple[CGMStage, MealStage, PumpStage]
    rescue: RescueStage | None = None


class LoopRecord(dict[str, FloatArray]):
    """The streams of :data:`RECORDED` (shape ``(stop - start, P)``), plus the loop's states.

    Attributes:
        end: The state after the last minute (holding the live controller and stages).
        checkpoints: Snapshots (:func:`~wearbench.sim._state.snapshot`) at the requested minutes.
    """

    end: LoopState
    checkpoints: dict[int, LoopState]


def run_loop(
    params: PatientParams,
    state: PatientState,
    eaten: FloatArray,
    controller: Controller,
    stages: tuple[CGMStage, MealStage, PumpStage],
    substeps: int,
    exercise: FloatArray | None = None,
    *,
    start: int = 0,
    stop: int | None = None,
    z: FloatArray | None = None,
    checkpoints: Iterable[int] = (),
    engine: str = "numpy",
    rescue: RescueStage | None = None,
) -> LoopRecord:
    """Run the closed loop minute by minute, all patients at once.

    By default the run covers every minute of ``eaten`` from a fresh start. To resume, pass the
    pieces of a :class:`LoopState` (``state``, ``controller``, ``stages``, ``z``) and its
    ``minute`` as ``start``; inputs stay indexed by the minute of the whole run.

    Args:
        params: Patient parameters.
        state: Patient state at ``start``.
        eaten: Carbs eaten (g), shape ``(P, minutes)``.
        controller: A reset controller (in its state at ``start``), called once per minute.
        stages: Sensor, meal-announcement and pump stages (in their state at ``start``).
        substeps: RK4 steps per minute.
        exercise: Exercise intensity (0-1), shape ``(P, minutes)``, or ``None``.
        start: First minute to run.
        stop: Minute to stop before (default: ``minutes``).
        z: Exercise sensitivity state at ``start``, shape ``(P,)`` (default zeros).
        checkpoints: Minutes in ``[start, stop]`` at whose start to keep a snapshot of the state.
        engine: The patient step's engine, ``"numpy"``, ``"numba"`` or ``"auto"``
            (:func:`~wearbench.sim.patient.step_system`).
        rescue: Hypoglycaemia self-treatment (in its state at ``start``), or ``None``: its carbs
            are eaten with ``eaten`` and recorded as ``rescue`` (g), but not announced.

    Returns:
        Each stream of :data:`RECORDED` for minutes ``start .. stop - 1``, shape
        ``(stop - start, P)``, with the end state and the checkpoints.

    Raises:
        WearbenchError: ``start``/``stop`` or a checkpoint outside the run.
    """
    sensor, meals, pump = stages
    n, minutes = eaten.shape
    stop = minutes if stop is None else stop
    marks = set(checkpoints)
    if not 0 <= start <= stop <= minutes or not all(start <= m <= stop for m in marks):
        raise WearbenchError(f"run_loop: need 0 <= start {start} <= checkpoints <= stop {stop} <= {minutes}")
    rec = LoopRecord({k: np.empty((stop - start, n)) for k in RECORDED})
    rec.checkpoints = {}
    system = step_system(params, engine)
    z = np.zeros(n) if z is None else z  # exercise sensitivity state
    for t in range(start, stop):
        if t in marks:
            rec.checkpoints[t] = _checkpoint(t, state, z, controller, stages, rescue)
        gsub, bg = state.gsub(params), state.bg(params)
        reading = sensor.read(t, gsub)
        carbs = eaten[:, t]
        announced = meals.announce(t, carbs)
        action = controller.policy(reading.seen, announced, t)
        dose = pump.deliver(t, action)
        controller.observe(t, dose.basal, dose.bolus)  # the pump history a loop reads
        treated = 0.0 if rescue is None else rescue.treat(t, reading.shown, bg)
        for k, v in (("true_bg", bg), ("gsub", gsub), ("cgm", reading.shown),
                     ("cgm_clean", reading.clean), ("carbs", announced), ("insulin", dose.shown),
                     ("insulin_requested", dose.requested), ("insulin_delivered", dose.delivered),
                     ("basal", dose.basal), ("bolus", dose.bolus),
                     ("long_acting", 0.0 if action.long_acting is None else action.long_acting),
                     ("rescue", treated)):  # fmt: skip
            rec[k][t - start] = v
        if rescue is not None:
            carbs = carbs + treated
        if exercise is None:
            state = step_minute(state, carbs, dose.delivered, params, substeps, system)
        else:
            uptake, gain, z = exercise_step(exercise[:, t], z)
            state = step_minute(state, carbs, dose.delivered, params, substeps, system, uptake, gain)
    rec.end = LoopState(stop, state, z, controller, stages, rescue)
    if stop in marks:
        rec.checkpoints[stop] = _checkpoint(stop, state, z, controller, stages, rescue)
    return rec


def _checkpoint(
    t: int,
    state: PatientState,
    z: FloatArray,
    controller: Controller,
    stages: tuple[CGMStage, MealStage, PumpStage],
    rescue: RescueStage | None,
) -> LoopState:
    """A snapshot of the loop at the start of minute ``t`` (its arrays are copies)."""
    every = np.arange(len(z))
    return LoopState(t, select_state(state, every), z.copy(), *snapshot((controller, stages, rescue)))
