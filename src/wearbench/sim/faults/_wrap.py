"""Faults as wrappers around the loop's sensor, meal and pump stages (``docs/cgm-faults.md``).

:func:`faulty_stages` wraps the plain stages of :mod:`wearbench.sim._loop` so that one
:class:`FaultInjector` alters what the sensor shows, what is announced and what the pump shows
and delivers; the loop itself does not know about faults.
"""

from __future__ import annotations

import numpy as np

from wearbench.sim._loop import CGMReading, CGMStage, Dose, MealStage, PlainPump, PlainSensor, PumpStage
from wearbench.sim.controller import ControllerAction
from wearbench.sim.faults._apply import FaultInjector
from wearbench.sim.faults._plan import FaultPlan
from wearbench.sim.patient._params import FloatArray


class FaultySensor:
    """The sensor with ``cgm`` faults: shown readings change, the controller holds the last valid one.

    Args:
        inner: The fault-free sensor stage.
        injector: The run's fault injector.
        start: Subcutaneous glucose at minute 0 (mg/dL), held until a valid reading is shown.
    """

    def __init__(self, inner: PlainSensor, injector: FaultInjector, start: FloatArray) -> None:
        self.inner, self.injector = inner, injector
        self._shown, self._held = start.copy(), start.copy()

    def read(self, minute: int, gsub: FloatArray) -> CGMReading:
        clean = self.inner.read(minute, gsub).clean
        faulty = self.injector.apply("cgm", minute, clean)
        if self.inner.is_sample(minute):
            self._shown = faulty
            self._held = np.where(np.isnan(faulty), self._held, faulty)
        return CGMReading(clean, self._shown, self._held)


class FaultyMeals:
    """The meal announcement with ``meal`` faults (the patient still eats the real meal)."""

    def __init__(self, injector: FaultInjector) -> None:
        self.injector = injector

    def announce(self, minute: int, eaten: FloatArray) -> FloatArray:
        return self.injector.apply("meal", minute, eaten)


class FaultyPump:
    """The pump with ``delivery`` faults (shown and delivered) and ``pump_display`` faults (hidden)."""

    def __init__(self, inner: PumpStage, injector: FaultInjector) -> None:
        self.inner, self.injector = inner, injector

    def deliver(self, minute: int, action: ControllerAction) -> Dose:
        d = self.inner.deliver(minute, action)
        basal = self.injector.apply("basal", minute, d.basal)
        bolus = self.injector.apply("bolus", minute, d.bolus)
        shown = basal + bolus
        return Dose(basal, bolus, shown, d.requested, self.injector.apply("total", minute, shown))


def faulty_stages(
    plan: FaultPlan,
    sensor: PlainSensor,
    pump: PlainPump,
    basal_rate: FloatArray,
    minutes: int,
    start: FloatArray,
) -> tuple[CGMStage, MealStage, PumpStage]:
    """Wrap the plain stages with the faults of ``plan`` (checked here).

    Args:
        plan: The fault plan.
        sensor: The fault-free sensor stage.
        pump: The fault-free pump stage.
        basal_rate: Each patient's basal rate (U/min); basal faults stay below 4x it.
        minutes: Minutes in the run.
        start: Subcutaneous glucose at minute 0 (mg/dL).

    Returns:
        Sensor, meal and pump stages for :func:`~wearbench.sim._loop.run_loop`.
    """
    n = len(start)
    plan.check(n, minutes)
    zeros = np.zeros(n)
    low = sensor.sensor.min_bg if sensor.sensor is not None else 39.0
    high = sensor.sensor.max_bg if sensor.sensor is not None else 600.0
    max_basal = 4.0 * np.asarray(basal_rate, dtype=np.float64)  # keeps the model in range
    if pump.pump is not None:
        max_basal = np.minimum(max_basal, pump.pump.max_basal)
    min_basal = zeros + (pump.pump.min_basal if pump.pump is not None else 0.0)
    limits = {"cgm": (zeros + low, zeros + high), "basal": (min_basal, max_basal)}
    injector = FaultInjector(plan, n, minutes, limits)
    return FaultySensor(sensor, injector, start), FaultyMeals(injector), FaultyPump(pump, injector)
