"""Fast vectorised UVA/Padova T1D simulator (simglucose-compatible), for synthetic CGM data.

Patient parameters are read at run time from an installed simglucose (``wearbench[cgm]``);
importing this package does not import simglucose.
"""

from __future__ import annotations

from wearbench.sim._simulate import simulate
from wearbench.sim.controller import BasalBolusController, Controller, ControllerAction
from wearbench.sim.patient import (
    PatientParams,
    PatientState,
    initial_state,
    load_params,
    patient_names,
    rhs,
    step_minute,
)
from wearbench.sim.pump import Pump
from wearbench.sim.scenario import fixed_meals, random_meals
from wearbench.sim.sensor import Sensor

__all__ = [
    "BasalBolusController",
    "Controller",
    "ControllerAction",
    "PatientParams",
    "PatientState",
    "Pump",
    "Sensor",
    "fixed_meals",
    "initial_state",
    "load_params",
    "patient_names",
    "random_meals",
    "rhs",
    "simulate",
    "step_minute",
]
