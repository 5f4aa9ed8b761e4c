"""Fault and attack injection for the closed-loop simulator (HealthLoopQA's labels).

Faults are registered functions (``registry.get("fault", name)``) in :mod:`._types`; a
:class:`FaultPlan` of :class:`FaultEvent` intervals comes from :func:`random_faults` or
:func:`faults_from_csv` and is passed to :func:`wearbench.sim.simulate` as ``faults=``.
See ``docs/cgm-faults.md``.
"""

from __future__ import annotations

from wearbench.sim.faults import _types  # noqa: F401  (registers the faults)
from wearbench.sim.faults._apply import STREAMS, FaultInjector
from wearbench.sim.faults._csv import faults_from_csv
from wearbench.sim.faults._plan import FaultEvent, FaultPlan, FaultWindow
from wearbench.sim.faults._random import (
    FaultProfile,
    FaultSize,
    fault_names,
    profile_faults,
    random_fault_plan,
    random_faults,
)
from wearbench.sim.faults._wrap import FaultyMeals, FaultyPump, FaultySensor, faulty_stages

__all__ = [
    "STREAMS",
    "FaultEvent",
    "FaultInjector",
    "FaultPlan",
    "FaultProfile",
    "FaultSize",
    "FaultWindow",
    "FaultyMeals",
    "FaultyPump",
    "FaultySensor",
    "fault_names",
    "faults_from_csv",
    "faulty_stages",
    "profile_faults",
    "random_fault_plan",
    "random_faults",
]
