"""The 19 minute-level channels of OpenMHC, in the seed's order, with their kinds and categories.

Order, names and units follow the public OpenMHC code's channel list (``docs/openmhc.md``;
``../shared/specs/openmhc.md``): channels 0–6 are continuous, 7–18 binary. Per-minute units:
steps/min, m/min, flights/min, bpm, kcal/min ("cal/min" in the seed's Apple Health naming).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Channel:
    """One minute-level channel.

    Attributes:
        index: Position in a ``(19, 1440)`` day.
        name: The seed's name (Apple Health type, ``sleep:…`` or a workout activity type).
        unit: Per-minute unit (``"0/1"`` for binary channels).
        binary: True for the sleep and workout indicators.
        category: ``Activity``, ``Physiology``, ``Sleep`` or ``Workout``.
        device: ``phone``, ``watch`` or ``None`` (sleep and workouts are not one device's signal).
        count: True for count-like continuous channels (hourly ``nansum``; all-zero day → NaN).
    """

    index: int
    name: str
    unit: str
    binary: bool
    category: str
    device: str | None
    count: bool


def _workout(index: int, name: str) -> Channel:
    return Channel(index, name, "0/1", True, "Workout", None, False)


#: The 19 channels in the seed's order.
CHANNELS: tuple[Channel, ...] = (
    Channel(0, "iPhone StepCount", "steps/min", False, "Activity", "phone", True),
    Channel(1, "iPhone DistanceWalkingRunning", "m/min", False, "Activity", "phone", True),
    Channel(2, "iPhone FlightsClimbed", "flights/min", False, "Activity", "phone", True),
    Channel(3, "Watch StepCount", "steps/min", False, "Activity", "watch", True),
    Channel(4, "Watch DistanceWalkingRunning", "m/min", False, "Activity", "watch", True),
    Channel(5, "Watch HeartRate", "bpm", False, "Physiology", "watch", False),
    Channel(6, "Watch ActiveEnergyBurned", "kcal/min", False, "Physiology", "watch", True),
    Channel(7, "sleep:asleep", "0/1", True, "Sleep", None, False),
    Channel(8, "sleep:inbed", "0/1", True, "Sleep", None, False),
    _workout(9, "Walking"),
    _workout(10, "Cycling"),
    _workout(11, "Running"),
    _workout(12, "Other"),
    _workout(13, "MixedMetabolicCardioTraining"),
    _workout(14, "TraditionalStrengthTraining"),
    _workout(15, "Elliptical"),
    _workout(16, "HighIntensityIntervalTraining"),
    _workout(17, "FunctionalStrengthTraining"),
    _workout(18, "Yoga"),
)

N_CHANNELS = len(CHANNELS)  #: 19
MINUTES_PER_DAY = 1440
HOURS_PER_DAY = 24
CHANNEL_NAMES: tuple[str, ...] = tuple(c.name for c in CHANNELS)
CONTINUOUS: tuple[int, ...] = tuple(c.index for c in CHANNELS if not c.binary)  #: 0–6
BINARY: tuple[int, ...] = tuple(c.index for c in CHANNELS if c.binary)  #: 7–18
CATEGORY_NAMES: tuple[str, ...] = ("Activity", "Physiology", "Sleep", "Workout")
CATEGORIES: dict[str, tuple[int, ...]] = {
    k: tuple(c.index for c in CHANNELS if c.category == k) for k in CATEGORY_NAMES
}
DEVICE_GROUPS: dict[str, tuple[int, ...]] = {
    k: tuple(c.index for c in CHANNELS if c.device == k) for k in ("phone", "watch")
}
HR, ACTIVE_ENERGY, FLIGHTS = 5, 6, 2
ASLEEP, INBED = 7, 8
SLEEP: tuple[int, ...] = (ASLEEP, INBED)
WORKOUTS: tuple[int, ...] = CATEGORIES["Workout"]  #: 9–18
#: Count-like continuous channels: hourly ``nansum``, an all-zero day → NaN (all but flights and HR).
ZERO_DAY_CHANNELS: tuple[int, ...] = (0, 1, 3, 4, 6)
