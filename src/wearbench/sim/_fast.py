"""The whole closed loop compiled with numba, for plain runs (no faults) with a built-in controller.

:func:`run_fast` does what :func:`~wearbench.sim._loop.run_loop` does with the plain stages
(:class:`~wearbench.sim._loop.PlainSensor`, :class:`~wearbench.sim._loop.PlainMeals`,
:class:`~wearbench.sim._loop.PlainPump`) and the basal-bolus or PID controller, minute by minute
but one patient at a time inside one compiled function: the sensor reads ``gsub + noise`` (noise
precomputed by :meth:`Sensor.noise`) every ``sample_time`` minutes, clipped and held; the
controller decides; the pump rounds and clips; the patient advances through the same kernel as
the compiled :func:`~wearbench.sim.patient.step_minute`, so the result equals ``run_loop`` with
``engine="numba"`` bit for bit and the numpy engine to about 1e-13 mg/dL
(``tests/sim/test_compiled.py``). It keeps checkpoints (:class:`~wearbench.sim._loop.LoopState`)
as ``run_loop`` does. Anything else (faults, other controllers, other stages, rescue carbs) runs
through ``run_loop``.

:func:`resume_fast` runs the same kernel from saved states (:func:`pack_state` of a
``LoopState``), each patient from its own start minute to its own stop minute, optionally with
insulin taken by hand added to the dose as the counterfactual ``ExtraInsulin`` pump stage does:
the counterfactual batches of ``sim/_counterfactual.py`` run through it.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable

import numpy as np

from wearbench.sim._loop import RECORDED, LoopRecord, LoopState, PlainMeals, PlainPump, PlainSensor
from wearbench.sim.controller import BasalBolusController, Controller, PIDController
from wearbench.sim.patient import PatientParams, PatientState, initial_state
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

_BASAL_BOLUS, _PID = 0, 1
#: Rows of the kernel's output (:func:`resume_fast`): the streams of RECORDED it computes.
FAST_ROWS = ("true_bg", "gsub", "cgm", "insulin", "basal", "bolus")
# Rows of a packed loop state (one column per patient): the patient model x, the meal bookkeeping
# (planned, last_carbs, last_qsto, food_taken), the exercise state z, the sensor's held reading and
# whether it holds one, and the PID integral and previous reading.
_MEAL = N_STATES
_Z, _HELD, _HOLDS, _INTEGRAL, _PREVIOUS = range(N_STATES + 4, N_STATES + 9)
#: Rows of a packed loop state (see :func:`pack_state`).
STATE_ROWS = N_STATES + 9
_MEAL_FIELDS = ("planned", "last_carbs", "last_qsto", "food_taken")
_NO_INTS = np.zeros(0, dtype=np.int64)


def fast_loop_supports(controller: Controller, engine: str = "auto") -> bool:
    """Whether a fault-free run with ``controller`` can take the compiled loop under ``engine``.

    Runs with faults or rescue carbs never can (their callers check those).
    """
    return resolve_engine(engine) == "numba" and type(controller) in (BasalBolusController, PIDController)


def fast_resume_supports(state: LoopState, engine: str) -> bool:
    """Whether a re-run from ``state`` can take the compiled loop (plain stages, no rescue carbs)."""
    kinds = tuple(type(s) for s in state.stages)
    plain = kinds == (PlainSensor, PlainMeals, PlainPump) and state.rescue is None
    return plain and fast_loop_supports(state.controller, engine)


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


def pack_state(state: LoopState) -> FloatArray:
    """The loop state the kernel carries, shape ``(STATE_ROWS, P)`` (plain stages, BB or PID).

    Rows: the model state ``x`` (13), ``planned``, ``last_carbs``, ``last_qsto``, ``food_taken``,
    the exercise state ``z``, the sensor's held reading (mg/dL) and 1 when it holds one, then the
    PID controller's integral (mg/dL*min) and previous reading (mg/dL), 0 for basal-bolus.
    """
    n = state.z.shape[0]
    out = np.zeros((STATE_ROWS, n))
    out[:N_STATES] = state.patient.x
    for i, name in enumerate(_MEAL_FIELDS):
        out[_MEAL + i] = getattr(state.patient, name)
    out[_Z] = state.z
    held = state.stages[0]._last if isinstance(state.stages[0], PlainSensor) else None
    if held is not None:
        out[_HELD], out[_HOLDS] = held, 1.0
    ctrl = state.controller
    if isinstance(ctrl, PIDController) and ctrl._integral is not None and ctrl._previous is not None:
        out[_INTEGRAL], out[_PREVIOUS] = ctrl._integral, ctrl._previous
    return out


def _unpack_state(
    minute: int, packed: FloatArray, controller: Controller, stages: tuple[PlainSensor, PlainMeals, PlainPump]
) -> LoopState:
    """A :class:`LoopState` (own copies) from a packed state and the run's controller and stages."""
    v = packed.copy()
    patient = PatientState(v[:N_STATES], *(v[_MEAL + i] for i in range(4)))
    ctrl = copy.copy(controller)
    if isinstance(ctrl, PIDController):
        ctrl._integral, ctrl._previous = v[_INTEGRAL], v[_PREVIOUS]
    sensor, meals, pump = copy.copy(stages[0]), copy.copy(stages[1]), copy.copy(stages[2])
    pump._zeros = pump._zeros.copy()
    if v[_HOLDS].all():
        sensor._last = v[_HELD]
    return LoopState(minute, patient, v[_Z], ctrl, (sensor, meals, pump))


def _config(
    params: PatientParams, controller: Controller, sensor: Sensor | None, pump: Pump | None
) -> tuple[FloatArray, FloatArray, FloatArray, FloatArray, int, FloatArray]:
    """Table, per-patient (basal rate, CR, CF), sensor, pump, controller kind and settings."""
    per_patient = np.stack([params.basal_rate, params.CR, params.CF], axis=1)
    kind, ctrl = _controller_config(controller)
    sensor_cfg = np.zeros(3)
    if sensor is not None:
        sensor_cfg = np.array([sensor.sample_time, sensor.min_bg, sensor.max_bg], dtype=np.float64)
    table = compiled_system(params).table
    return table, per_patient, sensor_cfg, _pump_config(pump), kind, ctrl


def _exercise_config() -> FloatArray:
    # the decay factors as exercise_step computes them (numpy scalar exp), so the bits agree
    rise, fall = np.exp(-1.0 / EXERCISE_TAU_ON), np.exp(-1.0 / EXERCISE_TAU_OFF)
    return np.array([rise, fall, EXERCISE_UPTAKE, EXERCISE_SENSITIVITY], dtype=np.float64)


def _rows(a: FloatArray | None) -> FloatArray:
    return np.zeros((0, 0)) if a is None else np.ascontiguousarray(a, dtype=np.float64)


def resume_fast(
    params: PatientParams,
    eaten: FloatArray,
    controller: Controller,
    sensor: Sensor | None,
    noise: FloatArray | None,
    pump: Pump | None,
    substeps: int,
    state: FloatArray,
    span: tuple[np.ndarray, np.ndarray],
    *,
    exercise: FloatArray | None = None,
    exercise_on: np.ndarray | None = None,
    extra_insulin: FloatArray | None = None,
    checkpoints: Iterable[int] = (),
) -> tuple[FloatArray, FloatArray]:
    """Run the plain loop compiled from saved states, each patient over its own minutes.

    Args:
        params: Patient parameters, one per row of the inputs.
        eaten: Carbs eaten and announced (g), shape ``(P, minutes)``, indexed by run minute.
        controller: A :class:`BasalBolusController` or :class:`PIDController` (settings only).
        sensor: The CGM sensor, or ``None`` for noise-free ``gsub`` every minute.
        noise: Sensor noise (mg/dL), shape ``(P, minutes)``, or ``None`` without a sensor.
        pump: The pump, or ``None``.
        substeps: RK4 steps per minute.
        state: Packed states (:func:`pack_state`), shape ``(STATE_ROWS, P)``, at each patient's
            start; replaced in place by the states at each patient's stop.
        span: Start and stop minute of each patient, integer arrays of shape ``(P,)``.
        exercise: Exercise intensity (0-1), shape ``(P, minutes)``, or ``None``.
        exercise_on: Which patients apply the exercise terms (default: all, with ``exercise``).
        extra_insulin: Insulin taken by hand (U in the minute), shape ``(P, minutes)``, added to
            the bolus and the dose after the pump, or ``None``.
        checkpoints: Sorted minutes at whose start to save the packed state.

    Returns:
        The streams of :data:`FAST_ROWS`, shape ``(6, P, L)`` (patient ``p``'s minute ``t`` at
        ``[:, p, t - start[p]]``; ``L`` the longest span), and the saved states, shape
        ``(len(checkpoints), STATE_ROWS, P)``.
    """
    n = eaten.shape[0]
    start, stop = (np.ascontiguousarray(s, dtype=np.int64) for s in span)
    marks = np.asarray(sorted(checkpoints), dtype=np.int64) if checkpoints else _NO_INTS
    ex = _rows(exercise)
    on = np.ones(n, dtype=np.bool_) if exercise_on is None else np.asarray(exercise_on, dtype=np.bool_)
    noise_arr = _rows(noise) if sensor is not None else np.zeros((0, 0))
    table, per_patient, sensor_cfg, pump_cfg, kind, ctrl = _config(params, controller, sensor, pump)
    length = int(np.max(stop - start, initial=0))
    out, snaps = np.empty((len(FAST_ROWS), n, length)), np.zeros((len(marks), STATE_ROWS, n))
    _loop_kernel(
        state, table, per_patient, np.ascontiguousarray(eaten, dtype=np.float64), noise_arr, sensor_cfg,
        pump_cfg, kind, ctrl, ex, on, _exercise_config(), _rows(extra_insulin), substeps, start, stop,
        marks, snaps, out,
    )  # fmt: skip
    return out, snaps


def run_fast(
    params: PatientParams,
    eaten: FloatArray,
    controller: Controller,
    sensor: Sensor | None,
    noise: FloatArray | None,
    pump: Pump | None,
    substeps: int,
    exercise: FloatArray | None = None,
    *,
    checkpoints: Iterable[int] = (),
) -> LoopRecord:
    """Run the plain closed loop compiled from a fresh start; the same record as :func:`run_loop`.

    Args:
        params: Patient parameters.
        eaten: Carbs eaten and announced (g), shape ``(P, minutes)``.
        controller: A :class:`BasalBolusController` or :class:`PIDController` in its reset state
            (its settings are read; it is not updated).
        sensor: The CGM sensor, or ``None`` for noise-free ``gsub`` every minute.
        noise: Sensor noise (mg/dL) of shape ``(P, minutes)`` from :meth:`Sensor.noise`.
        pump: The pump, or ``None`` to deliver requests exactly.
        substeps: RK4 steps per minute.
        exercise: Exercise intensity (0-1), shape ``(P, minutes)``, or ``None``.
        checkpoints: Minutes in ``[0, minutes]`` at whose start to keep the loop's state.

    Returns:
        Each stream of :data:`~wearbench.sim._loop.RECORDED`, shape ``(minutes, P)``, with the
        checkpoints and the end state as :func:`run_loop` keeps them (stages: the plain ones).
    """
    n, minutes = eaten.shape
    state = initial_state(params)
    packed = np.zeros((STATE_ROWS, n))
    packed[:N_STATES] = state.x
    for i, name in enumerate(_MEAL_FIELDS):
        packed[_MEAL + i] = getattr(state, name)
    marks = sorted(set(checkpoints))
    span = (np.zeros(n, dtype=np.int64), np.full(n, minutes, dtype=np.int64))
    out, snaps = resume_fast(
        params, eaten, controller, sensor, noise, pump, substeps, packed, span, exercise=exercise,
        checkpoints=marks,
    )  # fmt: skip
    true_bg, gsub, cgm, insulin, basal, bolus = out
    streams = {"true_bg": true_bg, "gsub": gsub, "cgm": cgm, "cgm_clean": cgm.copy(), "carbs": eaten.copy(),
               "insulin": insulin, "insulin_requested": insulin.copy(), "insulin_delivered": insulin.copy(),
               "basal": basal, "bolus": bolus, "long_acting": np.zeros((n, minutes)),
               "rescue": np.zeros((n, minutes))}  # fmt: skip
    rec = LoopRecord({k: streams[k].T for k in RECORDED})
    stages = (PlainSensor(sensor, noise), PlainMeals(), PlainPump(pump, n))
    rec.checkpoints = {m: _unpack_state(m, snaps[j], controller, stages) for j, m in enumerate(marks)}
    rec.end = _unpack_state(minutes, packed, controller, stages)
    return rec


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
def _save(
    dest: FloatArray, p: int, x: FloatArray, meal: FloatArray, carried: FloatArray, memory: FloatArray
) -> None:  # pragma: no cover - compiled
    """Write patient ``p``'s loop state into column ``p`` of ``dest`` (the packed layout)."""
    for i in range(N_STATES):
        dest[i, p] = x[i]
    for i in range(4):
        dest[N_STATES + i, p] = meal[i]
    for i in range(3):  # z, held reading, holds
        dest[N_STATES + 4 + i, p] = carried[i]
    dest[N_STATES + 7, p], dest[N_STATES + 8, p] = memory[0], memory[1]


@jit
def _loop_kernel(
    state: FloatArray,
    table: FloatArray,
    per_patient: FloatArray,
    eaten: FloatArray,
    noise: FloatArray,
    sensor_cfg: FloatArray,
    pump_cfg: FloatArray,
    kind: int,
    ctrl: FloatArray,
    ex: FloatArray,
    ex_on: np.ndarray,
    ex_cfg: FloatArray,
    extra: FloatArray,
    substeps: int,
    start: np.ndarray,
    stop: np.ndarray,
    marks: np.ndarray,
    snaps: FloatArray,
    out: FloatArray,
) -> None:  # pragma: no cover - compiled
    """Every patient from ``start[p]`` to ``stop[p]`` into ``out`` (rows of ``FAST_ROWS``).

    ``state`` holds the packed states (:func:`pack_state`), replaced by the end states;
    ``per_patient`` basal rate (U/min), CR, CF per patient; ``sensor_cfg`` the sample time
    (min; 0 without sensor: ``gsub`` every minute), minimum and maximum reading (mg/dL);
    ``pump_cfg`` increment, minimum, maximum of basal then bolus (empty without pump);
    ``ex_cfg`` the exercise decay factors per minute (rising, falling), uptake and sensitivity;
    ``extra`` insulin taken by hand (U, empty without); ``snaps[j]`` gets the state at the start
    of minute ``marks[j]``.
    """
    n, n_marks = state.shape[1], marks.shape[0]
    sample_time, has_extra = int(sensor_cfg[0]), extra.shape[0] > 0
    x, meal, carried = np.empty(N_STATES), np.empty(4), np.empty(3)
    work, memory = np.empty((6, N_STATES)), np.empty(2)
    for p in range(n):
        c, basal_rate, cr, cf = table[p], per_patient[p, 0], per_patient[p, 1], per_patient[p, 2]
        x[:] = state[:N_STATES, p]
        meal[:] = state[N_STATES : N_STATES + 4, p]
        z, reading, holds = state[N_STATES + 4, p], state[N_STATES + 5, p], state[N_STATES + 6, p] > 0
        memory[0], memory[1] = state[N_STATES + 7, p], state[N_STATES + 8, p]
        has_ex, first, j = bool(ex_on[p]) if ex.shape[0] > 0 else False, start[p], 0
        while j < n_marks and marks[j] < first:
            j += 1
        for t in range(first, stop[p]):
            if j < n_marks and marks[j] == t:
                carried[0], carried[1], carried[2] = z, reading, 1.0 if holds else 0.0
                _save(snaps[j], p, x, meal, carried, memory)
                j += 1
            gsub = x[N_STATES - 1] / c[VG_COLUMN]
            if sample_time == 0:
                reading = gsub
            elif t % sample_time == 0 or not holds:
                reading = min(max(gsub + noise[p, t], sensor_cfg[1]), sensor_cfg[2])
            holds = True
            carbs = eaten[p, t]
            basal, bolus = _policy(kind, ctrl, reading, carbs, basal_rate, cr, cf, memory)
            if pump_cfg.shape[0] > 0:
                basal = _deliver(basal, pump_cfg[0], pump_cfg[1], pump_cfg[2])
                bolus = _deliver(bolus, pump_cfg[3], pump_cfg[4], pump_cfg[5])
            total = basal + bolus
            if has_extra and extra[p, t] != 0.0:  # as ExtraInsulin: on top of the pump's dose
                bolus, total = bolus + extra[p, t], total + extra[p, t]
            k = t - first
            out[0, p, k], out[1, p, k], out[2, p, k] = x[3] / c[VG_COLUMN], gsub, reading
            out[3, p, k], out[4, p, k], out[5, p, k] = total, basal, bolus
            uptake, gain = 0.0, 0.0
            if has_ex:
                e = ex[p, t]
                uptake, gain = ex_cfg[2] * e, ex_cfg[3] * z
                z = e + (z - e) * ex_cfg[0] if e > z else z * ex_cfg[1]
            patient_minute(x, meal, c, carbs, total, substeps, has_ex, uptake, gain, work)
        carried[0], carried[1], carried[2] = z, reading, 1.0 if holds else 0.0
        if j < n_marks and marks[j] == stop[p]:
            _save(snaps[j], p, x, meal, carried, memory)
        _save(state, p, x, meal, carried, memory)
