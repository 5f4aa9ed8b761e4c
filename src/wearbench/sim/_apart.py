"""The closed loop of a run's patients, together in this process or one patient per task.

:func:`run_simulation` draws every random input (meals, sensor noise) for all patients in the
calling process; only the loop, where the time goes, runs per patient on an executor. A
patient's loop does not depend on the other patients, so the streams stitched from the tasks are
the streams of the whole run, whatever executor and however many workers.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from wearbench._errors import WearbenchError
from wearbench._registry import registry
from wearbench.executors import Executor
from wearbench.sim._fast import fast_loop_supports, run_fast
from wearbench.sim._loop import (
    CGMStage,
    LoopState,
    MealStage,
    PlainMeals,
    PlainPump,
    PlainSensor,
    PumpStage,
    run_loop,
)
from wearbench.sim._simglucose_mode import env_controller
from wearbench.sim.controller import Controller
from wearbench.sim.faults import FaultPlan, faulty_stages
from wearbench.sim.patient import PatientParams, initial_state, load_params
from wearbench.sim.patient._params import FloatArray
from wearbench.sim.pump import Pump
from wearbench.sim.scenario import RescueCarbs
from wearbench.sim.sensor import Sensor

Streams = dict[str, FloatArray]


@dataclass(frozen=True)
class PatientInputs:
    """Everything the loop of some patients needs, every random draw already made.

    Attributes:
        patients: Patient names.
        eaten: Carbs eaten (g), shape ``(P, minutes)``.
        noise: Sensor noise (mg/dL), shape ``(P, minutes)``, or ``None`` without a sensor.
        exercise: Exercise intensity, shape ``(P, minutes)``, or ``None``.
        faults: The fault plan (patient indices into ``patients``), or ``None``.
        controller: A registered controller name, or a controller (reset before the loop).
        sensor: The sensor, or ``None``.
        pump: The pump's name, or ``None``.
        substeps: RK4 steps per minute.
        loop: ``"default"`` or ``"simglucose"``.
        engine: The resolved engine, ``"numpy"`` or ``"numba"``.
        rescue: The hypoglycaemia self-treatment rule, or ``None``.
    """

    patients: tuple[str, ...]
    eaten: FloatArray
    noise: FloatArray | None
    exercise: FloatArray | None
    faults: FaultPlan | None
    controller: str | Controller
    sensor: Sensor | None
    pump: str | None
    substeps: int
    loop: str
    engine: str
    rescue: RescueCarbs | None

    def patient(self, i: int) -> PatientInputs:
        """The inputs of patient ``i`` alone (its faults re-indexed to patient 0)."""
        rows = slice(i, i + 1)
        plan = None
        if self.faults is not None:
            mine = (dataclasses.replace(e, patient=0) for e in self.faults.events if e.patient == i)
            plan = FaultPlan(tuple(mine))
        return dataclasses.replace(
            self,
            patients=(self.patients[i],),
            eaten=self.eaten[rows],
            noise=None if self.noise is None else self.noise[rows],
            exercise=None if self.exercise is None else self.exercise[rows],
            faults=plan,
        )


def make_controller(controller: str | Controller, loop: str, env_step: int) -> Controller:
    """The controller ``controller`` names (or is), wrapped for the simglucose loop when asked.

    Raises:
        WearbenchError: ``controller`` is not a Controller.
    """
    ctrl: object = registry.get("controller", controller).obj() if isinstance(controller, str) else controller
    if not isinstance(ctrl, Controller):
        raise WearbenchError(f"controller {controller!r} is not a Controller")
    return env_controller(ctrl, env_step) if loop == "simglucose" else ctrl


def loop_streams(
    inputs: PatientInputs, params: PatientParams, ctrl: Controller, marks: Iterable[int]
) -> tuple[Streams, dict[int, LoopState]]:
    """Run the loop of ``inputs``'s patients together, keeping the state at the minutes ``marks``.

    Returns:
        The recorded streams (each ``(minutes, P)``) and the checkpoints.
    """
    n, minutes = inputs.eaten.shape
    ctrl.reset(params)
    the_pump = Pump.named(inputs.pump) if inputs.pump is not None else None
    state = initial_state(params)
    plain_sensor, plain_pump = PlainSensor(inputs.sensor, inputs.noise), PlainPump(the_pump, n)
    stages: tuple[CGMStage, MealStage, PumpStage] = (plain_sensor, PlainMeals(), plain_pump)
    if inputs.faults is not None:
        stages = faulty_stages(
            inputs.faults, plain_sensor, plain_pump, params.basal_rate, minutes, state.gsub(params)
        )
    simple = inputs.faults is None and inputs.rescue is None and inputs.loop == "default"
    if simple and fast_loop_supports(ctrl, inputs.engine):
        # the compiled loop: its streams and checkpoints equal run_loop's bit for bit
        looped = run_fast(
            params, inputs.eaten, ctrl, inputs.sensor, inputs.noise, the_pump, inputs.substeps,
            inputs.exercise, checkpoints=marks,
        )  # fmt: skip
    else:
        treat = inputs.rescue.stage(n) if inputs.rescue is not None else None
        looped = run_loop(
            params, state, inputs.eaten, ctrl, stages, inputs.substeps, inputs.exercise,
            checkpoints=marks, engine=inputs.engine, rescue=treat,
        )  # fmt: skip
    return dict(looped), dict(looped.checkpoints)


def patient_streams(inputs: PatientInputs) -> Streams:
    """The streams of one task's patients run together (an executor task: top level, picklable)."""
    env_step = inputs.sensor.sample_time if inputs.sensor is not None else 1
    ctrl = make_controller(inputs.controller, inputs.loop, env_step)
    return loop_streams(inputs, load_params(list(inputs.patients)), ctrl, ())[0]


def simulate_apart(inputs: PatientInputs, executor: Executor) -> Streams:
    """The streams of every patient of ``inputs``, one patient per executor task, stitched in order.

    Returns:
        Each stream, shape ``(minutes, P)``, equal to the streams of the patients run together.
    """
    parts = list(executor.map(patient_streams, (inputs.patient(i) for i in range(len(inputs.patients)))))
    return {key: np.hstack([part[key] for part in parts]) for key in parts[0]}
