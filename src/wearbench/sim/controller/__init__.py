"""Insulin controllers acting on P patients at once.

Therapies (``docs/cgm-therapies.md``): ``basal-bolus`` (simglucose's ``BBController``), ``pid``
(simglucose's PID example), ``mdi`` (injections), ``sap`` (sensor-augmented pump), ``hcl-mpc``
(hybrid closed loop with a model-predictive controller) and ``openaps`` (oref0-like temp basals).
"""

from __future__ import annotations

from wearbench._registry import registry
from wearbench.sim.controller._base import BasalBolusController, Controller, ControllerAction
from wearbench.sim.controller._insulin import (
    DoseHistory,
    erlang_remaining,
    exponential_activity,
    exponential_iob,
    long_acting_rate,
    rule_1800_isf,
)
from wearbench.sim.controller._mdi import MDIController
from wearbench.sim.controller._mpc import MPCController, mpc_gain
from wearbench.sim.controller._openaps import OpenAPSController, Prediction
from wearbench.sim.controller._pid import PIDController
from wearbench.sim.controller._sap import SAPController

registry.register("controller", "basal-bolus", BasalBolusController)
registry.register("controller", "pid", PIDController)
registry.register("controller", "mdi", MDIController)
registry.register("controller", "sap", SAPController)
registry.register("controller", "hcl-mpc", MPCController)
registry.register("controller", "openaps", OpenAPSController)

__all__ = [
    "BasalBolusController",
    "Controller",
    "ControllerAction",
    "DoseHistory",
    "MDIController",
    "MPCController",
    "OpenAPSController",
    "PIDController",
    "Prediction",
    "SAPController",
    "erlang_remaining",
    "exponential_activity",
    "exponential_iob",
    "long_acting_rate",
    "mpc_gain",
    "rule_1800_isf",
]
