"""Closed-loop simulation of P virtual patients at once: meals -> controller -> pump -> patient."""

from __future__ import annotations

from typing import Literal

import numpy as np
import pandas as pd

from wearbench._errors import WearbenchError
from wearbench._registry import registry
from wearbench.sim._fast import fast_loop_supports, run_fast
from wearbench.sim._loop import CGMStage, MealStage, PlainMeals, PlainPump, PlainSensor, PumpStage, run_loop
from wearbench.sim.controller import Controller
from wearbench.sim.faults import FaultPlan, faulty_stages
from wearbench.sim.patient import initial_state, load_params
from wearbench.sim.patient._compiled import resolve_engine
from wearbench.sim.patient._params import FloatArray
from wearbench.sim.pump import Pump
from wearbench.sim.scenario import check_carbs, fixed_meals, random_meals
from wearbench.sim.sensor import Sensor

__all__ = ["simulate"]

MINUTES_PER_DAY = 1440


def simulate(
    patients: list[str],
    days: int,
    *,
    controller: str | Controller = "basal-bolus",
    sensor: str | None = "Dexcom",
    pump: str | None = "Insulet",
    meals: Literal["random", "fixed"] | FloatArray = "random",
    seed: int | np.random.Generator = 0,
    substeps: int = 2,
    faults: FaultPlan | None = None,
    exercise: tuple[FloatArray, pd.DataFrame] | None = None,
    engine: str = "auto",
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
        sensor: CGM sensor name (``"Dexcom"``, ``"GuardianRT"``, ``"Navigator"``), or ``None`` for a
            noise-free reading of subcutaneous glucose every minute.
        pump: Pump name (``"Insulet"``, ``"Cozmo"``), or ``None`` to deliver requests exactly.
        meals: ``"random"`` (simglucose-style), ``"fixed"`` (same meals daily), or announced carbs
            (g) of shape ``(P, days * 1440)``.
        seed: Seed or generator for meals and sensor noise.
        substeps: RK4 steps per minute.
        faults: Fault plan (:mod:`wearbench.sim.faults`) applied inside the loop, or ``None``.
        exercise: ``(intensity, sessions)`` from
            :func:`~wearbench.sim.scenario.exercise_sessions` (intensity 0-1 of shape
            ``(P, days * 1440)``), or ``None``; see ``docs/cgm-exercise.md``.
        engine: ``"numpy"`` (array code), ``"numba"`` (compiled; the ``[cgm]`` extra installs
            numba) or ``"auto"``: ``$WEARBENCH_SIM_ENGINE`` when set, else numba when installed.
            Both give the same numbers to 1e-9 mg/dL; see ``docs/cgm-simulator-speed.md``.

    Returns:
        One row per patient and minute: ``patient``, ``minute``, ``true_bg`` (plasma glucose,
        mg/dL), ``gsub`` (subcutaneous glucose, simglucose's "BG", mg/dL), ``cgm`` (reading,
        mg/dL), ``carbs`` (announced, g), ``insulin`` (delivered over the minute, U/min).
        With ``faults``, ``cgm`` is what the sensor showed (NaN while missing), ``carbs`` what was
        announced to the controller, ``insulin`` what the pump showed, and the frame gains
        ``cgm_clean`` (fault-free reading), ``carbs_eaten`` (g), ``insulin_requested`` (the
        controller's dose after pump rounding, U/min), ``insulin_delivered`` (into the patient,
        U/min) and ``label`` (active fault, ``""`` when normal); see ``docs/cgm-faults.md``.
        With ``exercise``, the frame gains ``exercise`` (effective intensity, 0-1).
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
    ctrl: object = registry.get("controller", controller).obj() if isinstance(controller, str) else controller
    if not isinstance(ctrl, Controller):
        raise WearbenchError(f"controller {controller!r} is not a Controller")
    ctrl.reset(params)
    cgm_sensor = Sensor.named(sensor) if sensor is not None else None
    noise = cgm_sensor.noise(n, minutes, rng) if cgm_sensor is not None else None
    the_pump = Pump.named(pump) if pump is not None else None
    ex = None
    if exercise is not None:
        ex = np.asarray(exercise[0], dtype=np.float64)
        if ex.shape != (n, minutes) or not np.all((ex >= 0) & (ex <= 1)):
            raise WearbenchError(f"exercise intensity must have shape {(n, minutes)} and lie in [0, 1]")

    state = initial_state(params)
    plain_sensor, plain_pump = PlainSensor(cgm_sensor, noise), PlainPump(the_pump, n)
    stages: tuple[CGMStage, MealStage, PumpStage] = (plain_sensor, PlainMeals(), plain_pump)
    if faults is not None:
        stages = faulty_stages(
            faults, plain_sensor, plain_pump, params.basal_rate, minutes, state.gsub(params)
        )
    if faults is None and fast_loop_supports(ctrl, engine):  # the whole loop compiled
        rec = run_fast(params, carbs_all, ctrl, cgm_sensor, noise, the_pump, substeps, ex)
    else:
        rec = run_loop(params, state, carbs_all, ctrl, stages, substeps, ex, engine)
    columns = ["true_bg", "gsub", "cgm", "carbs", "insulin"]
    if faults is not None:
        columns = ["true_bg", "gsub", "cgm", "cgm_clean", "carbs", "carbs_eaten", "insulin",
                   "insulin_requested", "insulin_delivered"]  # fmt: skip
    rec["carbs_eaten"] = carbs_all.T
    names, codes = np.unique(np.asarray(patients), return_inverse=True)  # sorted, as pd.Categorical
    frame = pd.DataFrame(
        {
            "patient": pd.Categorical.from_codes(np.repeat(codes, minutes), categories=pd.Index(names)),
            "minute": np.tile(np.arange(minutes), n),
            **{k: rec[k].T.ravel() for k in (*columns, "basal", "bolus")},
        }
    )
    if faults is not None:
        frame["label"] = faults.label_matrix(n, minutes).ravel()
    if ex is not None:
        frame["exercise"] = ex.ravel()
    return frame
