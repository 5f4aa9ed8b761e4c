"""Random fault plans: every chosen type at least once, non-overlapping intervals per patient."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from wearbench._errors import WearbenchError
from wearbench._registry import registry
from wearbench.sim.faults._plan import FaultEvent, FaultPlan

__all__ = ["fault_names", "random_fault_plan", "random_faults"]


def fault_names() -> list[str]:
    """Sorted names of all registered faults."""
    import wearbench.sim.faults._types  # noqa: F401  (registers the faults)

    return registry.names("fault")


def _summary(label: str) -> str:
    doc = registry.get("fault", label).obj.__doc__ or ""
    return doc.strip().splitlines()[0] if doc.strip() else label


def random_faults(
    types: Sequence[str] | None,
    n_patients: int,
    minutes: int,
    rng: np.random.Generator,
    *,
    per_day: float = 1.0,
    min_duration: int = 30,
    max_duration: int = 180,
    min_gap: int = 60,
    intensity: tuple[float, float] = (0.5, 1.0),
) -> FaultPlan:
    """Draw a fault plan.

    Args:
        types: Fault names to use (``None``: all registered); each appears at least once.
        n_patients: Patients in the run.
        minutes: Minutes in the run.
        rng: Random generator (the only source of randomness).
        per_day: Mean faults per patient per day (the total is raised to ``len(types)`` if lower).
        min_duration: Shortest interval (min).
        max_duration: Longest interval (min).
        min_gap: Fault-free minutes between two intervals of one patient (and before the first).
        intensity: Range of the uniform intensity draw, within ``[0, 1]``.

    Returns:
        The plan; events sorted by patient and start.

    Raises:
        WearbenchError: Unknown type names (with suggestions), bad ranges, or too little room.
    """
    names = list(types) if types is not None else fault_names()
    for name in names:
        registry.get("fault", name)
    if not names or n_patients < 1 or minutes < 1:
        raise WearbenchError("random_faults needs at least one type, patient and minute")
    if not 1 <= min_duration <= max_duration or min_gap < 0:
        raise WearbenchError("random_faults: need 1 <= min_duration <= max_duration and min_gap >= 0")
    lo, hi = intensity
    if not 0.0 <= lo <= hi <= 1.0:
        raise WearbenchError("random_faults: intensity range must lie within [0, 1]")
    total = max(len(names), round(per_day * n_patients * minutes / 1440))
    labels = list(rng.permutation(names)) + list(rng.choice(names, size=total - len(names)))
    owner = rng.permutation(np.arange(total) % n_patients)
    events: list[FaultEvent] = []
    for p in range(n_patients):
        mine = [str(labels[i]) for i in np.flatnonzero(owner == p)]
        if not mine:
            continue
        mine = [mine[i] for i in rng.permutation(len(mine))]
        durations = rng.integers(min_duration, max_duration + 1, size=len(mine))
        free = minutes - int(durations.sum()) - min_gap * len(mine)
        if free < 0:
            raise WearbenchError(
                f"random_faults: {len(mine)} faults of up to {max_duration} min do not fit in {minutes} min"
            )
        offsets = np.sort(rng.integers(0, free + 1, size=len(mine)))
        for k, label in enumerate(mine):
            start = int(offsets[k]) + min_gap * (k + 1) + int(durations[:k].sum())
            events.append(
                FaultEvent(
                    patient=p,
                    start=start,
                    duration=int(durations[k]),
                    label=label,
                    intensity=round(float(rng.uniform(lo, hi)), 3),
                    description=_summary(label),
                )
            )
    return FaultPlan(tuple(events))


def random_fault_plan(
    n_patients: int, days: int, *, seed: int = 0, types: Sequence[str] | None = None
) -> FaultPlan:
    """The fault plan of ``wearbench cgm simulate --faults random``: about one fault per patient-day.

    Every type appears at least once, so short runs get more than one a day; interval lengths
    (30-180 min) and gaps (up to 60 min) shrink so that they always fit. Drawn by
    :func:`random_faults` from ``np.random.default_rng([seed, 6])``.

    Args:
        n_patients: Patients in the run.
        days: Days in the run.
        seed: The run's seed.
        types: Fault names to use (``None``: all registered).

    Returns:
        The plan; events sorted by patient and start.
    """
    if n_patients < 1 or days < 1:
        raise WearbenchError(f"random_fault_plan needs a patient and a day, got {n_patients} and {days}")
    n_types = len(types) if types is not None else len(fault_names())
    per_patient = -(-max(n_types, days * n_patients) // n_patients)  # ceil, 1 per day
    slot = days * 1440 // per_patient  # minutes per fault, so that they always fit
    longest = max(min(180, slot // 2), 2)
    rng = np.random.default_rng([seed, 6])
    return random_faults(types, n_patients, days * 1440, rng, min_duration=min(30, longest),
                         max_duration=longest, min_gap=min(60, slot // 4))  # fmt: skip
