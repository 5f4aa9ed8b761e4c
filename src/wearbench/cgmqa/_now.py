"""Prediction time ("now") of the PD templates: their params samplers and where the context ends.

A PD question is asked at a moment of the record, "now": the model is shown the readings and
events up to ``now`` only and the truth lies after it (the recorded future, or a counterfactual
re-simulation from ``now``). The params say when ``now`` is, and :func:`context_end` turns them
into a minute from the start of the record:

- samplers ``now:<HHMM>+<HHMM>…`` and ``meal_now:<meal_type>`` give ``{"day", "time"}``: now is
  that day at that clock time (``"HH:MM"``); ``now`` lists the given clock times and
  ``meal_now`` the times of that type of meal, each on the last two days of the record
  (HealthLoopQA injects its prediction events in the last 2 days);
- ``exercise_now:<HHMM>+<HHMM>…`` gives the ``now`` params plus a running and a cycling session
  to compare (``run_min``, ``run_kmh``, ``cycle_min``, ``cycle_w``): each drawn uniformly on a
  grid inside the healthloopqa profile's running and cycling ranges (durations in 5-min steps,
  whole km/h, power in 10 W; running on the flat), seeded by subject, day and time, so an item keeps its pair;
- ``next_day`` gives ``{"day"}`` = the last day: now is its midnight (the question is about it);
- ``next_monday`` gives ``{"day"}`` = the first Monday with three Mondays before it: now is its
  midnight;
- ``next_week`` gives ``{"week": 4}`` when the record has 28 days: now is day 22's midnight.
"""

from __future__ import annotations

import zlib
from collections.abc import Mapping

import numpy as np

from wearbench.cgmqa._record import PatientRecord
from wearbench.cgmqa._series import DAY_MIN
from wearbench.sim import get_profile
from wearbench.sim.scenario import ExerciseSlot

#: Sampler name (before ``:``) -> its placeholder keys.
NOW_KEYS: dict[str, tuple[str, ...]] = {
    "now": ("day", "time"),
    "meal_now": ("day", "time"),
    "exercise_now": ("day", "time", "run_min", "run_kmh", "cycle_min", "cycle_w"),
    "next_day": ("day",),
    "next_monday": ("day",),
    "next_week": ("week",),
}
MONDAY = 0  #: ``datetime.weekday()`` of a Monday
LAST_DAYS = 2  #: "now" lies on the last this many days of the record


def clock(minute: float) -> str:
    """``"HH:MM"`` of minute ``minute`` from the start (time of day, minutes floored)."""
    m = int(minute) % DAY_MIN
    return f"{m // 60:02d}:{m % 60:02d}"


def minute_of(day: int, time: str) -> int:
    """Minute from the start of ``time`` (``"HH:MM"``) on day ``day`` (1-based)."""
    hh, mm = time.split(":")
    return (day - 1) * DAY_MIN + int(hh) * 60 + int(mm)


def _last_days(record: PatientRecord) -> range:
    return range(max(record.days - LAST_DAYS + 1, 1), record.days + 1)


def _grid(lo: float, hi: float, step: float) -> np.ndarray:
    """Multiples of ``step`` in ``[lo, hi]``."""
    return np.arange(np.ceil(lo / step), np.floor(hi / step) + 1) * step


def _exercise_grids() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Kind -> (durations min, magnitudes) of the healthloopqa profile's exercise slots."""
    scenario = get_profile("healthloopqa").scenario
    slots: dict[str, ExerciseSlot] = {s.kind: s for s in (scenario.exercise if scenario is not None else ())}
    steps = {"running": 1.0, "cycling": 10.0}  # km/h, W
    return {k: (_grid(*slots[k].duration_min, 5), _grid(*slots[k].magnitude, steps[k])) for k in steps}


EXERCISE_GRIDS = _exercise_grids()  #: the ``exercise_now`` pairs' choices, kind -> (min, km/h or W)


def exercise_pair(subject: str, day: int, time: str) -> dict[str, int | str]:
    """The running and cycling sessions an ``exercise_now`` item compares (see the module docstring)."""
    rng = np.random.default_rng(zlib.crc32(f"{subject}|{day}|{time}".encode()))
    drawn = [int(rng.choice(a)) for k in ("running", "cycling") for a in EXERCISE_GRIDS[k]]
    return dict(zip(("run_min", "run_kmh", "cycle_min", "cycle_w"), drawn, strict=True))


def now_candidates(name: str, record: PatientRecord) -> list[dict[str, int | str]]:
    """Every params of the PD sampler ``name`` (see the module docstring) on ``record``."""
    base, _, arg = name.partition(":")
    days = record.days
    if base == "now":
        times = [f"{t[:2]}:{t[2:]}" for t in arg.split("+")]
        return [{"day": d, "time": t} for d in _last_days(record) for t in times]
    if base == "exercise_now":
        times = [f"{t[:2]}:{t[2:]}" for t in arg.split("+")]
        return [
            {"day": d, "time": t, **exercise_pair(record.subject, d, t)}
            for d in _last_days(record)
            for t in times
        ]
    if base == "meal_now":
        return [
            {"day": d, "time": clock(m.minute)} for d in _last_days(record) for m in record.meals_of(d, arg)
        ]
    if base == "next_day":
        return [{"day": days}] if days >= 2 else []
    if base == "next_week":
        return [{"week": 4}] if days >= 28 else []
    mondays = [d for d in range(1, days + 1) if (record.start.weekday() + d - 1) % 7 == MONDAY]
    return [{"day": mondays[3]}] if len(mondays) >= 4 else []


def context_end(sampler: str | None, params: Mapping[str, int | str]) -> int | None:
    """Minute from the start where the context of a question with these params ends ("now").

    The model is shown the readings at times ``t <= now`` and the events before ``now``. None:
    the sampler is not a PD one, so the context is the whole record.
    """
    base = (sampler or "").split(":")[0]
    if base not in NOW_KEYS:
        return None
    if base in ("now", "meal_now", "exercise_now"):
        return minute_of(int(params["day"]), str(params["time"]))
    if base == "next_week":
        return (int(params["week"]) - 1) * 7 * DAY_MIN
    return (int(params["day"]) - 1) * DAY_MIN
