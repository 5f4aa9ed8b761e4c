"""The whole closed loop compiled with numba, for plain runs (no faults) with a built-in controller.

:func:`run_fast` does what :func:`~wearbench.sim._loop.run_loop` does with the plain stages
(:class:`~wearbench.sim._loop.PlainSensor`, :class:`~wearbench.sim._loop.PlainMeals`,
:class:`~wearbench.sim._loop.PlainPump`) and the basal-bolus or PID controller, minute by minute
but one patient at a time inside one compiled function: the sensor reads ``gsub + noise`` (noise
precomputed by :meth:`Sensor.noise`) every ``sample_time`` minutes, clipped and held; the
controller decides; the pump rounds and clips; the patient advances through the same kernel as
the compiled :func:`~wearbench.sim.patient.step_minute`, so the result equals ``run_loop`` with
``engine="numba"`` bit for bit and the numpy engine to about 1e-13 mg/dL
(``tests/sim/test_compiled.py``). Anything else (faults, other controllers, other stages) runs
through ``run_loop``.
"""

from __future__ import annotations

import numpy as np

from wearbench.sim._loop import RECORDED
from wearbench.sim.controller import BasalBolusController, Controller, PIDController
from wearbench.sim.patient import PatientParams, initial_state
from wearbench.sim.patient._compiled import VG_COLUMN, compiled_system, jit, patient_minute, resolve_engine
from wearbench.sim.patient._model import (
    EXERCISE_SENSITIVITY,
    EXERCISE_TAU_OFF,
    EXERCISE_TAU_ON,
    EXERCISE_UPTAKE,
)
from wearbench.sim.patient._params import N_STATES, FloatArray
from wearbench.sim.pump import Pump
from wearbench.sim.sensor import Sensor

__all__ = ["fast_loop_supports", "run_fast"]

_BASAL_BOLUS, _PID = 0, 1
# Rows of the kernel's output: true_bg, gsub, cgm, insulin, basal, bolus.
_OUT_ROWS = 6


def fast_loop_supports(controller: Controller, engine: str = "auto") -> bool:
    """Whether a fault-free run with ``controller`` can take the compiled loop under ``engine``."""
    return resolve_engine(engine) == "numba" and type(controller) in (BasalBolusController, PIDController)


def _controller_config(controller: Controller) -> tuple[int, FloatArray]:
    if isinstance(controller, PIDController):
        c = controller
        return _PID, np.array([c.p, c.i, c.d, c.target, c.dt], dtype=np.float64)
    if isinstance(controller, BasalBolusController):
        return _BASAL_BOLUS, np.array([controller.target], dtype=np.float64)
    raise TypeError(f"the compiled loop has no controller {type(controller).__name__}")


def _pump_config(pump: Pump | None) -> FloatArray:
    if pump is None:
        return np.zeros(0)
    keys = (pump.inc_basal, pump.min_basal, pump.max_basal, pump.inc_bolus, pump.min_bolus, pump.max_bolus)
    return np.array(keys, dtype=np.float64)


def run_fast(
    params: PatientParams,
    eaten: FloatArray,
    controller: Controller,
    sensor: Sensor | None,
    noise: FloatArray | None,
    pump: Pump | None,
    substeps: int,
    exercise: FloatArray | None = None,
) -> dict[str, FloatArray]:
    """Run the plain closed loop compiled; the same streams as :func:`run_loop`.

    Args:
        params: Patient parameters.
        eaten: Carbs eaten and announced (g), shape ``(P, minutes)``.
        controller: A :class:`BasalBolusController` or :class:`PIDController` (its settings are
            read; it is used from its reset state and not updated).
        sensor: The CGM sensor, or ``None`` for noise-free ``gsub`` every minute.
        noise: Sensor noise (mg/dL) of shape ``(P, minutes)`` from :meth:`Sensor.noise`.
        pump: The pump, or ``None`` to deliver requests exactly.
        substeps: RK4 steps per minute.
        exercise: Exercise intensity (0-1), shape ``(P, minutes)``, or ``None``.

    Returns:
        Each stream of :data:`~wearbench.sim._loop.RECORDED`, shape ``(minutes, P)``.
    """
    n, minutes = eaten.shape
    state = initial_state(params)
    meal = np.stack([state.planned, state.last_carbs, state.last_qsto, state.food_taken])
    per_patient = np.stack([params.basal_rate, params.CR, params.CF], axis=1)
    kind, ctrl = _controller_config(controller)
    sensor_cfg, noise_arr = np.zeros(3), np.zeros((0, 0))
    if sensor is not None and noise is not None:
        sensor_cfg = np.array([sensor.sample_time, sensor.min_bg, sensor.max_bg], dtype=np.float64)
        noise_arr = np.ascontiguousarray(noise, dtype=np.float64)
    ex = np.zeros((0, 0)) if exercise is None else np.ascontiguousarray(exercise, dtype=np.float64)
    # the decay factors as exercise_step computes them (numpy scalar exp), so the bits agree
    rise, fall = np.exp(-1.0 / EXERCISE_TAU_ON), np.exp(-1.0 / EXERCISE_TAU_OFF)
    ex_cfg = np.array([rise, fall, EXERCISE_UPTAKE, EXERCISE_SENSITIVITY], dtype=np.float64)
    out = np.empty((_OUT_ROWS, n, minutes))
    _loop_kernel(
        np.ascontiguousarray(state.x), meal, compiled_system(params).table, per_patient,
        np.ascontiguousarray(eaten, dtype=np.float64), noise_arr, sensor_cfg, _pump_config(pump),
        kind, ctrl, ex, ex_cfg, substeps, out,
    )  # fmt: skip
    true_bg, gsub, cgm, insulin, basal, bolus = out
    rec = {"true_bg": true_bg, "gsub": gsub, "cgm": cgm, "cgm_clean": cgm.copy(), "carbs": eaten.copy(),
           "insulin": insulin, "insulin_requested": insulin.copy(), "insulin_delivered": insulin.copy(),
           "basal": basal, "bolus": bolus, "long_acting": np.zeros((n, minutes))}  # fmt: skip
    return {k: rec[k].T for k in RECORDED}


@jit
def _deliver(rate: float, inc: float, lo: float, hi: float) -> float:  # pragma: no cover - compiled
    """The pump's rounding and clipping of one rate (U/min), as ``sim.pump``'s ``_deliver``."""
    v: float = np.round(rate * 6000.0 / inc) * inc / 6000.0
    if v < lo:
        return lo
    if v > hi:
        return hi
    return v


@jit
def _policy(
    kind: int,
    ctrl: FloatArray,
    cgm: float,
    carbs: float,
    basal_rate: float,
    cr: float,
    cf: float,
    memory: FloatArray,
) -> tuple[float, float]:  # pragma: no cover - compiled
    """Basal and bolus (U/min) of one patient; ``memory`` is PID's ``(integral, previous)``."""
    if kind == _PID:
        error = cgm - ctrl[3]
        basal = ctrl[0] * error + ctrl[1] * memory[0] + ctrl[2] * (cgm - memory[1]) / ctrl[4]
        memory[1] = cgm
        memory[0] = memory[0] + error * ctrl[4]
        return basal, 0.0
    correction = (cgm - ctrl[0]) / cf if cgm > 150.0 else 0.0
    return basal_rate, (carbs / cr + correction if carbs > 0 else 0.0)


@jit
def _loop_kernel(
    x0: FloatArray,
    meal0: FloatArray,
    table: FloatArray,
    per_patient: FloatArray,
    eaten: FloatArray,
    noise: FloatArray,
    sensor_cfg: FloatArray,
    pump_cfg: FloatArray,
    kind: int,
    ctrl: FloatArray,
    ex: FloatArray,
    ex_cfg: FloatArray,
    substeps: int,
    out: FloatArray,
) -> None:  # pragma: no cover - compiled
    """Every patient's whole run into ``out`` (rows true_bg, gsub, cgm, insulin, basal, bolus).

    ``per_patient`` holds basal rate (U/min), CR, CF per patient; ``sensor_cfg`` the sample time
    (min; 0 without sensor: ``gsub`` every minute), minimum and maximum reading (mg/dL);
    ``pump_cfg`` increment, minimum, maximum of basal then bolus (empty without pump);
    ``ex_cfg`` the exercise decay factors per minute (rising, falling), uptake and sensitivity.
    """
    n, minutes = eaten.shape
    has_ex, sample_time = ex.shape[0] > 0, int(sensor_cfg[0])
    x, meal = np.empty(N_STATES), np.empty(4)
    work, memory = np.empty((6, N_STATES)), np.empty(2)
    for p in range(n):
        c, basal_rate, cr, cf = table[p], per_patient[p, 0], per_patient[p, 1], per_patient[p, 2]
        x[:] = x0[:, p]
        meal[:] = meal0[:, p]
        memory[0], memory[1] = 0.0, 0.0
        z, reading = 0.0, 0.0
        for t in range(minutes):
            gsub = x[N_STATES - 1] / c[VG_COLUMN]
            if sample_time == 0:
                reading = gsub
            elif t % sample_time == 0:
                reading = min(max(gsub + noise[p, t], sensor_cfg[1]), sensor_cfg[2])
            carbs = eaten[p, t]
            basal, bolus = _policy(kind, ctrl, reading, carbs, basal_rate, cr, cf, memory)
            if pump_cfg.shape[0] > 0:
                basal = _deliver(basal, pump_cfg[0], pump_cfg[1], pump_cfg[2])
                bolus = _deliver(bolus, pump_cfg[3], pump_cfg[4], pump_cfg[5])
            total = basal + bolus
            out[0, p, t], out[1, p, t], out[2, p, t] = x[3] / c[VG_COLUMN], gsub, reading
            out[3, p, t], out[4, p, t], out[5, p, t] = total, basal, bolus
            uptake, gain = 0.0, 0.0
            if has_ex:
                e = ex[p, t]
                uptake, gain = ex_cfg[2] * e, ex_cfg[3] * z
                z = e + (z - e) * ex_cfg[0] if e > z else z * ex_cfg[1]
            patient_minute(x, meal, c, carbs, total, substeps, has_ex, uptake, gain, work)
