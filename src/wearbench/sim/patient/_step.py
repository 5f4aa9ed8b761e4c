"""Minute-by-minute stepping of P virtual patients, with simglucose's meal bookkeeping.

simglucose's ``T1DPatient.step`` turns an announced meal into eating at 5 g/min, remembers the
stomach content when a meal starts (``_last_Qsto``) and the carbs eaten since (``_last_foodtaken``),
and integrates the ODE over the minute with inputs held constant (scipy ``dopri5``). Here the
minute is split into ``substeps`` classical Runge-Kutta (RK4) steps; with the default 2 sub-steps
blood glucose stays within about 0.1 mg/dL of simglucose over a day (see ``tests/sim``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from wearbench.sim.patient._model import LinearSystem, minute_terms, rhs_terms
from wearbench.sim.patient._params import FloatArray, PatientParams

__all__ = ["EAT_RATE", "PatientState", "initial_state", "step_minute"]

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


def step_minute(
    state: PatientState,
    carbs_announced: FloatArray,
    insulin_rate: FloatArray,
    params: PatientParams,
    substeps: int = 2,
    system: LinearSystem | None = None,
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
        system: ``linear_system(params)``, precomputed to save time when stepping repeatedly.
        uptake: Exercise insulin-independent uptake rate (1/min), ``(P,)``, or ``None``
            (see :func:`~wearbench.sim.patient._model.exercise_step`).
        vmx_gain: Exercise fractional rise of ``Vmx``, ``(P,)``, or ``None``.

    Returns:
        The state one minute later (the input state is not modified).
    """
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
