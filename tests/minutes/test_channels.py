"""The channel table against the seed's list (../shared/specs/openmhc.md, "Channels")."""

from __future__ import annotations

from wearbench.minutes import BINARY, CATEGORIES, CHANNEL_NAMES, CONTINUOUS, DEVICE_GROUPS, N_CHANNELS


def test_order_kinds_and_categories_are_the_seeds() -> None:
    assert N_CHANNELS == 19
    assert CHANNEL_NAMES[0] == "iPhone StepCount"
    assert CHANNEL_NAMES[5] == "Watch HeartRate"
    assert CHANNEL_NAMES[13] == "MixedMetabolicCardioTraining"
    assert "Swimming" not in CHANNEL_NAMES
    assert tuple(range(7)) == CONTINUOUS
    assert tuple(range(7, 19)) == BINARY
    assert {
        "Activity": (0, 1, 2, 3, 4),
        "Physiology": (5, 6),
        "Sleep": (7, 8),
        "Workout": tuple(range(9, 19)),
    } == CATEGORIES
    assert DEVICE_GROUPS == {"phone": (0, 1, 2), "watch": (3, 4, 5, 6)}
