"""Closed-loop simulation of P virtual patients at once: meals -> controller -> pump -> patient."""

from __future__ import annotations

from typing import Literal

import numpy as np
import pandas as pd

from wearbench._errors import WearbenchError
from wearbench.sim.controller import BasalBolusController, Controller, PIDController
from wearbench.sim.faults import FaultInjector, FaultPlan
from wearbench.sim.patient import initial_state, linear_system, load_params, step_minute
from wearbench.sim.patient._model import exercise_step
from wearbench.sim.patient._params import FloatArray, PatientParams
from wearbench.sim.pump import Pump
from wearbench.sim.scenario import check_carbs, fixed_meals, random_meals
from wearbench.sim.sensor import Sensor

__all__ = ["simulate"]

MINUTES_PER_DAY = 1440


def simulate(
    patients: list[str],
    days: int,
    *,
    controller: Literal["basal-bolus", "pid"] | Controller = "basal-bolus",
    sensor: str | None = "Dexcom",
    pump: str | None = "Insulet",
    meals: Literal["random", "fixed"] | FloatArray = "random",
    seed: int | np.random.Generator = 0,
    substeps: int = 2,
    faults: FaultPlan | None = None,
    exercise: tuple[FloatArray, pd.DataFrame] | None = None,
) -> pd.DataFrame:
    """Simulate T1D patients minute by minute, all patients vectorised together.

    Each minute ``t``: the sensor reads (every ``sample_time`` min; held in between), the meal
    scenario announces carbs, the controller picks basal and bolus, the pump rounds and clips
    them, and the patient model advances one minute with those inputs.

    Args:
        patients: simglucose patient names, e.g. ``["adult#001", "child#007"]`` (repeats allowed).
        days: Days to simulate.
        controller: ``"basal-bolus"``, ``"pid"`` (simglucose's example gains) or a
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
    ctrl: object = controller
    if controller == "basal-bolus":
        ctrl = BasalBolusController()
    elif controller == "pid":
        ctrl = PIDController()
    if not isinstance(ctrl, Controller):
        raise WearbenchError(f"unknown controller {controller!r}")
    ctrl.reset(params)
    cgm_sensor = Sensor.named(sensor) if sensor is not None else None
    noise = cgm_sensor.noise(n, minutes, rng) if cgm_sensor is not None else None
    the_pump = Pump.named(pump) if pump is not None else None
    ex = None
    if exercise is not None:
        ex = np.asarray(exercise[0], dtype=np.float64)
        if ex.shape != (n, minutes) or not np.all((ex >= 0) & (ex <= 1)):
            raise WearbenchError(f"exercise intensity must have shape {(n, minutes)} and lie in [0, 1]")

    if faults is not None:
        frame = _simulate_faulty(params, patients, minutes, carbs_all, ctrl, cgm_sensor, noise, the_pump,
                                 substeps, faults, ex)  # fmt: skip
        if ex is not None:
            frame["exercise"] = ex.ravel()
        return frame
    rec = {k: np.empty((minutes, n)) for k in ("true_bg", "gsub", "cgm", "insulin", "basal", "bolus")}
    system = linear_system(params)
    state = initial_state(params)
    cgm = state.gsub(params)
    z, zeros = np.zeros(n), np.zeros(n)  # z: exercise sensitivity state; zeros: broadcast helper
    for t in range(minutes):
        gsub = state.gsub(params)
        if cgm_sensor is None or noise is None:
            cgm = gsub
        elif cgm_sensor.is_sample(t):
            cgm = cgm_sensor.read(gsub, noise[:, t])
        carbs = carbs_all[:, t]
        action = ctrl.policy(cgm, carbs, t)
        if the_pump is None:
            basal, bolus = action.basal + zeros, action.bolus + zeros
        else:
            basal, bolus = the_pump.basal(action.basal) + zeros, the_pump.bolus(action.bolus) + zeros
        insulin = basal + bolus
        rec["basal"][t], rec["bolus"][t] = basal, bolus
        rec["true_bg"][t] = state.bg(params)
        rec["gsub"][t] = gsub
        rec["cgm"][t] = cgm
        rec["insulin"][t] = insulin
        if ex is None:
            state = step_minute(state, carbs, insulin, params, substeps, system)
        else:
            uptake, gain, z = exercise_step(ex[:, t], z)
            state = step_minute(state, carbs, insulin, params, substeps, system, uptake, gain)

    frame = pd.DataFrame(
        {
            "patient": pd.Categorical(np.repeat(np.asarray(patients), minutes)),
            "minute": np.tile(np.arange(minutes), n),
            **{k: v.T.ravel() for k, v in rec.items() if k not in ("insulin", "basal", "bolus")},
            "carbs": carbs_all.ravel(),
            "insulin": rec["insulin"].T.ravel(),
            "basal": rec["basal"].T.ravel(),
            "bolus": rec["bolus"].T.ravel(),
        }
    )
    if ex is not None:
        frame["exercise"] = ex.ravel()
    return frame


def _simulate_faulty(
    params: PatientParams,
    patients: list[str],
    minutes: int,
    carbs_all: FloatArray,
    ctrl: Controller,
    cgm_sensor: Sensor | None,
    noise: FloatArray | None,
    the_pump: Pump | None,
    substeps: int,
    faults: FaultPlan,
    ex: FloatArray | None = None,
) -> pd.DataFrame:
    """The loop of :func:`simulate` with faults applied to each stream (see ``docs/cgm-faults.md``)."""
    n = params.n_patients
    faults.check(n, minutes)
    zeros = np.zeros(n)
    low = cgm_sensor.min_bg if cgm_sensor is not None else 39.0
    high = cgm_sensor.max_bg if cgm_sensor is not None else 600.0
    max_basal = 4.0 * np.asarray(params.basal_rate, dtype=np.float64)  # keeps the model in range
    if the_pump is not None:
        max_basal = np.minimum(max_basal, the_pump.max_basal)
    min_basal = zeros + (the_pump.min_basal if the_pump is not None else 0.0)
    inj = FaultInjector(
        faults, n, minutes, {"cgm": (zeros + low, zeros + high), "basal": (min_basal, max_basal)}
    )
    keys = (
        "true_bg",
        "gsub",
        "cgm",
        "cgm_clean",
        "carbs",
        "insulin",
        "insulin_requested",
        "insulin_delivered",
        "basal",
        "bolus",
    )
    rec = {k: np.empty((minutes, n)) for k in keys}
    system = linear_system(params)
    state = initial_state(params)
    cgm = state.gsub(params)
    shown = cgm.copy()
    held = cgm.copy()  # last valid reading, what the controller uses while the signal is missing
    z = zeros.copy()
    for t in range(minutes):
        gsub = state.gsub(params)
        sample = cgm_sensor is None or cgm_sensor.is_sample(t)
        if cgm_sensor is None or noise is None:
            cgm = gsub
        elif sample:
            cgm = cgm_sensor.read(gsub, noise[:, t])
        faulty = inj.apply("cgm", t, cgm)
        if sample:
            shown = faulty
            held = np.where(np.isnan(shown), held, shown)
        eaten = carbs_all[:, t]
        announced = inj.apply("meal", t, eaten)
        action = ctrl.policy(held, announced, t)
        if the_pump is None:
            basal, bolus = action.basal + zeros, action.bolus + zeros
        else:
            basal, bolus = the_pump.basal(action.basal) + zeros, the_pump.bolus(action.bolus) + zeros
        shown_basal, shown_bolus = inj.apply("basal", t, basal), inj.apply("bolus", t, bolus)
        displayed = shown_basal + shown_bolus
        rec["basal"][t], rec["bolus"][t] = shown_basal, shown_bolus
        delivered = inj.apply("total", t, displayed)
        for k, v in (("true_bg", state.bg(params)), ("gsub", gsub), ("cgm", shown), ("cgm_clean", cgm),
                     ("carbs", announced), ("insulin", displayed), ("insulin_requested", basal + bolus),
                     ("insulin_delivered", delivered)):  # fmt: skip
            rec[k][t] = v
        if ex is None:
            state = step_minute(state, eaten, delivered, params, substeps, system)
        else:
            uptake, gain, z = exercise_step(ex[:, t], z)
            state = step_minute(state, eaten, delivered, params, substeps, system, uptake, gain)

    return pd.DataFrame(
        {
            "patient": pd.Categorical(np.repeat(np.asarray(patients), minutes)),
            "minute": np.tile(np.arange(minutes), n),
            **{k: rec[k].T.ravel() for k in ("true_bg", "gsub", "cgm", "cgm_clean", "carbs")},
            "carbs_eaten": carbs_all.ravel(),
            **{k: rec[k].T.ravel() for k in ("insulin", "insulin_requested", "insulin_delivered")},
            "basal": rec["basal"].T.ravel(),
            "bolus": rec["bolus"].T.ravel(),
            "label": faults.label_matrix(n, minutes).ravel(),
        }
    )
