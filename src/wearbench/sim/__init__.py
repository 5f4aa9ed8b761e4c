"""Fast vectorised UVA/Padova T1D simulator (simglucose-compatible), for synthetic CGM data.

Patient parameters are read at run time from an installed simglucose (``wearbench[cgm]``);
importing this package does not import simglucose. Components, one package each, as simglucose:
``patient`` (parameters, the 13-state model ``rhs``, RK4 ``step_minute``), ``sensor`` (CGM noise),
``pump``, ``controller`` (basal-bolus, PID) and ``scenario`` (meals, exercise sessions, rescue
carbs); ``faults`` injects HealthLoopQA's sensor/pump malfunctions and attacks
(``simulate(..., faults=plan)``).
``run_simulation`` keeps a run with checkpoints, and ``simulate_counterfactual`` re-runs a patient
of it from any minute with one event injected (``docs/cgm-counterfactual.md``).

Example:
    >>> from wearbench.sim import simulate
    >>> df = simulate(["adult#001", "child#007"], days=7, sensor="Dexcom", seed=0)  # doctest: +SKIP

Differences from simglucose: the basal-bolus bolus is given in the minute the meal is announced
(simglucose's environment gives it one sensor sample later, spread over the sample); sensor noise
is statistically the same but not draw-for-draw identical; everything is vectorised over patients.
``simulate(..., loop="simglucose")`` reproduces the environment's loop instead
(``docs/cgm-simglucose.md``).
"""

from __future__ import annotations

from wearbench.sim._counterfactual import (
    Counterfactual,
    CounterfactualResult,
    simulate_counterfactual,
    simulate_counterfactuals,
)
from wearbench.sim._events import (
    CycleNow,
    Event,
    HeavyLunch,
    InsulinNow,
    LateNightSnack,
    MealNow,
    NormalDay,
    RunNow,
)
from wearbench.sim._hazard import HAZARD_LABELS, hazard_intervals, hazard_labels
from wearbench.sim._profile import (
    Profile,
    ProfileRun,
    draw_cohort,
    get_profile,
    profile_names,
    simulate_profile,
)
from wearbench.sim._run import SimulationRun
from wearbench.sim._simglucose_mode import SampledController, env_controller, simglucose_output
from wearbench.sim._simulate import run_simulation, simulate
from wearbench.sim._state import select_patients, snapshot
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
    resolve_engine,
    rhs,
    step_minute,
)
from wearbench.sim.pump import Pump
from wearbench.sim.scenario import (
    HYPO_TREATMENT,
    RescueCarbs,
    exercise_array,
    exercise_sessions,
    fixed_meals,
    meals_from_csv,
    random_meals,
)
from wearbench.sim.sensor import Sensor

__all__ = [
    "HAZARD_LABELS",
    "HYPO_TREATMENT",
    "BasalBolusController",
    "Controller",
    "ControllerAction",
    "Counterfactual",
    "CounterfactualResult",
    "CycleNow",
    "Event",
    "FaultEvent",
    "FaultPlan",
    "HeavyLunch",
    "InsulinNow",
    "LateNightSnack",
    "MealNow",
    "NormalDay",
    "PIDController",
    "PatientParams",
    "PatientState",
    "Profile",
    "ProfileRun",
    "Pump",
    "RescueCarbs",
    "RunNow",
    "SampledController",
    "Sensor",
    "SimulationRun",
    "draw_cohort",
    "env_controller",
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
    "resolve_engine",
    "rhs",
    "run_simulation",
    "select_patients",
    "simglucose_output",
    "simulate",
    "simulate_counterfactual",
    "simulate_counterfactuals",
    "simulate_profile",
    "snapshot",
    "step_minute",
    "write_simulation",
]
