"""Events a counterfactual injects: HealthLoopQA's "run now", "meal now", "heavy lunch" and so on.

Each event writes into one member's rows of the inputs (carbs eaten, exercise intensity, extra
insulin), indexed by minute of the run; minute ``at`` is "now". Meals go through the meal
stage like any meal (announced, so the controller boluses for them, unless a fault hides
them), except ``MealNow(..., announced=False)``: carbs eaten that the controller is never told
of (an unbolused snack), so the loop reacts only through glucose. Exercise follows the session
profiles of :func:`~wearbench.sim.exercise_array`; magnitudes become intensity with
:func:`~wearbench.sim.scenario.running_intensity` and
:func:`~wearbench.sim.scenario.cycling_intensity`. See ``docs/cgm-counterfactual.md``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

from wearbench._errors import WearbenchError
from wearbench.sim.patient._params import FloatArray
from wearbench.sim.scenario import (
    DEFAULT_VO2MAX,
    MEAL_CARBS_G,
    cycling_intensity,
    running_intensity,
    session_profile,
)

DAY = 1440
LUNCH_HOURS = (10.0, 14.0)  #: clock window of lunch (simglucose's RandomScenario), h
#: (hour, carbs g) of a normal day: simglucose's mean breakfast, lunch and dinner, and two snacks
#: in HealthLoopQA's normal_day snack windows (09-11 and 15-17 h).
NORMAL_DAY_MEALS: tuple[tuple[float, float], ...] = (
    (7.0, 45.0),
    (10.0, 10.0),
    (12.0, 70.0),
    (16.0, 10.0),
    (18.0, 80.0),
)


@dataclass(frozen=True)
class MemberInputs:
    """One member's input rows (views, changed in place), each of shape ``(minutes,)``.

    Attributes:
        eaten: Carbs eaten (g) per minute.
        exercise: Exercise intensity (0-1) per minute.
        insulin: Extra insulin taken by hand (U) per minute.
        hidden: Carbs eaten (g) per minute that are not announced to the controller (on top of
            ``eaten``), or None: these inputs take none.
    """

    eaten: FloatArray
    exercise: FloatArray
    insulin: FloatArray
    hidden: FloatArray | None = None

    @property
    def minutes(self) -> int:
        """Minutes in the run."""
        return len(self.eaten)

    def add_meal(self, minute: int, carbs_g: float, *, announced: bool = True) -> None:
        """Eat ``carbs_g`` more at ``minute`` (the minute's total must stay within one meal's bounds).

        Args:
            minute: Minute of the run.
            carbs_g: Carbohydrate (g), at least 0.
            announced: False: the carbs go to ``hidden``, eaten but not announced.

        Raises:
            WearbenchError: The minute's total (announced and not) leaves the meal bounds, or
                unannounced carbs where ``hidden`` is None.
        """
        lo, hi = MEAL_CARBS_G
        extra = 0.0 if self.hidden is None else float(self.hidden[minute])
        total = self.eaten[minute] + extra + carbs_g
        if not (np.isfinite(carbs_g) and carbs_g >= 0 and lo <= total <= hi):
            raise WearbenchError(
                f"{carbs_g:g} g of carbs at minute {minute} gives {total:g} g, outside {lo:g}-{hi:g} g"
            )
        if announced:
            self.eaten[minute] += carbs_g
        elif self.hidden is None:
            raise WearbenchError(f"unannounced carbs at minute {minute}: these inputs take none")
        else:
            self.hidden[minute] = extra + carbs_g

    def add_session(self, start: int, duration: int, kind: str, intensity: float) -> None:
        """An exercise session (profile of :func:`~wearbench.sim.exercise_array`), overlaps take the max."""
        if duration < 1 or start + duration > self.minutes:
            raise WearbenchError(
                f"{kind} from minute {start} for {duration} min does not fit the run ({self.minutes} min)"
            )
        if not 0.0 <= intensity <= 1.0:
            raise WearbenchError(f"{kind} at intensity {intensity:g} is outside [0, 1]")
        profile = session_profile(kind, intensity, duration)
        window = self.exercise[start : start + duration]
        window[:] = np.maximum(window, profile)


@dataclass(frozen=True)
class EventInputs:
    """The inputs of a batch of M members, shape ``(M, minutes)`` each (see :class:`MemberInputs`)."""

    eaten: FloatArray
    exercise: FloatArray
    insulin: FloatArray
    hidden: FloatArray

    def row(self, k: int) -> MemberInputs:
        """Member ``k``'s rows (views)."""
        return MemberInputs(self.eaten[k], self.exercise[k], self.insulin[k], self.hidden[k])

    @property
    def all_eaten(self) -> FloatArray:
        """Every carb eaten (g), announced or not."""
        return self.eaten + self.hidden


class Event(Protocol):
    """Something injected into one member's inputs."""

    def inject(self, inputs: MemberInputs, at: int, body_weight_kg: float) -> None:
        """Write the event into ``inputs`` for injection minute ``at``.

        Raises:
            WearbenchError: The event does not fit the run (e.g. ends after it).
        """


@dataclass(frozen=True)
class RunNow:
    """Running from minute ``at`` for ``duration_min`` at ``speed_kmh`` (ACSM running equation).

    Attributes:
        duration_min: Duration (min).
        speed_kmh: Speed (km/h).
        incline_pct: Grade (%).
        vo2max: The runner's VO2max (mL/kg/min).
    """

    duration_min: int = 30
    speed_kmh: float = 8.0
    incline_pct: float = 0.0
    vo2max: float = DEFAULT_VO2MAX

    def inject(self, inputs: MemberInputs, at: int, body_weight_kg: float) -> None:
        level = running_intensity(self.speed_kmh, self.incline_pct, self.vo2max)
        inputs.add_session(at, self.duration_min, "running", level)


@dataclass(frozen=True)
class CycleNow:
    """Cycling from minute ``at`` for ``duration_min`` at ``power_w`` (ACSM cycling, patient's weight).

    Attributes:
        duration_min: Duration (min).
        power_w: Power (W).
        vo2max: The rider's VO2max (mL/kg/min).
    """

    duration_min: int = 20
    power_w: float = 90.0
    vo2max: float = DEFAULT_VO2MAX

    def inject(self, inputs: MemberInputs, at: int, body_weight_kg: float) -> None:
        level = cycling_intensity(self.power_w, body_weight_kg, self.vo2max)
        inputs.add_session(at, self.duration_min, "cycling", level)


@dataclass(frozen=True)
class MealNow:
    """A meal of ``carbs_g`` eaten at minute ``at``, announced to the controller unless told not.

    Attributes:
        carbs_g: Carbohydrate (g).
        announced: False: the controller is never told of the carbs (no meal bolus; an unbolused
            snack), the loop sees them only through glucose.
    """

    carbs_g: float
    announced: bool = True

    def inject(self, inputs: MemberInputs, at: int, body_weight_kg: float) -> None:
        inputs.add_meal(at, self.carbs_g, announced=self.announced)


@dataclass(frozen=True)
class InsulinNow:
    """``units`` of rapid-acting insulin taken by hand at minute ``at`` (the controller is not told).

    Attributes:
        units: Insulin (U), at least 0.
    """

    units: float

    def inject(self, inputs: MemberInputs, at: int, body_weight_kg: float) -> None:
        if not (np.isfinite(self.units) and self.units >= 0):
            raise WearbenchError(f"insulin dose {self.units:g} U must be >= 0")
        inputs.insulin[at] += self.units


@dataclass(frozen=True)
class LateNightSnack:
    """A snack of ``carbs_g`` at the first ``clock`` time of day at or after ``at``.

    Attributes:
        carbs_g: Carbohydrate (g).
        clock: Hour of the day (22.5 = 22:30); HealthLoopQA's late-night snack is in 22-24 h.
    """

    carbs_g: float = 30.0
    clock: float = 23.0

    def inject(self, inputs: MemberInputs, at: int, body_weight_kg: float) -> None:
        minute = _next_clock(at, self.clock)
        if minute >= inputs.minutes:
            raise WearbenchError(f"no {self.clock:g} h after minute {at} before the run ends")
        inputs.add_meal(minute, self.carbs_g)


@dataclass(frozen=True)
class HeavyLunch:
    """The next lunch eaten at or after ``at`` becomes ``(1 + extra_factor)`` times as large.

    The lunch is the largest meal between 10:00 and 14:00 (simglucose's lunch window) of the first
    day, from ``at`` on, that has one; 70 g with the default 1.5 becomes 175 g (HealthLoopQA's
    overeating lunch is 160-240 g).

    Attributes:
        extra_factor: Extra carbs as a fraction of the lunch (> -1).
    """

    extra_factor: float = 1.5

    def inject(self, inputs: MemberInputs, at: int, body_weight_kg: float) -> None:
        if not self.extra_factor > -1:
            raise WearbenchError(f"extra_factor {self.extra_factor:g} must be > -1")
        lo, hi = (round(h * 60) for h in LUNCH_HOURS)
        for day in range(at // DAY, inputs.minutes // DAY + 1):
            a, b = max(day * DAY + lo, at), min(day * DAY + hi, inputs.minutes)
            if a < b and inputs.eaten[a:b].any():
                minute = a + int(np.argmax(inputs.eaten[a:b]))
                inputs.add_meal(minute, inputs.eaten[minute] * self.extra_factor)
                return
        raise WearbenchError(
            f"no lunch (a meal in {LUNCH_HOURS[0]:g}-{LUNCH_HOURS[1]:g} h) after minute {at}"
        )


@dataclass(frozen=True)
class NormalDay:
    """The next whole day (from the first midnight at or after ``at``) is a plain, unperturbed day.

    Its meals are replaced by ``meals`` and its exercise by ``run`` and ``cycle`` (HealthLoopQA's
    normal_day: a run at 05-07 h at 5.0 km/h, cycling at 16-18 h for 20 min at 90 W, snacks at
    09-11 and 15-17 h; we take the windows' midpoints and a 30-min run). ``run=None`` and
    ``cycle=None`` give a day without exercise.

    Attributes:
        meals: ``(hour, carbs g)`` eaten that day.
        run: ``(hour, duration min, speed km/h)`` or ``None``.
        cycle: ``(hour, duration min, power W)`` or ``None``.
    """

    meals: tuple[tuple[float, float], ...] = NORMAL_DAY_MEALS
    run: tuple[float, int, float] | None = (6.0, 30, 5.0)
    cycle: tuple[float, int, float] | None = (17.0, 20, 90.0)

    def inject(self, inputs: MemberInputs, at: int, body_weight_kg: float) -> None:
        day = _next_clock(at, 0.0)
        if day + DAY > inputs.minutes:
            raise WearbenchError(f"the day after minute {at} (from minute {day}) does not fit the run")
        inputs.eaten[day : day + DAY] = 0.0
        inputs.exercise[day : day + DAY] = 0.0
        for hour, grams in self.meals:
            inputs.add_meal(day + round(hour * 60) % DAY, grams)
        if self.run is not None:
            hour, duration, speed = self.run
            inputs.add_session(day + round(hour * 60), duration, "running", running_intensity(speed))
        if self.cycle is not None:
            hour, duration, power = self.cycle
            level = cycling_intensity(power, body_weight_kg)
            inputs.add_session(day + round(hour * 60), duration, "cycling", level)


def _next_clock(at: int, hour: float) -> int:
    """The first minute at or after ``at`` whose time of day is ``hour``."""
    offset = round(hour * 60) % DAY
    day = at // DAY
    return day * DAY + offset if day * DAY + offset >= at else (day + 1) * DAY + offset
