"""Minute-by-minute stepping of P virtual patients, with simglucose's meal bookkeeping.

simglucose's ``T1DPatient.step`` turns an announced meal into eating at 5 g/min, remembers the
stomach content when a meal starts (``_last_Qsto``) and the carbs eaten since (``_last_foodtaken``),
and integrates the ODE over the minute with inputs held constant (scipy ``dopri5``). Here the
minute is split into ``substeps`` classical Runge-Kutta (RK4) steps; with the default 2 sub-steps
blood glucose stays within about 0.1 mg/dL of simglucose over a day (see ``tests/sim``).

Two engines compute the same minute: the numpy array code below, and the numba kernel of
:mod:`wearbench.sim.patient._compiled` (within about 1e-13 mg/dL). :func:`step_system` picks one
(``"auto"``: numba when installed, or ``$WEARBENCH_SIM_ENGINE``); :func:`step_minute` runs the
kernel when handed a :class:`~wearbench.sim.patient._compiled.CompiledSystem`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from wearbench.sim.patient._compiled import CompiledSystem, compiled_system, resolve_engine, step_patients
from wearbench.sim.patient._model import LinearSystem, linear_system, minute_terms, rhs_terms
from wearbench.sim.patient._params import FloatArray, PatientParams

EAT_RATE = 5.0  # g/min, as simglucose's T1DPatient.EAT_RATE


@dataclass(frozen=True)
class PatientState:
    """State of P patients between minutes; every array has shape ``(P,)`` unless stated.

    Attributes:
        x: Model state, shape ``(13, P)`` (see :mod:`wearbench.sim.patient._model`).
        planned: Announced carbs not yet eaten (g).
        last_carbs: Carbs eaten in the previous minute (g/min).
        last_qsto: Stomach content when the current meal started (mg).
        food_taken: Carbs eaten since the current meal started (g).
    """

    x: FloatArray
    planned: FloatArray
    last_carbs: FloatArray
    last_qsto: FloatArray
    food_taken: FloatArray

    def bg(self, params: PatientParams) -> FloatArray:
        """Plasma (blood) glucose ``Gp / Vg`` (mg/dL), shape ``(P,)``."""
        bg: FloatArray = self.x[3] / params.Vg
        return bg

    def gsub(self, params: PatientParams) -> FloatArray:
        """Subcutaneous glucose ``Gs / Vg`` (mg/dL), simglucose's ``observation.Gsub``."""
        gsub: FloatArray = self.x[12] / params.Vg
        return gsub


def initial_state(params: PatientParams) -> PatientState:
    """The steady state from simglucose's table (fasting, on basal insulin)."""
    x = params.x0.copy()
    zeros = np.zeros(params.n_patients)
    return PatientState(
        x=x, planned=zeros, last_carbs=zeros.copy(), last_qsto=x[0] + x[1], food_taken=zeros.copy()
    )


def step_system(params: PatientParams, engine: str = "auto") -> LinearSystem | CompiledSystem:
    """What :func:`step_minute` needs precomputed for ``engine`` (``"auto"``, ``"numpy"``, ``"numba"``).

    Returns:
        ``linear_system(params)`` for numpy, or the packed parameters for the numba kernel.

    Raises:
        WearbenchError: Unknown engine, or ``"numba"`` without numba installed.
    """
    if resolve_engine(engine) == "numba":
        return compiled_system(params)
    return linear_system(params)


def step_minute(
    state: PatientState,
    carbs_announced: FloatArray,
    insulin_rate: FloatArray,
    params: PatientParams,
    substeps: int = 2,
    system: LinearSystem | CompiledSystem | None = None,
    uptake: FloatArray | None = None,
    vmx_gain: FloatArray | None = None,
) -> PatientState:
    """Advance all patients by one minute.

    Args:
        state: State at the start of the minute.
        carbs_announced: Carbs announced this minute (g), shape ``(P,)``; eaten at up to 5 g/min.
        insulin_rate: Insulin infusion held over the minute (U/min), shape ``(P,)``.
        params: Patient parameters.
        substeps: RK4 steps per minute.
        system: :func:`step_system` (or ``linear_system(params)``), precomputed to save time when
            stepping repeatedly; a :class:`CompiledSystem` runs the numba kernel, anything else the
            numpy code (the default, ``None``, is numpy).
        uptake: Exercise insulin-independent uptake rate (1/min), ``(P,)``, or ``None``
            (see :func:`~wearbench.sim.patient._model.exercise_step`).
        vmx_gain: Exercise fractional rise of ``Vmx``, ``(P,)``, or ``None``.

    Returns:
        The state one minute later (the input state is not modified).
    """
    if isinstance(system, CompiledSystem):
        return _step_compiled(state, carbs_announced, insulin_rate, system, substeps, uptake, vmx_gain)
    planned = state.planned + carbs_announced
    to_eat = np.where(planned > 0, np.minimum(EAT_RATE, planned), 0.0)
    planned = np.maximum(planned - to_eat, 0.0)
    starts = (to_eat > 0) & (state.last_carbs <= 0)
    last_qsto = np.where(starts, state.x[0] + state.x[1], state.last_qsto)
    food_taken = np.where(starts, 0.0, state.food_taken) + to_eat
    dbar = last_qsto + food_taken * 1000.0  # mg

    terms = minute_terms(to_eat, insulin_rate, dbar, params, system, uptake, vmx_gain)
    x = state.x
    h = 1.0 / substeps
    for _ in range(substeps):
        k1 = rhs_terms(x, terms, params)
        k2 = rhs_terms(x + (0.5 * h) * k1, terms, params)
        k3 = rhs_terms(x + (0.5 * h) * k2, terms, params)
        k4 = rhs_terms(x + h * k3, terms, params)
        x = x + (h / 6.0) * (k1 + 2.0 * (k2 + k3) + k4)
    return PatientState(x=x, planned=planned, last_carbs=to_eat, last_qsto=last_qsto, food_taken=food_taken)


_NO_EXERCISE = np.zeros(0)


def _vector(v: FloatArray | float, n: int) -> FloatArray:
    """``v`` as a contiguous float64 array of shape ``(n,)`` (the kernel's argument type)."""
    return np.ascontiguousarray(np.broadcast_to(np.asarray(v, dtype=np.float64), (n,)))


def _step_compiled(
    state: PatientState,
    carbs: FloatArray,
    insulin: FloatArray,
    system: CompiledSystem,
    substeps: int,
    uptake: FloatArray | None,
    vmx_gain: FloatArray | None,
) -> PatientState:
    """:func:`step_minute` through the numba kernel (same arguments)."""
    n = state.x.shape[1]
    exercise = uptake is not None or vmx_gain is not None
    up = _vector(0.0 if uptake is None else uptake, n) if exercise else _NO_EXERCISE
    gain = _vector(0.0 if vmx_gain is None else vmx_gain, n) if exercise else _NO_EXERCISE
    meal = np.stack([state.planned, state.last_carbs, state.last_qsto, state.food_taken]).astype(np.float64)
    x = np.ascontiguousarray(state.x, dtype=np.float64)
    x, m = step_patients(
        x, meal, system.table, _vector(carbs, n), _vector(insulin, n), substeps, exercise, up, gain
    )
    return PatientState(x=x, planned=m[0], last_carbs=m[1], last_qsto=m[2], food_taken=m[3])
