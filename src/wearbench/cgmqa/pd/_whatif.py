"""PD templates answered by a counterfactual re-simulation from "now" (12 of them).

Each template is a *plan* (the ``(at, event, horizon)`` re-runs its question needs, from the
record and params) and a truth function over the resulting traces (:class:`~wearbench.cgmqa.
_rerun.Trace`: displayed CGM on the 5-minute grid). They need ``record.rerun``
(``read_records(folder, rerun=True)``); without it (real data) they have no answer. The run is
otherwise as recorded: the scenario's meals, exercise and controller go on around the event.
Glucose values and changes are rounded to 1 decimal (mg/dL); hypo/hyper thresholds apply to the
displayed CGM. The events (sizes are ours; the seed gives windows only) are the constants below.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import numpy as np

from wearbench.cgmqa._now import minute_of
from wearbench.cgmqa._record import Meal, PatientRecord
from wearbench.cgmqa._rerun import Trace, prefetch
from wearbench.cgmqa._series import DAY_MIN, HYPER_MGDL, HYPO_MGDL, POINTS_PER_DAY, STEP_MIN
from wearbench.cgmqa._template import Answer, Params, get_template, template
from wearbench.sim import CycleNow, Event, InsulinNow, MealNow, NormalDay, RunNow

RUN = RunNow(30, 8.0)  #: a 30-min run at 8 km/h on the flat
CYCLE = CycleNow(20, 90.0)  #: 20 min of cycling at 90 W (the seed's normal_day cycling)
BREAKFAST = MealNow(50.0)  #: a 50 g breakfast (middle of the profile's 40-60 g)
MEAL = MealNow(60.0)  #: a 60 g meal (pd_14)
#: A 25 g late-night snack at 22:00 (the seed's late_night_snack: 22-24 h), eaten without a bolus:
#: the controller is not told of it and sees it only through glucose (pd_3, pd_15).
SNACK = MealNow(25.0, announced=False)
INSULIN = InsulinNow(1.0)  #: 1 U of rapid-acting insulin taken by hand
HEAVY_LUNCH_G = 200.0  #: the overeating lunch, g (the seed's 160-240 g)
#: The normal day of pd_17: (hour, carbs g); lunch at 12:00 (in the seed's 09-13 window) and dinner
#: at 18:00 (in 18-22), a run at 06:00 and cycling at 17:00.
NORMAL_MEALS = ((7.0, 45.0), (10.0, 10.0), (12.0, 70.0), (16.0, 10.0), (18.0, 80.0))
NORMAL = NormalDay(meals=NORMAL_MEALS)
CORRECTION_MGDL = 250.0  #: pd_13: level-2 hyperglycaemia (> 250 mg/dL) calls for a correction
SWING_MGDL = 60.0  #: pd_14: a swing is max - min above this
CLOSE_MGDL = 1.0  #: pd_9: drops closer than this (mg/dL) are too close to call (no answer)
RISE_WINDOW = 180  #: minutes after a meal in which its peak is sought (pd_11, pd_17)

Request = tuple[int, Event, int]  #: (injection minute, event, horizon min)
Plan = Callable[[PatientRecord, Params], list[Request] | None]
Reading = Callable[[PatientRecord, Params, list[Trace]], Answer | None]

_PLANS: dict[str, Plan] = {}


def whatif(id: str, plan: Plan, *, needs: tuple[str, ...] = (), **spec: Any) -> Callable[[Reading], Reading]:
    """Register template ``id`` whose truth reads the traces of ``plan``'s counterfactuals.

    ``spec`` are the other :class:`~wearbench.cgmqa.Template` fields (``level`` defaults to
    ``pattern``, the level of every PD template); ``counterfactual`` is added to its needs. The
    truth is None when the plan is None or a request does not fit the run.
    """

    def decorate(fn: Reading) -> Reading:
        @functools.wraps(fn)
        def truth(record: PatientRecord, params: Params) -> Answer | None:
            requests = plan(record, params)
            rerun = record.rerun
            if requests is None or rerun is None or not all(rerun.fits(a, h) for a, _, h in requests):
                return None
            return fn(record, params, [rerun.counterfactual(*r) for r in requests])

        template(id, needs=("counterfactual", *needs), **{"level": "pattern", **spec})(truth)
        _PLANS[id] = plan
        return fn

    return decorate


def whatif_requests(record: PatientRecord, ids: Iterable[str] | None = None) -> list[Request]:
    """Every counterfactual the templates ``ids`` (default: all of them) ask for on ``record``."""
    out: list[Request] = []
    for id in sorted(_PLANS) if ids is None else ids:
        if id not in _PLANS:
            continue
        for params in get_template(id).candidates(record):
            out.extend(_PLANS[id](record, params) or [])
    return out


def prefetch_counterfactuals(records: Sequence[PatientRecord], ids: Iterable[str] | None = None) -> None:
    """Run every counterfactual the templates ``ids`` will ask for on ``records``, in shared batches.

    Records without ``rerun`` are skipped. Later truth calls read the cache.
    """
    wanted = list(ids) if ids is not None else None
    prefetch(
        (r.rerun, at, event, horizon)
        for r in records
        if r.rerun is not None
        for at, event, horizon in whatif_requests(r, wanted)
    )


# --- plans ------------------------------------------------------------------------------------


def _now(params: Params) -> int:
    return minute_of(int(params["day"]), str(params["time"]))


def _at_now(event: Event, horizon: int) -> Plan:
    def plan(record: PatientRecord, params: Params) -> list[Request]:
        return [(_now(params), event, horizon)]

    return plan


def _lunch(record: PatientRecord, day: int, time: str | None = None) -> Meal | None:
    """Day ``day``'s lunch (at clock ``time`` if given), or None."""
    lunches = [
        m for m in record.meals_of(day, "lunch") if time is None or minute_of(day, time) == int(m.minute)
    ]
    return lunches[0] if lunches else None


def _heavy(meal: Meal | None) -> list[Request] | None:
    """The lunch raised to :data:`HEAVY_LUNCH_G` (one day of horizon room), or None."""
    if meal is None or meal.carbs >= HEAVY_LUNCH_G:
        return None
    return [(int(meal.minute), MealNow(HEAVY_LUNCH_G - meal.carbs), RISE_WINDOW)]


def _heavy_tomorrow(record: PatientRecord, params: Params) -> list[Request] | None:
    return _heavy(_lunch(record, int(params["day"])))


def _heavy_now(record: PatientRecord, params: Params) -> list[Request] | None:
    return _heavy(_lunch(record, int(params["day"]), str(params["time"])))


def _normal_day(record: PatientRecord, params: Params) -> list[Request]:
    return [((int(params["day"]) - 1) * DAY_MIN, NORMAL, DAY_MIN - 1)]


# --- readings of a trace ----------------------------------------------------------------------


def _finite(x: float) -> float | None:
    return None if math.isnan(x) else x


def _change(trace: Trace, now: int, later: int) -> float | None:
    """Displayed CGM at ``later`` minus at ``now`` (1 dp), or None when one is missing."""
    a, b = trace.bg_at(now), trace.bg_at(later)
    return None if math.isnan(a) or math.isnan(b) else round(b - a, 1)


def _peak(trace: Trace, minute: int) -> tuple[int, float] | None:
    """(point index, value) of the first maximum at ``minute < t <= minute + RISE_WINDOW``."""
    values = trace.between(minute + 1, minute + RISE_WINDOW)
    if not values.size or np.isnan(values).all():
        return None
    k = int(np.nanargmax(values))
    return max(math.ceil((minute + 1) / STEP_MIN), trace.first) + k, float(values[k])


def _rise_rate(trace: Trace, minute: int) -> float | None:
    """(3-h peak − reading at the meal) / minutes to the peak, mg/dL/min (2 dp)."""
    peak, base = _peak(trace, minute), trace.bg_at(minute)
    if peak is None or math.isnan(base):
        return None
    return round((peak[1] - base) / (peak[0] * STEP_MIN - minute), 2)


def _yes(flag: bool) -> str:
    return "yes" if flag else "no"


# --- templates --------------------------------------------------------------------------------


@whatif(
    "pd_3",
    _at_now(SNACK, 300),
    abilities=("PR", "ER", "QC"),
    answer_type="yes_no",
    metric="accuracy",
    sampler="now:2200",
    question="It is {time} on day {day}. If I eat a 25 g snack now without bolusing for it (my pump "
    "is not told about it), will my glucose go above 180 mg/dL within the next 5 hours?",
)
def snack_goes_high(record: PatientRecord, params: Params, traces: list[Trace]) -> str | None:
    """``yes`` when a reading in (now, now + 5 h] exceeds 180 mg/dL after the unbolused snack."""
    v = traces[0].between(_now(params) + 1, _now(params) + 300)
    return None if np.isnan(v).all() else _yes(bool(np.nanmax(v) > HYPER_MGDL))


@whatif(
    "pd_5",
    _at_now(RUN, 90),
    abilities=("QC", "PR"),
    answer_type="yes_no",
    metric="accuracy",
    sampler="now:0700+1000+1500+1800",
    question="It is {time} on day {day}. If I go for a 30-minute run at 8 km/h now, will my glucose "
    "drop below 70 mg/dL within 90 minutes?",
)
def run_goes_low(record: PatientRecord, params: Params, traces: list[Trace]) -> str | None:
    """``yes`` when a reading in (now, now + 90 min] is below 70 mg/dL with the run."""
    v = traces[0].between(_now(params) + 1, _now(params) + 90)
    return None if np.isnan(v).all() else _yes(bool(np.nanmin(v) < HYPO_MGDL))


@whatif(
    "pd_6",
    _at_now(BREAKFAST, 60),
    abilities=("QC", "PR"),
    answer_type="number",
    metric="smape",
    unit="mg/dL",
    sampler="now:0600+0630",
    question="It is {time} on day {day}. If I eat a 50 g breakfast now, what will my glucose be one "
    "hour later?",
)
def after_breakfast(record: PatientRecord, params: Params, traces: list[Trace]) -> float | None:
    """Displayed CGM at now + 60 min with the breakfast (1 dp)."""
    v = _finite(traces[0].bg_at(_now(params) + 60))
    return None if v is None else round(v, 1)


@whatif(
    "pd_7",
    _at_now(RUN, 45),
    abilities=("QC", "PR"),
    answer_type="number",
    metric="smape",
    unit="mg/dL",
    sampler="now:0700+1000+1500+1800",
    question="It is {time} on day {day}. If I run for 30 minutes at 8 km/h starting now, how much "
    "will my glucose have changed 15 minutes after the run ends (negative for a fall)?",
)
def run_change(record: PatientRecord, params: Params, traces: list[Trace]) -> float | None:
    """Displayed CGM at now + 45 min minus now, with the run (1 dp)."""
    return _change(traces[0], _now(params), _now(params) + 45)


@whatif(
    "pd_8",
    _at_now(CYCLE, 80),
    abilities=("QC", "PR"),
    answer_type="number",
    metric="smape",
    unit="mg/dL",
    sampler="now:0700+1000+1500+1800",
    question="It is {time} on day {day}. If I cycle for 20 minutes at 90 W starting now, how much "
    "will my glucose have changed 60 minutes after I stop (negative for a fall)?",
)
def cycle_change(record: PatientRecord, params: Params, traces: list[Trace]) -> float | None:
    """Displayed CGM at now + 80 min minus now, with the cycling (1 dp)."""
    return _change(traces[0], _now(params), _now(params) + 80)


def pair_events(params: Params) -> tuple[RunNow, CycleNow]:
    """pd_9's two sessions, from the params of its ``exercise_now`` sampler."""
    run = RunNow(int(params["run_min"]), float(params["run_kmh"]))
    return run, CycleNow(int(params["cycle_min"]), float(params["cycle_w"]))


def _both(record: PatientRecord, params: Params) -> list[Request]:
    return [(_now(params), event, 120) for event in pair_events(params)]


@whatif(
    "pd_9",
    _both,
    abilities=("CA", "QC", "PR"),
    answer_type="category",
    metric="accuracy",
    categories=("cycling", "running"),
    sampler="exercise_now:0700+1000+1500+1800",
    question="It is {time} on day {day}. Which would lower my glucose more over the next 2 hours: "
    "cycling for {cycle_min} minutes at {cycle_w} W now, or running for {run_min} minutes at "
    "{run_kmh} km/h on the flat now?",
)
def larger_drop(record: PatientRecord, params: Params, traces: list[Trace]) -> str | None:
    """The session whose drop (reading now − lowest in (now, now + 2 h]) is larger.

    None when the drops (1 dp) differ by less than :data:`CLOSE_MGDL`: too close to call.
    """
    now = _now(params)
    drops = []
    for trace in traces:
        v, base = trace.between(now + 1, now + 120), trace.bg_at(now)
        if math.isnan(base) or np.isnan(v).all():
            return None
        drops.append(round(base - float(np.nanmin(v)), 1))
    run, cycle = drops
    return None if round(abs(run - cycle), 1) < CLOSE_MGDL else ("running" if run > cycle else "cycling")


@whatif(
    "pd_11",
    _heavy_tomorrow,
    abilities=("ER", "QC", "PR"),
    answer_type="integer",
    metric="smape",
    needs=("meals",),
    sampler="next_day",
    question="If I overeat at lunch tomorrow (day {day}: about 200 g of carbohydrate at my usual "
    "lunch time), at which 5-minute slot of the day (0 = 00:00, 287 = 23:55) will my glucose peak "
    "after it?",
)
def heavy_lunch_peak(record: PatientRecord, params: Params, traces: list[Trace]) -> int | None:
    """Slot of the day (0–287) of the first maximum in the 3 h after the 200 g lunch."""
    at = traces[0].at
    peak = _peak(traces[0], at)
    return None if peak is None else peak[0] - (int(params["day"]) - 1) * POINTS_PER_DAY


@whatif(
    "pd_13",
    _heavy_now,
    abilities=("ER", "QC", "PR"),
    answer_type="yes_no",
    metric="accuracy",
    needs=("meals",),
    sampler="meal_now:lunch",
    question="It is {time} on day {day} and I am about to eat a big lunch of 200 g of carbohydrate. "
    "Will I need a correction dose in the next 2 hours (will my glucose go above 250 mg/dL)?",
)
def needs_correction(record: PatientRecord, params: Params, traces: list[Trace]) -> str | None:
    """``yes`` when a reading in (lunch, lunch + 2 h] exceeds 250 mg/dL after the 200 g lunch."""
    at = traces[0].at
    v = traces[0].between(at + 1, at + 120)
    return None if np.isnan(v).all() else _yes(bool(np.nanmax(v) > CORRECTION_MGDL))


@whatif(
    "pd_14",
    _at_now(MEAL, 240),
    abilities=("ER", "QC", "PR"),
    answer_type="yes_no",
    metric="accuracy",
    sampler="now:0900+1500+2100",
    question="It is {time} on day {day}. If I eat a 60 g meal now, will my glucose swing by more than "
    "60 mg/dL (highest minus lowest) within the next 4 hours?",
)
def meal_swing(record: PatientRecord, params: Params, traces: list[Trace]) -> str | None:
    """``yes`` when max − min of the readings in [now, now + 4 h] exceeds 60 mg/dL with the meal."""
    v = traces[0].between(_now(params), _now(params) + 240)
    if np.isnan(v).all():
        return None
    return _yes(bool(np.nanmax(v) - np.nanmin(v) > SWING_MGDL))


@whatif(
    "pd_15",
    _at_now(SNACK, 480),
    abilities=("QC", "ER", "PR"),
    answer_type="yes_no",
    metric="accuracy",
    sampler="now:2200",
    question="It is {time} on day {day}. Do I need a 25 g snack now (eaten without bolusing for it) "
    "to keep my glucose from dropping below 70 mg/dL between midnight and 6 am?",
)
def snack_needed(record: PatientRecord, params: Params, traces: list[Trace]) -> str | None:
    """Whether the unbolused 25 g snack is needed (and helps) to stay at or above 70 mg/dL during 00–06.

    ``no`` when the recorded night has no reading below 70 mg/dL; ``yes`` when it has and the
    night after the snack has a higher lowest reading; None when the snack does not raise the
    night's lowest reading (the loop's extra insulin for the higher glucose outweighs it).
    """
    night = int(params["day"]) * DAY_MIN
    plain = record.bg[night // STEP_MIN : night // STEP_MIN + 72]
    snack = traces[0].between(night, night + 355)
    if np.isnan(plain).mean() > 0.3 or np.isnan(snack).mean() > 0.3:
        return None
    low = float(np.nanmin(plain))
    if low >= HYPO_MGDL:
        return "no"
    return "yes" if float(np.nanmin(snack)) > low else None


@whatif(
    "pd_17",
    _normal_day,
    abilities=("CA", "QC", "ER", "PR"),
    answer_type="category",
    metric="accuracy",
    categories=("lunch", "dinner"),
    sampler="next_day",
    question="Suppose tomorrow (day {day}) is a normal day: breakfast 45 g at 07:00, snacks of 10 g at "
    "10:00 and 16:00, lunch 70 g at 12:00, dinner 80 g at 18:00, a 30-minute run at 06:00 and 20 "
    "minutes of cycling at 17:00. Will my glucose rise faster after lunch or after dinner?",
)
def faster_rise(record: PatientRecord, params: Params, traces: list[Trace]) -> str | None:
    """The meal with the larger rise rate, (3-h peak − reading at the meal) / minutes to the peak."""
    day0 = (int(params["day"]) - 1) * DAY_MIN
    lunch, dinner = (_rise_rate(traces[0], day0 + h * 60) for h in (12, 18))
    if lunch is None or dinner is None or lunch == dinner:
        return None
    return "lunch" if lunch > dinner else "dinner"


@whatif(
    "pd_19",
    _at_now(INSULIN, 120),
    abilities=("QC", "ER", "PR"),
    answer_type="number",
    metric="smape",
    unit="mg/dL",
    sampler="now:0800+1100+1400+1700+2000",
    question="It is {time} on day {day}. If I take 1 unit of rapid-acting insulin now, by how much "
    "will my glucose have dropped 2 hours from now (negative for a rise)?",
)
def insulin_drop(record: PatientRecord, params: Params, traces: list[Trace]) -> float | None:
    """Displayed CGM now minus at now + 2 h, with the extra unit (1 dp)."""
    change = _change(traces[0], _now(params), _now(params) + 120)
    return None if change is None else 0.0 - change
