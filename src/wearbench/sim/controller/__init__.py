"""Insulin controllers acting on P patients at once."""

from __future__ import annotations

from wearbench._registry import registry
from wearbench.sim.controller._base import BasalBolusController, Controller, ControllerAction
from wearbench.sim.controller._pid import PIDController

registry.register("controller", "basal-bolus", BasalBolusController)
registry.register("controller", "pid", PIDController)

__all__ = ["BasalBolusController", "Controller", "ControllerAction", "PIDController"]
