"""The patient model compiled with numba: scalar per-patient code for one minute of P patients.

The same arithmetic as :func:`~wearbench.sim.patient._step.step_minute` (simglucose's meal
bookkeeping, then ``substeps`` RK4 steps of :func:`~wearbench.sim.patient._model.rhs_terms` with
inputs held over the minute, optional exercise terms), written per patient and per state instead
of as ``(13, P)`` array expressions. The two agree to about 1e-13 mg/dL over a day (only the order
of a few additions and ``tanh``'s last bit differ; ``tests/sim/test_compiled.py``).

The kernels are compiled on first use with ``cache=True`` (kept in ``__pycache__``; set
``NUMBA_CACHE_DIR`` where that is read-only). Without numba installed they stay plain Python
functions: correct but slow, and the simulator uses the numpy path instead
(:func:`resolve_engine`).

Engines: ``"numpy"`` (the vectorised array code), ``"numba"`` (these kernels) and ``"auto"``: the
environment variable ``WEARBENCH_SIM_ENGINE`` (``numpy`` or ``numba``) when set, otherwise numba
when it can be imported.
"""

from __future__ import annotations

import importlib
import math
import os
from collections.abc import Callable
from typing import Any, Literal, NamedTuple, TypeVar, cast

import numpy as np

from wearbench._errors import WearbenchError
from wearbench.sim.patient._params import N_STATES, FloatArray, PatientParams

_njit: Callable[..., Any] | None
try:
    _njit = importlib.import_module("numba").njit
except ImportError:  # pragma: no cover - exercised where numba is absent
    _njit = None

Engine = Literal["auto", "numpy", "numba"]
ENGINE_ENV = "WEARBENCH_SIM_ENGINE"
#: Whether numba can be imported (the compiled engine is available).
HAVE_NUMBA = _njit is not None

F = TypeVar("F", bound=Callable[..., Any])


def jit(fn: F) -> F:
    """``numba.njit(cache=True)`` when numba is installed, else ``fn`` unchanged."""
    if _njit is None:  # pragma: no cover
        return fn
    return cast(F, _njit(cache=True)(fn))


def resolve_engine(engine: str = "auto") -> Literal["numpy", "numba"]:
    """The engine to run: ``"numpy"`` or ``"numba"``.

    Args:
        engine: ``"numpy"``, ``"numba"``, or ``"auto"`` (``$WEARBENCH_SIM_ENGINE`` if set, else
            numba when importable).

    Raises:
        WearbenchError: An unknown engine name, or ``"numba"`` without numba installed.
    """
    if engine == "auto":
        engine = os.environ.get(ENGINE_ENV, "").strip().lower() or ("numba" if HAVE_NUMBA else "numpy")
    if engine == "numpy":
        return "numpy"
    if engine == "numba":
        if not HAVE_NUMBA:
            raise WearbenchError("engine 'numba' needs numba (pip install 'wearbench[cgm]')")
        return "numba"
    raise WearbenchError(f"unknown simulator engine {engine!r}: expected auto, numpy or numba ({ENGINE_ENV})")


# Columns of the packed parameter table, one row per patient.
(_KMAX, _HALF, _B, _D, _KABS, _RA, _K1, _K2, _FSNC, _M24, _M1, _KA1, _KA2, _P2UVI, _P2U, _P2UIB,
 _KIVI, _KI, _M130, _KA1D, _KD, _KSC, _KP1, _KP2, _KP3, _KE1, _KE12, _VM0, _VMX, _KM0, _INS, _VG,
 _M2, N_COLUMNS) = range(34)  # fmt: skip
#: Column of ``Vg`` (dL/kg) in :attr:`CompiledSystem.table`.
VG_COLUMN = _VG


class CompiledSystem(NamedTuple):
    """Patient parameters packed for the compiled kernels.

    Attributes:
        table: Shape ``(P, 33)``: per patient the model coefficients, in the form the numpy
            path's :func:`~wearbench.sim.patient._model.linear_system` computes them.
    """

    table: FloatArray


def compiled_system(params: PatientParams) -> CompiledSystem:
    """Pack ``params`` for :func:`step_patients` (the compiled counterpart of ``linear_system``)."""
    p = params
    cols = {
        _KMAX: p.kmax, _HALF: (p.kmax - p.kmin) / 2.0, _B: p.b, _D: p.d, _KABS: p.kabs,
        _RA: p.f * p.kabs / p.BW, _K1: p.k1, _K2: p.k2, _FSNC: p.Fsnc, _M24: p.m2 + p.m4, _M1: p.m1,
        _KA1: p.ka1, _KA2: p.ka2, _P2UVI: p.p2u / p.Vi, _P2U: p.p2u, _P2UIB: -p.p2u * p.Ib,
        _KIVI: p.ki / p.Vi, _KI: p.ki, _M130: p.m1 + p.m30, _KA1D: p.ka1 + p.kd, _KD: p.kd,
        _KSC: p.ksc, _KP1: p.kp1, _KP2: p.kp2, _KP3: p.kp3, _KE1: p.ke1, _KE12: -p.ke1 * p.ke2,
        _VM0: p.Vm0, _VMX: p.Vmx, _KM0: p.Km0, _INS: 6000.0 / p.BW, _VG: p.Vg, _M2: p.m2,
    }  # fmt: skip
    table = np.empty((p.n_patients, N_COLUMNS))
    for k, v in cols.items():
        table[:, k] = v
    return CompiledSystem(table)


@jit
def _derivative(
    x: FloatArray, dx: FloatArray, c: FloatArray, inputs: FloatArray, exercise: bool
) -> None:  # pragma: no cover - compiled
    """``dx/dt`` of one patient (state ``x``, table row ``c``) into ``dx``, as ``rhs_terms``.

    ``inputs``: carbs (mg/min), insulin (pmol/kg/min), the gastric-emptying coefficients ``aa``,
    ``cc`` (1/mg), ``b*dbar``, ``d*dbar`` (mg), exercise uptake (1/min) and Vmx gain.
    """
    kabs, k1, k2, ki, ka1, ka2, ksc = c[_KABS], c[_K1], c[_K2], c[_KI], c[_KA1], c[_KA2], c[_KSC]
    dx[0] = -c[_KMAX] * x[0] + inputs[0]
    dx[1] = c[_KMAX] * x[0]
    dx[2] = -kabs * x[2]
    dx[3] = c[_RA] * x[2] + -k1 * x[3] + k2 * x[4] + -c[_FSNC]
    dx[4] = k1 * x[3] + -k2 * x[4]
    dx[5] = -c[_M24] * x[5] + c[_M1] * x[9] + ka1 * x[10] + ka2 * x[11]
    dx[6] = c[_P2UVI] * x[5] + -c[_P2U] * x[6] + c[_P2UIB]
    dx[7] = c[_KIVI] * x[5] + -ki * x[7]
    dx[8] = ki * x[7] + -ki * x[8]
    dx[9] = c[_M2] * x[5] + -c[_M130] * x[9]
    dx[10] = -c[_KA1D] * x[10] + inputs[1]
    dx[11] = c[_KD] * x[10] + -ka2 * x[11]
    dx[12] = ksc * x[3] + -ksc * x[12]
    qsto = x[0] + x[1]
    kgut = c[_KMAX] + c[_HALF] * (
        math.tanh(inputs[2] * (qsto - inputs[4])) - math.tanh(inputs[3] * (qsto - inputs[5]))
    )
    emptying = kgut * x[1]
    dx[1] -= emptying
    dx[2] += emptying
    egp = -c[_KP2] * x[3] + -c[_KP3] * x[8] + c[_KP1]
    renal = c[_KE1] * x[3] + c[_KE12]
    dx[3] += max(egp, 0.0) - max(renal, 0.0)
    vmt = c[_VMX] * x[6] + c[_VM0]
    if exercise:
        vmt = vmt + inputs[7] * c[_VMX] * x[6]
    dx[4] -= vmt * x[4] / (c[_KM0] + x[4])
    if exercise:
        dx[3] -= inputs[6] * x[3]
    for i in (3, 4, 5, 9, 10, 11, 12):
        if not x[i] >= 0.0:
            dx[i] *= 0.0


@jit
def patient_minute(
    x: FloatArray,
    meal: FloatArray,
    c: FloatArray,
    carbs: float,
    insulin: float,
    substeps: int,
    exercise: bool,
    uptake: float,
    gain: float,
    work: FloatArray,
) -> None:  # pragma: no cover - compiled
    """Advance one patient by one minute, in place.

    Args:
        x: Model state (13,), replaced by the state one minute later.
        meal: ``planned, last_carbs, last_qsto, food_taken`` (g, g/min, mg, g), updated.
        c: The patient's row of :attr:`CompiledSystem.table`.
        carbs: Carbs announced this minute (g).
        insulin: Insulin infusion over the minute (U/min).
        substeps: RK4 steps per minute.
        exercise: Whether to apply the exercise terms ``uptake`` (1/min) and ``gain`` (Vmx rise).
        uptake: Exercise insulin-independent uptake rate (1/min).
        gain: Exercise fractional rise of ``Vmx``.
        work: Scratch space of shape ``(6, 13)``; row 5 holds the minute's inputs.
    """
    planned = meal[0] + carbs
    to_eat = min(5.0, planned) if planned > 0 else 0.0
    planned = max(planned - to_eat, 0.0)
    last_qsto, food_taken = meal[2], meal[3]
    if to_eat > 0 and meal[1] <= 0:
        last_qsto, food_taken = x[0] + x[1], 0.0
    food_taken = food_taken + to_eat
    meal[0], meal[1], meal[2], meal[3] = planned, to_eat, last_qsto, food_taken
    dbar = last_qsto + food_taken * 1000.0
    inputs = work[5]
    inputs[0] = to_eat * 1000.0
    inputs[1] = insulin * c[_INS]
    inv = 2.5 / dbar if dbar > 0 else 0.0
    inputs[2], inputs[3] = inv / (1.0 - c[_B]), inv / c[_D]
    inputs[4], inputs[5] = (c[_B] * dbar, c[_D] * dbar) if dbar > 0 else (0.0, 0.0)
    inputs[6], inputs[7] = uptake, gain
    k1, k2, k3, k4, tmp = work[0], work[1], work[2], work[3], work[4]
    h = 1.0 / substeps
    for _ in range(substeps):
        _derivative(x, k1, c, inputs, exercise)
        for i in range(N_STATES):
            tmp[i] = x[i] + (0.5 * h) * k1[i]
        _derivative(tmp, k2, c, inputs, exercise)
        for i in range(N_STATES):
            tmp[i] = x[i] + (0.5 * h) * k2[i]
        _derivative(tmp, k3, c, inputs, exercise)
        for i in range(N_STATES):
            tmp[i] = x[i] + h * k3[i]
        _derivative(tmp, k4, c, inputs, exercise)
        for i in range(N_STATES):
            x[i] = x[i] + (h / 6.0) * (k1[i] + 2.0 * (k2[i] + k3[i]) + k4[i])


@jit
def step_patients(
    x: FloatArray,
    meal: FloatArray,
    table: FloatArray,
    carbs: FloatArray,
    insulin: FloatArray,
    substeps: int,
    exercise: bool,
    uptake: FloatArray,
    gain: FloatArray,
) -> tuple[FloatArray, FloatArray]:  # pragma: no cover - compiled
    """Advance P patients by one minute (pure: returns new arrays).

    Args:
        x: Model state, shape ``(13, P)``.
        meal: ``planned, last_carbs, last_qsto, food_taken`` of each patient, shape ``(4, P)``.
        table: :attr:`CompiledSystem.table`, shape ``(P, 33)``.
        carbs: Carbs announced this minute (g), ``(P,)``.
        insulin: Insulin infusion over the minute (U/min), ``(P,)``.
        substeps: RK4 steps per minute.
        exercise: Whether ``uptake`` and ``gain`` (``(P,)`` each) apply.
        uptake: Exercise uptake rate (1/min), ``(P,)`` (read only with ``exercise``).
        gain: Exercise rise of ``Vmx``, ``(P,)`` (read only with ``exercise``).

    Returns:
        ``(x, meal)`` one minute later, shapes ``(13, P)`` and ``(4, P)``.
    """
    n = x.shape[1]
    x_out, meal_out = np.empty((N_STATES, n)), np.empty((4, n))
    xp, mp, work = np.empty(N_STATES), np.empty(4), np.empty((6, N_STATES))
    for p in range(n):
        for i in range(N_STATES):
            xp[i] = x[i, p]
        for i in range(4):
            mp[i] = meal[i, p]
        u, g = (uptake[p], gain[p]) if exercise else (0.0, 0.0)
        patient_minute(xp, mp, table[p], carbs[p], insulin[p], substeps, exercise, u, g, work)
        for i in range(N_STATES):
            x_out[i, p] = xp[i]
        for i in range(4):
            meal_out[i, p] = mp[i]
    return x_out, meal_out
