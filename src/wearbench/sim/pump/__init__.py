"""Insulin pumps: rounding to increments and clipping, as simglucose's ``InsulinPump``."""

from __future__ import annotations

from wearbench.sim.pump._pump import Pump, pump_names

__all__ = ["Pump", "pump_names"]
