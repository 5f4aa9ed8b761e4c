"""Closed-loop simulation of P virtual patients at once: meals -> controller -> pump -> patient."""

from __future__ import annotations

from typing import Literal

import numpy as np
import pandas as pd

from wearbench._errors import WearbenchError
from wearbench.sim.controller import BasalBolusController, Controller, PIDController
from wearbench.sim.patient import initial_state, linear_system, load_params, step_minute
from wearbench.sim.patient._params import FloatArray
from wearbench.sim.pump import Pump
from wearbench.sim.scenario import fixed_meals, random_meals
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

    Returns:
        One row per patient and minute: ``patient``, ``minute``, ``true_bg`` (plasma glucose,
        mg/dL), ``gsub`` (subcutaneous glucose, simglucose's "BG", mg/dL), ``cgm`` (reading,
        mg/dL), ``carbs`` (announced, g), ``insulin`` (delivered over the minute, U/min).
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

    rec = {k: np.empty((minutes, n)) for k in ("true_bg", "gsub", "cgm", "insulin")}
    system = linear_system(params)
    state = initial_state(params)
    cgm = state.gsub(params)
    for t in range(minutes):
        gsub = state.gsub(params)
        if cgm_sensor is None or noise is None:
            cgm = gsub
        elif cgm_sensor.is_sample(t):
            cgm = cgm_sensor.read(gsub, noise[:, t])
        carbs = carbs_all[:, t]
        action = ctrl.policy(cgm, carbs, t)
        if the_pump is None:
            insulin = action.basal + action.bolus
        else:
            insulin = the_pump.basal(action.basal) + the_pump.bolus(action.bolus)
        rec["true_bg"][t] = state.bg(params)
        rec["gsub"][t] = gsub
        rec["cgm"][t] = cgm
        rec["insulin"][t] = insulin
        state = step_minute(state, carbs, insulin, params, substeps, system)

    return pd.DataFrame(
        {
            "patient": pd.Categorical(np.repeat(np.asarray(patients), minutes)),
            "minute": np.tile(np.arange(minutes), n),
            **{k: v.T.ravel() for k, v in rec.items() if k != "insulin"},
            "carbs": carbs_all.ravel(),
            "insulin": rec["insulin"].T.ravel(),
        }
    )
