"""One patient's record on the 5-minute grid: what a CGM template's truth function reads.

Points run from day 1 00:00 every 5 minutes (:mod:`wearbench.cgmqa._series` has the
conventions). Events keep their own minute from the start (off the grid). A table is ``None``
when the source does not record that kind of event at all (real data without exercise), and
empty when it records it but this patient has none.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import TypeVar

import numpy as np

from wearbench._errors import WearbenchError
from wearbench.cgmqa._rerun import Rerun
from wearbench.cgmqa._series import DAY_MIN, POINTS_PER_DAY, days_points
from wearbench.sim import HYPO_TREATMENT

T = TypeVar("T", "Meal", "Bolus", "Exercise")

#: The meal types the meal templates ask about (the simulator's, and the reader's clock rule).
MEAL_TYPES = ("breakfast", "morning_snack", "lunch", "afternoon_snack", "dinner")
#: ``meal_type`` of carbohydrate eaten to treat a low (the simulator's rescue carbs, ``kind="carbs"``
#: events): recorded and shown, but never a meal.


@dataclass(frozen=True)
class Meal:
    """A carbohydrate intake: a meal, or carbs eaten to treat a low.

    Attributes:
        minute: Minutes from day 1 00:00.
        carbs: Carbohydrate, g.
        meal_type: ``breakfast``, ``morning_snack``, ``lunch``, ``afternoon_snack`` or ``dinner``
            (:data:`MEAL_TYPES`), or ``hypo_treatment`` (:data:`HYPO_TREATMENT`: not a meal).
    """

    minute: float
    carbs: float
    meal_type: str

    @property
    def is_meal(self) -> bool:
        """False for a hypo treatment: the meal templates never count it."""
        return self.meal_type != HYPO_TREATMENT


@dataclass(frozen=True)
class Bolus:
    """A bolus (or injection) of insulin.

    Attributes:
        minute: Minutes from day 1 00:00.
        dosage: Insulin, U.
        insulin_type: E.g. ``rapid`` (free text for real data).
    """

    minute: float
    dosage: float
    insulin_type: str


@dataclass(frozen=True)
class Exercise:
    """An exercise session.

    Attributes:
        minute: Start, minutes from day 1 00:00.
        duration: Minutes.
        exercise_type: E.g. ``running``, ``cycling``.
        magnitude: Speed (km/h) for running, power (W) for cycling; NaN when unknown.
    """

    minute: float
    duration: float
    exercise_type: str
    magnitude: float

    @property
    def end(self) -> float:
        """End, minutes from day 1 00:00."""
        return self.minute + self.duration


@dataclass(frozen=True, eq=False)
class PatientRecord:
    """One patient's arrays on the 5-minute grid from day 1 00:00 (``288 × days`` points).

    Attributes:
        subject: Subject id.
        start: Wall-clock time of day 1 00:00.
        bg: Displayed CGM, mg/dL (NaN where missing; 0 during a ``zero_reading`` fault).
        fault: Fault label per point (``""`` when none), or None for real data.
        hazard: Hazard label per point (``hypoglycemia``, ``hyperglycemia`` or ``""``), or None.
        meals: Carbohydrate intakes in time order (hypo treatments included; :meth:`meals_of`
            leaves them out), or None when the source records none.
        boluses: Boluses in time order, or None.
        insulin: Insulin shown by the pump per point (mean rate over the 5 minutes, mU/min), or None.
        exercise: Exercise sessions in time order, or None.
        rerun: The re-simulation behind a simulated record (counterfactuals,
            ``read_records(folder, rerun=True)``), or None (real data, or not asked for).
    """

    subject: str
    start: datetime
    bg: np.ndarray
    fault: np.ndarray | None = None
    hazard: np.ndarray | None = None
    meals: tuple[Meal, ...] | None = None
    boluses: tuple[Bolus, ...] | None = None
    insulin: np.ndarray | None = None
    exercise: tuple[Exercise, ...] | None = None
    rerun: Rerun | None = None

    def __post_init__(self) -> None:
        n = len(self.bg)
        if n == 0 or n % POINTS_PER_DAY:
            raise WearbenchError(
                f"subject {self.subject}: {n} CGM points are not whole days ({POINTS_PER_DAY} a day)"
            )
        for name in ("fault", "hazard", "insulin"):
            arr = getattr(self, name)
            if arr is not None and len(arr) != n:
                raise WearbenchError(f"subject {self.subject}: {name} has {len(arr)} points, bg has {n}")

    @property
    def days(self) -> int:
        """Whole days in the record."""
        return len(self.bg) // POINTS_PER_DAY

    @property
    def minutes(self) -> int:
        """Length of the record, minutes."""
        return self.days * DAY_MIN

    def meals_of(self, day: int, meal_type: str | None = None) -> list[Meal]:
        """The meals of day ``day`` (1-based), of one type if given, in time order.

        A hypo treatment is never a meal: it is left out whatever ``meal_type`` says
        (:meth:`treatments_of` lists them).
        """
        return [
            m
            for m in self.meals or ()
            if m.is_meal and _on_day(m.minute, day) and meal_type in (None, m.meal_type)
        ]

    def treatments_of(self, day: int) -> list[Meal]:
        """The carbs eaten to treat a low on day ``day`` (1-based), in time order."""
        return [m for m in self.meals or () if not m.is_meal and _on_day(m.minute, day)]

    def sessions_of(self, day: int, exercise_type: str | None = None) -> list[Exercise]:
        """The exercise sessions starting on day ``day`` (1-based), of one type if given."""
        return [
            s
            for s in self.exercise or ()
            if _on_day(s.minute, day) and exercise_type in (None, s.exercise_type)
        ]

    def boluses_of(self, day: int) -> list[Bolus]:
        """The boluses of day ``day`` (1-based), in time order."""
        return [b for b in self.boluses or () if _on_day(b.minute, day)]

    def window(self, first_day: int, n_days: int) -> PatientRecord:
        """The record of days ``first_day`` … ``first_day + n_days − 1``, renumbered from day 1.

        The window has no ``rerun`` (its minutes would no longer match the run's).

        Raises:
            WearbenchError: If the window does not lie inside the record.
        """
        if first_day < 1 or n_days < 1 or first_day + n_days - 1 > self.days:
            raise WearbenchError(
                f"subject {self.subject}: days {first_day}..{first_day + n_days - 1} "
                f"are not inside the record's {self.days} day(s)"
            )
        pts = days_points(first_day, first_day + n_days - 1)
        lo, hi = (first_day - 1) * DAY_MIN, (first_day - 1 + n_days) * DAY_MIN

        def cut(arr: np.ndarray | None) -> np.ndarray | None:
            return None if arr is None else arr[pts].copy()

        return replace(
            self,
            start=self.start + timedelta(days=first_day - 1),
            bg=self.bg[pts].copy(),
            fault=cut(self.fault),
            hazard=cut(self.hazard),
            insulin=cut(self.insulin),
            meals=_shift(self.meals, lo, hi),
            boluses=_shift(self.boluses, lo, hi),
            exercise=_shift(self.exercise, lo, hi),
            rerun=None,
        )


def _on_day(minute: float, day: int) -> bool:
    return (day - 1) * DAY_MIN <= minute < day * DAY_MIN


def _shift(events: tuple[T, ...] | None, lo: float, hi: float) -> tuple[T, ...] | None:
    if events is None:
        return None
    return tuple(replace(e, minute=e.minute - lo) for e in events if lo <= e.minute < hi)
