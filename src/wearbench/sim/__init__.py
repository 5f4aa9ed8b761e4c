"""Fast vectorised UVA/Padova T1D simulator (simglucose-compatible), for synthetic CGM data.

Patient parameters are read at run time from an installed simglucose (``wearbench[cgm]``);
importing this package does not import simglucose. Components, one package each, as simglucose:
``patient`` (parameters, the 13-state model ``rhs``, RK4 ``step_minute``), ``sensor`` (CGM noise),
``pump``, ``controller`` (basal-bolus, PID) and ``scenario`` (meals, exercise sessions); ``faults`` injects
HealthLoopQA's sensor/pump malfunctions and attacks (``simulate(..., faults=plan)``).

Example:
    >>> from wearbench.sim import simulate
    >>> df = simulate(["adult#001", "child#007"], days=7, sensor="Dexcom", seed=0)  # doctest: +SKIP

Differences from simglucose: the basal-bolus bolus is given in the minute the meal is announced
(simglucose's environment gives it one sensor sample later); sensor noise is statistically the
same but not draw-for-draw identical; everything is vectorised over patients.
"""

from __future__ import annotations

from wearbench.sim._hazard import HAZARD_LABELS, hazard_intervals, hazard_labels
from wearbench.sim._profile import (
    Profile,
    ProfileRun,
    draw_cohort,
    get_profile,
    profile_names,
    simulate_profile,
)
from wearbench.sim._simulate import simulate
from wearbench.sim._write import parse_patients, write_simulation
from wearbench.sim.controller import BasalBolusController, Controller, ControllerAction, PIDController
from wearbench.sim.faults import (
    FaultEvent,
    FaultPlan,
    fault_names,
    faults_from_csv,
    random_fault_plan,
    random_faults,
)
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
from wearbench.sim.scenario import (
    exercise_array,
    exercise_sessions,
    fixed_meals,
    meals_from_csv,
    random_meals,
)
from wearbench.sim.sensor import Sensor

__all__ = [
    "HAZARD_LABELS",
    "BasalBolusController",
    "Controller",
    "ControllerAction",
    "FaultEvent",
    "FaultPlan",
    "PIDController",
    "PatientParams",
    "PatientState",
    "Profile",
    "ProfileRun",
    "Pump",
    "Sensor",
    "draw_cohort",
    "exercise_array",
    "exercise_sessions",
    "fault_names",
    "faults_from_csv",
    "fixed_meals",
    "get_profile",
    "hazard_intervals",
    "hazard_labels",
    "initial_state",
    "load_params",
    "meals_from_csv",
    "parse_patients",
    "patient_names",
    "profile_names",
    "random_fault_plan",
    "random_faults",
    "random_meals",
    "rhs",
    "simulate",
    "simulate_profile",
    "step_minute",
    "write_simulation",
]
