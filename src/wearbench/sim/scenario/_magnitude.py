"""Exercise magnitude (running speed, cycling power) to the simulator's intensity (0-1).

The simulator's exercise input is the fraction of the oxygen-uptake reserve in use,
``(VO2 - 3.5) / (VO2max - 3.5)`` with VO2 in mL/kg/min (3.5 = one MET at rest), clipped to
[0, 1]. HealthLoopQA describes sessions by their magnitude instead, so VO2 comes from the ACSM
metabolic equations (ACSM's Guidelines for Exercise Testing and Prescription, 10th ed., ch. 6):

- running: ``VO2 = 0.2 * v + 0.9 * v * grade + 3.5`` with ``v`` in m/min and grade a fraction;
- leg cycling: ``VO2 = 1.8 * work / BW + 3.5 + 3.5`` with work in kg*m/min (1 W = 6.12 kg*m/min)
  and body weight ``BW`` in kg (the second 3.5 is unloaded pedalling).
"""

from __future__ import annotations

from wearbench._errors import WearbenchError

REST_VO2 = 3.5  #: oxygen uptake at rest, mL/kg/min (one MET)
DEFAULT_VO2MAX = 40.0  #: VO2max assumed for a person with T1D, mL/kg/min (cohort mean, both sexes)
_KG_M_PER_MIN_PER_W = 6.12


def _fraction(vo2: float, vo2max: float) -> float:
    if vo2max <= REST_VO2:
        raise WearbenchError(f"VO2max {vo2max:g} mL/kg/min must exceed the resting {REST_VO2:g}")
    return min(max((vo2 - REST_VO2) / (vo2max - REST_VO2), 0.0), 1.0)


def running_intensity(speed_kmh: float, incline_pct: float = 0.0, vo2max: float = DEFAULT_VO2MAX) -> float:
    """Intensity (fraction of VO2 reserve, 0-1) of running at ``speed_kmh`` up ``incline_pct``.

    Args:
        speed_kmh: Running speed (km/h), at least 0.
        incline_pct: Treadmill grade (%), at least 0.
        vo2max: The runner's VO2max (mL/kg/min).

    Returns:
        The intensity, clipped to [0, 1]; e.g. 8 km/h on the flat at VO2max 40 gives 0.731.
    """
    if speed_kmh < 0 or incline_pct < 0:
        raise WearbenchError(f"running at {speed_kmh:g} km/h, {incline_pct:g} % incline: both must be >= 0")
    v = speed_kmh * 1000.0 / 60.0
    return _fraction(0.2 * v + 0.9 * v * incline_pct / 100.0 + REST_VO2, vo2max)


def cycling_intensity(power_w: float, body_weight_kg: float, vo2max: float = DEFAULT_VO2MAX) -> float:
    """Intensity (fraction of VO2 reserve, 0-1) of leg cycling at ``power_w``.

    Args:
        power_w: Power on the ergometer (W), at least 0.
        body_weight_kg: Body weight (kg), above 0.
        vo2max: The rider's VO2max (mL/kg/min).

    Returns:
        The intensity, clipped to [0, 1]; e.g. 100 W at 70 kg and VO2max 40 gives 0.527.
    """
    if power_w < 0 or body_weight_kg <= 0:
        raise WearbenchError(f"cycling at {power_w:g} W, {body_weight_kg:g} kg: need power >= 0, weight > 0")
    work = power_w * _KG_M_PER_MIN_PER_W
    return _fraction(1.8 * work / body_weight_kg + 2 * REST_VO2, vo2max)
