"""UVA/Padova T1D virtual patients: parameters, the vectorised model and its integrator."""

from __future__ import annotations

from wearbench.sim.patient._compiled import resolve_engine
from wearbench.sim.patient._model import (
    LinearSystem,
    MinuteTerms,
    linear_system,
    minute_terms,
    rhs,
    rhs_terms,
)
from wearbench.sim.patient._params import N_STATES, PatientParams, load_params, patient_names
from wearbench.sim.patient._step import EAT_RATE, PatientState, initial_state, step_minute, step_system

__all__ = [
    "EAT_RATE",
    "N_STATES",
    "LinearSystem",
    "MinuteTerms",
    "PatientParams",
    "PatientState",
    "initial_state",
    "linear_system",
    "load_params",
    "minute_terms",
    "patient_names",
    "resolve_engine",
    "rhs",
    "rhs_terms",
    "step_minute",
    "step_system",
]
