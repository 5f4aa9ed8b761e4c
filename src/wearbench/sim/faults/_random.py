"""Random fault plans: every chosen type at least once, non-overlapping intervals per patient.

:func:`random_faults` draws intensity-sized faults (``--faults random`` of the default profile);
:func:`profile_faults` draws every label of a :class:`FaultProfile` for every patient, at the
profile's sizes and durations on a sample grid (the ``healthloopqa`` profile).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from wearbench._errors import WearbenchError
from wearbench._registry import registry
from wearbench.sim.faults._plan import FaultEvent, FaultPlan


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


@dataclass(frozen=True)
class FaultSize:
    """How often, how long and how large one fault label is in a profile's random plan.

    Attributes:
        label: Registered fault name.
        per_30_days: Intervals per patient in 30 days (scaled to the run's length, at least 1).
        max_per_30_days: When set, each patient's count per 30 days is drawn uniformly from
            ``per_30_days`` … ``max_per_30_days`` (so totals such as the share of missing readings
            differ between patients), then scaled as ``per_30_days`` is; ``None``: always
            ``per_30_days``.
        min_duration: Shortest interval (min; a multiple of the plan's grid).
        max_duration: Longest interval (min; a multiple of the plan's grid).
        magnitude: Size in the fault's unit (:attr:`FaultEvent.magnitude`), or ``None``.
        intensity: Intensity (0-1) for faults sized by intensity.
        hours: Clock window ``(from, to)`` in hours for the interval start, or ``None`` (any time).
        days: Days ``(first, last)`` (1-based, inclusive) for the interval start, or ``None`` (any
            day); ignored in a run that ends before ``last``.
    """

    label: str
    per_30_days: int
    min_duration: int
    max_duration: int
    magnitude: float | None = None
    intensity: float = 0.5
    hours: tuple[float, float] | None = None
    days: tuple[int, int] | None = None
    max_per_30_days: int | None = None


@dataclass(frozen=True)
class FaultProfile:
    """A random fault plan's sizes: every label of ``sizes`` for every patient, on a sample grid.

    Attributes:
        sizes: One entry per (label, clock window); a label may appear more than once.
        grid: Starts and durations are multiples of this (min), so a ``grid``-long interval
            covers exactly one sensor sample.
        min_gap: Fault-free minutes between two intervals of one patient.
    """

    sizes: tuple[FaultSize, ...]
    grid: int = 5
    min_gap: int = 30

    def check(self) -> None:
        """Raise :class:`WearbenchError` for unknown labels or durations off the grid."""
        for s in self.sizes:
            registry.get("fault", s.label)
            if (
                not (self.grid <= s.min_duration <= s.max_duration)
                or s.min_duration % self.grid
                or (s.max_duration % self.grid)
            ):
                raise WearbenchError(
                    f"fault profile {s.label}: durations {s.min_duration}-{s.max_duration} min must be "
                    f"multiples of {self.grid} min, shortest first"
                )
            if s.per_30_days < 1 or not 0.0 <= s.intensity <= 1.0:
                raise WearbenchError(f"fault profile {s.label}: per_30_days >= 1 and intensity in [0, 1]")
            if s.max_per_30_days is not None and s.max_per_30_days < s.per_30_days:
                raise WearbenchError(f"fault profile {s.label}: max_per_30_days < per_30_days")
            if s.days is not None and not 1 <= s.days[0] <= s.days[1]:
                raise WearbenchError(f"fault profile {s.label}: days {s.days} must be 1-based, first <= last")


def _free_starts(busy: np.ndarray, duration: int, gap: int, grid: int) -> np.ndarray:
    """Grid minutes where ``[s, s + duration)`` and ``gap`` minutes either side are free."""
    minutes = len(busy)
    padded = np.concatenate([[0], np.cumsum(busy, dtype=np.int64)])
    starts = np.arange(0, minutes - duration + 1, grid)
    lo = np.maximum(starts - gap, 0)
    hi = np.minimum(starts + duration + gap, minutes)
    free: np.ndarray = starts[padded[hi] - padded[lo] == 0]
    return free


def profile_faults(profile: FaultProfile, n_patients: int, days: int, rng: np.random.Generator) -> FaultPlan:
    """A random fault plan at a profile's sizes: every label of the profile for every patient.

    Each patient gets ``max(1, round(per_30_days * days / 30))`` intervals of each entry (with
    ``per_30_days`` drawn per patient up to ``max_per_30_days`` when the entry has one), with a
    length drawn uniformly on the grid between ``min_duration`` and ``max_duration`` (all at
    ``min_duration`` when the drawn lengths would fill over a third of the run). They are placed
    those with a day or clock window first, then longest first, each at a start drawn uniformly
    among the grid minutes where it fits ``min_gap`` minutes clear of the others, inside the
    entry's day and clock windows when it has them (anywhere when the window is full, or its days
    lie past the end of the run). When that leaves no room for one (short runs), the patient's
    intervals are packed instead: shuffled, in order, at random gaps of at least ``min_gap``
    (windows ignored).

    Args:
        profile: The sizes.
        n_patients: Patients in the run.
        days: Days in the run.
        rng: Random generator (the only source of randomness).

    Returns:
        The plan; events sorted by patient and start.

    Raises:
        WearbenchError: Bad sizes, or intervals that do not fit in ``days`` days.
    """
    profile.check()
    if n_patients < 1 or days < 1:
        raise WearbenchError(f"profile_faults needs a patient and a day, got {n_patients} and {days}")
    minutes, g = days * 1440, profile.grid
    events: list[FaultEvent] = []
    for p in range(n_patients):
        todo: list[tuple[int, FaultSize]] = []
        for s in profile.sizes:
            count = max(1, round(_per_30_days(s, rng) * days / 30))
            lengths = g * rng.integers(s.min_duration // g, s.max_duration // g + 1, size=count)
            todo += [(int(d), s) for d in lengths]
        if sum(d for d, _ in todo) > minutes / 3:
            todo = [(s.min_duration, s) for _, s in todo]
        todo.sort(key=lambda item: (item[1].hours is None and item[1].days is None, -item[0], item[1].label))
        placed = _scatter(todo, minutes, profile, rng)
        if placed is None:
            placed = _pack(todo, minutes, profile, rng)
        if placed is None:
            total = sum(d for d, _ in todo)
            raise WearbenchError(
                f"fault profile: {len(todo)} faults ({total} min, {profile.min_gap} min apart) do not fit "
                f"in {days} day(s)"
            )
        for start, duration, s in placed:
            summary = _summary(s.label)
            events.append(FaultEvent(p, start, duration, s.label, s.intensity, summary, s.magnitude))
    return FaultPlan(tuple(sorted(events, key=lambda e: (e.patient, e.start))))


def _per_30_days(s: FaultSize, rng: np.random.Generator) -> int:
    """The entry's count per 30 days: fixed, or drawn up to ``max_per_30_days`` (one draw)."""
    if s.max_per_30_days is None:
        return s.per_30_days
    return int(rng.integers(s.per_30_days, s.max_per_30_days + 1))


def _scatter(
    todo: list[tuple[int, FaultSize]], minutes: int, profile: FaultProfile, rng: np.random.Generator
) -> list[tuple[int, int, FaultSize]] | None:
    """Each interval at a uniform free start (in its window when possible); ``None`` when one has no room."""
    busy = np.zeros(minutes, dtype=np.int8)
    out = []
    for duration, s in todo:
        starts = _free_starts(busy, duration, profile.min_gap, profile.grid)
        inside = _in_window(starts, s, minutes)
        starts = inside if len(inside) else starts
        if not len(starts):
            return None
        start = int(starts[rng.integers(len(starts))])
        busy[start : start + duration] = 1
        out.append((start, duration, s))
    return out


def _in_window(starts: np.ndarray, s: FaultSize, minutes: int) -> np.ndarray:
    """The starts inside ``s``'s day and clock windows (a day window past the run is ignored)."""
    keep = np.ones(len(starts), dtype=bool)
    if s.days is not None and s.days[1] * 1440 <= minutes:
        keep &= (starts >= (s.days[0] - 1) * 1440) & (starts < s.days[1] * 1440)
    if s.hours is not None:
        clock = starts % 1440
        keep &= (clock >= s.hours[0] * 60) & (clock < s.hours[1] * 60)
    selected: np.ndarray = starts[keep]
    return selected


def _pack(
    todo: list[tuple[int, FaultSize]], minutes: int, profile: FaultProfile, rng: np.random.Generator
) -> list[tuple[int, int, FaultSize]] | None:
    """Intervals in random order at random gaps of at least ``min_gap``; ``None`` when they do not fit."""
    g = profile.grid
    order = [todo[i] for i in rng.permutation(len(todo))]
    gap = -(-profile.min_gap // g) * g
    free = (minutes - sum(d for d, _ in order) - gap * len(order)) // g
    if free < 0:
        return None
    offsets = np.sort(rng.integers(0, free + 1, size=len(order))) * g
    out, used = [], 0
    for k, (duration, s) in enumerate(order):
        start = int(offsets[k]) + gap * (k + 1) + used
        out.append((start, duration, s))
        used += duration
    return out
