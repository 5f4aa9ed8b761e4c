"""Constants and validated parameters of the synthetic generator.

Everything that fixes the generator's output lives here, so that a change of any
constant is a change of :data:`GENERATOR_VERSION`.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]
BoolArray = npt.NDArray[np.bool_]

GENERATOR_NAME: Final = "synthetic"
#: Bumped whenever the output for a given seed changes.
GENERATOR_VERSION: Final = 2
#: Users generated together; the output does not depend on it (streams are per user).
CHUNK_SIZE: Final = 256

#: Latent per-user traits, standard-normal scores (higher = more of the trait).
TRAIT_NAMES: Final = (
    "fitness",
    "chronotype",
    "sleep_need",
    "stress_reactivity",
    "metabolic_health",
    "activity_habit",
    "wear_diligence",
)
#: Correlation of the latent traits, in :data:`TRAIT_NAMES` order.
TRAIT_CORRELATION: Final = np.array(
    [
        [1.00, 0.00, 0.05, -0.15, 0.50, 0.60, 0.10],
        [0.00, 1.00, 0.10, 0.10, -0.05, -0.10, -0.10],
        [0.05, 0.10, 1.00, 0.10, 0.05, 0.00, 0.00],
        [-0.15, 0.10, 0.10, 1.00, -0.20, -0.15, 0.00],
        [0.50, -0.05, 0.05, -0.20, 1.00, 0.40, 0.05],
        [0.60, -0.10, 0.00, -0.15, 0.40, 1.00, 0.20],
        [0.10, -0.10, 0.00, 0.00, 0.05, 0.20, 1.00],
    ]
)
#: Population shares of the ethnicity labels, in ``ETHNICITIES`` order.
ETHNICITY_WEIGHTS: Final = (0.15, 0.13, 0.17, 0.50, 0.05)

EPISODE_KINDS: Final = ("illness", "stress", "travel", "injury")
#: Inclusive duration range in days of each episode kind.
EPISODE_DURATIONS: Final = {"illness": (3, 10), "stress": (14, 28), "travel": (3, 10), "injury": (14, 42)}
#: No episode starts before this day index, so a 28-day personal baseline exists.
MIN_EPISODE_START: Final = 35
#: Minimum number of clean days between two episodes of one user.
EPISODE_SEPARATION: Final = 28
#: Persistent metrics and the range of their per-user AR(1) coefficient (drawn uniformly)
#: of the day-to-day deviation; see :mod:`._persistence`. Cardiac metrics carry over most
#: from day to day, sleep and stress less, steps little.
PERSISTENCE: Final = {
    "resting_hr": (0.35, 0.75),
    "hrv": (0.30, 0.70),
    "sleep_minutes": (0.10, 0.40),
    "sleep_efficiency": (0.05, 0.35),
    "stress": (0.10, 0.40),
    "steps": (0.05, 0.25),
}


@dataclass(frozen=True)
class SynthParams:
    """Validated generator parameters.

    Attributes:
        n_users: Benchmark users.
        n_days: Days per benchmark user.
        seed: Root seed (non-negative integer).
        reference_users: Users of the reference population.
        reference_days: Days per reference user.
        start: First calendar day.
    """

    n_users: int
    n_days: int
    seed: int
    reference_users: int
    reference_days: int
    start: np.datetime64

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready parameters, keys sorted."""
        return {
            "n_days": self.n_days,
            "n_users": self.n_users,
            "reference_days": self.reference_days,
            "reference_users": self.reference_users,
            "seed": self.seed,
            "start": str(self.start),
        }


def _int(name: str, value: object, lo: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer):
        raise ValueError(f"{name} must be an integer, got {value!r}")
    if value < lo:
        raise ValueError(f"{name} must be >= {lo}, got {value}")
    return int(value)


def validate_params(
    n_users: object,
    n_days: object,
    seed: object,
    reference_users: object,
    reference_days: object,
    start: object,
) -> SynthParams:
    """Check the public parameters and return them normalised.

    Raises:
        ValueError: Naming the bad parameter, its value and the valid range.
    """
    n_ref = _int("reference_users", reference_users, 0)
    ref_days = _int("reference_days", reference_days, 14 if n_ref else 1)
    if isinstance(start, dt.datetime):
        raise ValueError(f"start must be a calendar date, not a datetime: {start!r}")
    if not isinstance(start, str | dt.date):
        raise ValueError(f"start must be an ISO date string like '2024-01-01', got {start!r}")
    try:
        day = np.datetime64(start)
    except ValueError as exc:
        raise ValueError(f"start must be an ISO date like '2024-01-01', got {start!r}") from exc
    if np.datetime_data(day.dtype)[0] != "D":
        raise ValueError(f"start must be an ISO date like '2024-01-01' (a day, no time), got {start!r}")
    return SynthParams(
        n_users=_int("n_users", n_users, 1),
        n_days=_int("n_days", n_days, 1),
        seed=_int("seed", seed, 0),
        reference_users=n_ref,
        reference_days=ref_days,
        start=day,
    )
