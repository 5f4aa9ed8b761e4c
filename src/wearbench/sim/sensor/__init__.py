"""CGM sensors with simglucose's noise model (Dexcom, GuardianRT, Navigator)."""

from __future__ import annotations

from wearbench.sim.sensor._cgm import Sensor, sensor_names

__all__ = ["Sensor", "sensor_names"]
