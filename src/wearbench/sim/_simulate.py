"""Closed-loop simulation of P virtual patients at once: meals -> controller -> pump -> patient."""

from __future__ import annotations

from typing import Literal

import numpy as np
import pandas as pd

from wearbench._errors import WearbenchError
from wearbench.executors import Executor
from wearbench.sim._apart import PatientInputs, loop_streams, make_controller, simulate_apart
from wearbench.sim._loop import LoopState
from wearbench.sim._run import SimulationRun
from wearbench.sim.controller import Controller
from wearbench.sim.faults import FaultPlan
from wearbench.sim.patient import load_params
from wearbench.sim.patient._compiled import resolve_engine
from wearbench.sim.patient._params import FloatArray
from wearbench.sim.pump import Pump
from wearbench.sim.scenario import RescueCarbs, check_carbs, fixed_meals, random_meals
from wearbench.sim.sensor import Sensor

MINUTES_PER_DAY = 1440


def simulate(
    patients: list[str],
    days: int,
    *,
    controller: str | Controller = "basal-bolus",
    sensor: str | Sensor | None = "Dexcom",
    pump: str | None = "Insulet",
    meals: Literal["random", "fixed"] | FloatArray = "random",
    seed: int | np.random.Generator = 0,
    substeps: int = 2,
    faults: FaultPlan | None = None,
    exercise: tuple[FloatArray, pd.DataFrame] | None = None,
    loop: Literal["default", "simglucose"] = "default",
    engine: str = "auto",
    rescue: RescueCarbs | None = None,
    executor: Executor | None = None,
) -> pd.DataFrame:
    """Simulate T1D patients minute by minute, all patients vectorised together.

    Each minute ``t``: the sensor reads (every ``sample_time`` min; held in between), the meal
    scenario announces carbs, the controller picks basal and bolus, the pump rounds and clips
    them, and the patient model advances one minute with those inputs.

    Args:
        patients: simglucose patient names, e.g. ``["adult#001", "child#007"]`` (repeats allowed).
        days: Days to simulate.
        controller: A registered controller name (``wearbench list controller``: ``"basal-bolus"``,
            ``"pid"`` with simglucose's example gains), built with its defaults, or a
            :class:`~wearbench.sim.controller.Controller` (reset and called once per minute).
        sensor: CGM sensor name (``"Dexcom"``, ``"GuardianRT"``, ``"Navigator"``), a
            :class:`~wearbench.sim.sensor.Sensor` (e.g. Dexcom noise on a 5-min grid), or ``None``
            for a noise-free reading of subcutaneous glucose every minute.
        pump: Pump name (``"Insulet"``, ``"Cozmo"``), or ``None`` to deliver requests exactly.
        meals: ``"random"`` (simglucose-style), ``"fixed"`` (same meals daily), or announced carbs
            (g) of shape ``(P, days * 1440)``.
        seed: Seed or generator for meals and sensor noise.
        substeps: RK4 steps per minute.
        faults: Fault plan (:mod:`wearbench.sim.faults`) applied inside the loop, or ``None``.
        exercise: ``(intensity, sessions)`` from
            :func:`~wearbench.sim.scenario.exercise_sessions` (intensity 0-1 of shape
            ``(P, days * 1440)``), or ``None``; see ``docs/cgm-exercise.md``.
        loop: ``"default"``, or ``"simglucose"`` for simglucose's ``T1DSimEnv`` semantics (the
            controller acts every sensor sample with the env's step means, its bolus spread over
            the sample period; :func:`~wearbench.sim.env_controller`); see
            ``docs/cgm-simglucose.md``.
        engine: ``"numpy"`` (array code), ``"numba"`` (compiled; the ``[cgm]`` extra installs
            numba) or ``"auto"``: ``$WEARBENCH_SIM_ENGINE`` when set, else numba when installed.
            Both give the same numbers to 1e-9 mg/dL; see ``docs/cgm-simulator-speed.md``.
        rescue: Hypoglycaemia self-treatment (e.g. ``RescueCarbs()``: 15 g when the CGM shows
            55 mg/dL or less or plasma glucose is below 54, at most every 15 min), eaten but not
            announced; ``None`` (default): none. See ``docs/cgm-healthloopqa.md``.
        executor: Where the patients' loops run (:mod:`wearbench.executors`): ``None`` (default)
            runs them together in this process; an executor runs one patient per task. Every
            random input is drawn here first, so the frame is the same bit for bit either way.

    Returns:
        One row per patient and minute: ``patient``, ``minute``, ``true_bg`` (plasma glucose,
        mg/dL), ``gsub`` (subcutaneous glucose, simglucose's "BG", mg/dL), ``cgm`` (reading,
        mg/dL), ``carbs`` (announced, g), ``insulin`` (delivered over the minute, U/min).
        With ``faults``, ``cgm`` is what the sensor showed (NaN while missing), ``carbs`` what was
        announced to the controller, ``insulin`` what the pump showed, and the frame gains
        ``cgm_clean`` (fault-free reading), ``carbs_eaten`` (g), ``insulin_requested`` (the
        controller's dose after pump rounding, U/min), ``insulin_delivered`` (into the patient,
        U/min) and ``label`` (active fault, ``""`` when normal); see ``docs/cgm-faults.md``.
        With ``exercise``, the frame gains ``exercise`` (effective intensity, 0-1). When the
        controller injects long-acting insulin (MDI), the frame gains ``long_acting`` (U injected
        in the minute).
        With ``rescue``, the frame gains ``rescue`` (g eaten in the minute to treat a low; not in
        ``carbs`` nor ``carbs_eaten``, which stay the announced and the scenario's meals).
        With ``loop="simglucose"``, the frame gains the env's reported ``env_bg`` (its ``BG``:
        mean ``gsub`` over each sample period) and ``env_cgm`` (its ``CGM``), mg/dL, at the sample
        minutes (the period's end) and NaN between.
    """
    return run_simulation(
        patients, days, controller=controller, sensor=sensor, pump=pump, meals=meals, seed=seed,
        substeps=substeps, faults=faults, exercise=exercise, loop=loop, engine=engine,
        checkpoint_every=None, rescue=rescue, executor=executor,
    ).frame()  # fmt: skip


def run_simulation(
    patients: list[str],
    days: int,
    *,
    controller: str | Controller = "basal-bolus",
    sensor: str | Sensor | None = "Dexcom",
    pump: str | None = "Insulet",
    meals: Literal["random", "fixed"] | FloatArray = "random",
    seed: int | np.random.Generator = 0,
    substeps: int = 2,
    faults: FaultPlan | None = None,
    exercise: tuple[FloatArray, pd.DataFrame] | None = None,
    loop: Literal["default", "simglucose"] = "default",
    engine: str = "auto",
    checkpoint_every: int | None = 60,
    rescue: RescueCarbs | None = None,
    executor: Executor | None = None,
) -> SimulationRun:
    """Simulate like :func:`simulate`, keeping what a re-run from any minute needs.

    Args:
        patients: As :func:`simulate`.
        days: As :func:`simulate`.
        controller: As :func:`simulate`.
        sensor: As :func:`simulate`.
        pump: As :func:`simulate`.
        meals: As :func:`simulate`.
        seed: As :func:`simulate`.
        substeps: As :func:`simulate`.
        faults: As :func:`simulate`.
        exercise: As :func:`simulate`.
        loop: As :func:`simulate`.
        engine: As :func:`simulate`.
        checkpoint_every: Keep the loop's state every this many minutes (always at minute 0), or
            ``None`` for none: the run then cannot be re-run from a minute. A counterfactual
            re-runs from the latest checkpoint at or before its injection minute. Checkpoints
            share arrays with the run and cost little; a fault-free basal-bolus or PID run on the
            numba engine takes the compiled whole-run loop with or without them.
        rescue: As :func:`simulate` (a run with it always takes ``run_loop``).
        executor: As :func:`simulate`; needs ``checkpoint_every=None`` (patients run apart keep
            no checkpoints).

    Returns:
        The run (:class:`~wearbench.sim._run.SimulationRun`); ``run.frame()`` is what
        :func:`simulate` returns.
    """
    if days < 1 or not patients:
        raise WearbenchError("simulate needs at least one patient and one day")
    engine = resolve_engine(engine)
    rng = seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)
    params = load_params(patients)
    n, minutes = params.n_patients, days * MINUTES_PER_DAY
    if isinstance(meals, str):
        carbs_all = random_meals(n, days, rng) if meals == "random" else fixed_meals(n, days)
    else:
        carbs_all = np.asarray(meals, dtype=np.float64)
        if carbs_all.shape != (n, minutes):
            raise WearbenchError(f"meals must have shape {(n, minutes)}, got {carbs_all.shape}")
        check_carbs(carbs_all)
    cgm_sensor = Sensor.named(sensor) if isinstance(sensor, str) else sensor
    env_step = cgm_sensor.sample_time if cgm_sensor is not None else 1
    if loop not in ("default", "simglucose"):
        raise WearbenchError(f"loop must be 'default' or 'simglucose', got {loop!r}")
    ctrl = make_controller(controller, loop, env_step)  # fails early on a bad controller, on every executor
    noise = cgm_sensor.noise(n, minutes, rng) if cgm_sensor is not None else None
    ex = None
    if exercise is not None:
        ex = np.asarray(exercise[0], dtype=np.float64)
        if ex.shape != (n, minutes) or not np.all((ex >= 0) & (ex <= 1)):
            raise WearbenchError(f"exercise intensity must have shape {(n, minutes)} and lie in [0, 1]")
    if checkpoint_every is not None and checkpoint_every < 1:
        raise WearbenchError(f"checkpoint_every must be at least 1 minute, got {checkpoint_every}")
    inputs = PatientInputs(
        patients=tuple(patients), eaten=carbs_all, noise=noise, exercise=ex, faults=faults,
        controller=controller, sensor=cgm_sensor, pump=pump, substeps=substeps, loop=loop,
        engine=engine, rescue=rescue,
    )  # fmt: skip
    if executor is not None:
        if faults is not None:
            faults.check(n, minutes)  # a task sees its own patient's faults only
        if checkpoint_every is not None:
            raise WearbenchError(
                "an executor runs the patients apart and keeps no checkpoints: give checkpoint_every=None"
            )
        rec: dict[str, FloatArray] = simulate_apart(inputs, executor)
        checkpoints: dict[int, LoopState] = {}
    else:
        marks = range(0, minutes, checkpoint_every) if checkpoint_every is not None else ()
        rec, checkpoints = loop_streams(inputs, params, ctrl, marks)
    return SimulationRun(
        patients=tuple(patients), params=params, days=days,
        seed=None if isinstance(seed, np.random.Generator) else int(seed),
        controller=controller if isinstance(controller, str) else type(controller).__name__,
        eaten=carbs_all, exercise=ex, sessions=None if exercise is None else exercise[1],
        sensor=cgm_sensor, noise=noise, pump=None if pump is None else Pump.named(pump), faults=faults,
        substeps=substeps,
        streams=rec, checkpoints=checkpoints, loop=loop, env_step=env_step, engine=engine, rescue=rescue,
    )  # fmt: skip
