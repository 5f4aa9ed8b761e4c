"""The fault and attack types HealthLoopQA labels, one registered function each.

Each function maps a :class:`FaultWindow` (the clean stream of one patient from the interval start
to the current minute) to the faulty stream over the same minutes; the simulator uses the last
value. Tags: ``target`` is where the fault acts — ``cgm`` (what the sensor shows and the controller
sees; physiology unchanged), ``meal`` (carbs announced to the controller; the patient eats the
real meal), ``delivery`` (insulin after the controller, shown on the pump) or ``pump_display``
(insulin after the controller while the pump shows the requested dose); ``stream`` says which
insulin (``basal``, ``bolus`` or ``total``); ``category`` is ``malfunction`` or ``attack``;
``size`` (only on faults that accept :attr:`FaultEvent.magnitude`) is the magnitude's unit and
meaning. A ``None`` magnitude keeps the intensity-based size.
"""

from __future__ import annotations

import numpy as np

from wearbench._registry import registered
from wearbench.sim.faults._plan import FaultWindow
from wearbench.sim.patient._params import FloatArray

fault = registered("fault")

BIAS_MG_DL = 64.0  #: bias at intensity 1 (the seed's 32 mg/dL at the default intensity 0.5)
SPIKE_MG_DL = 200.0  #: spike peak at intensity 1
FALSE_MEAL_G = 60.0  #: false carbs at intensity 1
FALSE_BOLUS_U = 1.0  #: bolus replayed when there was none before (U)


def _triangle(w: FaultWindow) -> FloatArray:
    k = np.arange(len(w.values), dtype=np.float64)
    half = max(w.duration / 2.0, 1.0)
    return np.clip(1.0 - np.abs(k - half) / half, 0.0, 1.0)


@fault(target="cgm", category="malfunction")
def missing_signal(w: FaultWindow) -> FloatArray:
    """Communication loss / DoS: no readings (NaN); the controller holds the last valid reading."""
    return np.full_like(w.values, np.nan)


def _spike(w: FaultWindow) -> FloatArray:
    if w.magnitude is not None:
        return np.full(len(w.values), w.magnitude)
    return SPIKE_MG_DL * w.intensity * _triangle(w)


@fault(target="cgm", category="malfunction", size="mg/dL added over the whole interval")
def positive_spike(w: FaultWindow) -> FloatArray:
    """Motion-induced spike: a triangle up to ``200 * intensity`` mg/dL mid-interval.

    With a magnitude, ``+ magnitude`` mg/dL over the whole interval (one sample long: a
    single-sample spike). Clipped to the sensor range.
    """
    return np.clip(w.values + _spike(w), w.low, w.high)


@fault(target="cgm", category="malfunction", size="mg/dL subtracted over the whole interval")
def negative_spike(w: FaultWindow) -> FloatArray:
    """Pressure-induced attenuation: a triangle down by up to ``200 * intensity`` mg/dL, clipped.

    With a magnitude, ``- magnitude`` mg/dL over the whole interval, clipped.
    """
    return np.clip(w.values - _spike(w), w.low, w.high)


@fault(target="cgm", category="malfunction")
def repeated_reading(w: FaultWindow) -> FloatArray:
    """Loss of sensitivity, flat readings: the reading at the interval start repeated exactly."""
    return np.full_like(w.values, w.values[0])


def _bias(w: FaultWindow) -> float:
    return BIAS_MG_DL * w.intensity if w.magnitude is None else w.magnitude


@fault(target="cgm", category="malfunction", size="mg/dL added")
def positive_bias(w: FaultWindow) -> FloatArray:
    """Miscalibration / bias injection: readings ``+ 64 * intensity`` mg/dL (not clipped).

    With a magnitude, ``+ magnitude`` mg/dL.
    """
    return w.values + _bias(w)


@fault(target="cgm", category="malfunction", size="mg/dL subtracted")
def negative_bias(w: FaultWindow) -> FloatArray:
    """Miscalibration / lowered local glucose / bias injection: ``- 64 * intensity`` mg/dL, floor 0.

    With a magnitude, ``- magnitude`` mg/dL.
    """
    return np.maximum(w.values - _bias(w), 0.0)


@fault(target="cgm", category="malfunction", size="mg/dL shown")
def min_reading(w: FaultWindow) -> FloatArray:
    """Sensor stuck at its minimum reading (Dexcom: 39 mg/dL).

    With a magnitude, stuck at ``magnitude`` mg/dL.
    """
    return np.full_like(w.values, w.low if w.magnitude is None else w.magnitude)


@fault(target="cgm", category="malfunction", size="mg/dL shown")
def max_reading(w: FaultWindow) -> FloatArray:
    """Sensor stuck at its maximum reading (Dexcom: 600 mg/dL).

    With a magnitude, stuck at ``magnitude`` mg/dL.
    """
    return np.full_like(w.values, w.high if w.magnitude is None else w.magnitude)


@fault(target="cgm", category="malfunction")
def zero_reading(w: FaultWindow) -> FloatArray:
    """Loss of sensitivity: readings of 0 mg/dL."""
    return np.zeros_like(w.values)


@fault(target="cgm", category="attack")
def repeated_episode(w: FaultWindow) -> FloatArray:
    """Replay attack: the clean readings from 24 h earlier are shown instead.

    With under 24 h of history the whole history is cycled; with none the first reading repeats.
    """
    lag = min(1440, len(w.history))
    if lag == 0:
        return np.full_like(w.values, w.values[0])
    source = w.history[len(w.history) - lag :]
    out: FloatArray = source[np.arange(len(w.values)) % lag].astype(np.float64)
    return out


@fault(target="meal", category="attack", size="g announced")
def false_meal(w: FaultWindow) -> FloatArray:
    """Process-aware attack: ``60 * intensity`` g of carbs announced at the start, not eaten.

    With a magnitude, ``magnitude`` g. The controller boluses for them; the patient absorbs nothing.
    """
    out = w.values.copy()
    out[0] += FALSE_MEAL_G * w.intensity if w.magnitude is None else w.magnitude
    return out


@fault(target="delivery", stream="bolus", category="attack", size="U delivered")
def false_bolus(w: FaultWindow) -> FloatArray:
    """Replay attack: the last bolus, times ``intensity``, delivered again at the interval start.

    With no earlier bolus, ``intensity`` U; with a magnitude, ``magnitude`` U.
    """
    out = w.values.copy()
    given = w.history[w.history > 0]
    if w.magnitude is not None:
        out[0] += w.magnitude
    else:
        out[0] += w.intensity * (float(given[-1]) if len(given) else FALSE_BOLUS_U)
    return out


@fault(target="delivery", stream="basal", category="attack")
def positive_basal(w: FaultWindow) -> FloatArray:
    """Dose manipulation: basal rate times ``1 + intensity``, at most the capped pump maximum."""
    return np.minimum(w.values * (1.0 + w.intensity), w.high)


@fault(target="delivery", stream="basal", category="attack")
def negative_basal(w: FaultWindow) -> FloatArray:
    """Dose manipulation: basal rate times ``1 - 0.8 * intensity``."""
    return w.values * (1.0 - 0.8 * w.intensity)


@fault(target="delivery", stream="basal", category="attack")
def max_basal(w: FaultWindow) -> FloatArray:
    """Unauthorised remote control: basal at the pump maximum, capped at 4x the patient's basal rate."""
    return np.full_like(w.values, w.high)


@fault(target="delivery", stream="basal", category="attack")
def min_basal(w: FaultWindow) -> FloatArray:
    """Unauthorised remote control: basal at the pump minimum (0 U/min for the simglucose pumps)."""
    return np.full_like(w.values, w.low)


@fault(target="pump_display", stream="total", category="malfunction")
def unknown_stop(w: FaultWindow) -> FloatArray:
    """Hidden occlusion / availability attack: no insulin delivered, the pump shows the normal dose."""
    return np.zeros_like(w.values)


@fault(target="pump_display", stream="total", category="malfunction")
def unknown_under(w: FaultWindow) -> FloatArray:
    """Hidden partial occlusion: ``1 - 0.8 * intensity`` of the dose delivered, normal dose shown."""
    return w.values * (1.0 - 0.8 * w.intensity)
