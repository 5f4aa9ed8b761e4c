"""Counterfactual re-simulation: the same patient, seed and noise from a saved state, one event added.

A batch of counterfactuals is one run of replicated patients: each member is a copy of a patient
of the run taken from the run's latest checkpoint before its injection minute (controller, stages,
patient, exercise and rescue-carb state, with the same sensor noise and fault plan), and differs from the
original only by its event, written into its own row of the inputs (meals eaten, exercise
intensity, extra insulin). Until the event the member reproduces the original run bit for bit.

A fault-free run of the default loop without rescue carbs, with the basal-bolus or PID controller
on the numba engine, takes the compiled loop instead (:func:`~wearbench.sim._fast.resume_fast`,
bit for bit the same as ``run_loop`` with the numba step): every member then runs alone from its
own checkpoint to its own stop, and starts from the latest checkpoint at or before the first
minute its inputs differ from the run's (a late-night snack at 23:00 requested at noon re-runs
from 23:00); the minutes before are the run's own streams, which that re-run would reproduce bit
for bit. A member with unannounced carbs (``MealNow(..., announced=False)``) always takes
``run_loop``, whose meal stage is then told only of the announced carbs (the compiled loop
announces every carb eaten).
See ``docs/cgm-counterfactual.md``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from wearbench._errors import WearbenchError
from wearbench.sim._events import Event, EventInputs
from wearbench.sim._fast import FAST_ROWS, STATE_ROWS, fast_resume_supports, pack_state, resume_fast
from wearbench.sim._loop import RECORDED, Dose, MealStage, PumpStage, run_loop
from wearbench.sim._run import SimulationRun
from wearbench.sim._state import select_params, select_patients, select_state
from wearbench.sim.controller import ControllerAction
from wearbench.sim.patient._params import FloatArray

DEFAULT_WINDOW = 1440  #: minutes of injection times one batch spans at most (see simulate_counterfactuals)


@dataclass(frozen=True)
class Counterfactual:
    """One counterfactual request.

    Attributes:
        patient: The patient (index into the run's patients, or a name: its first occurrence).
        at: Injection minute ("now"), in ``0 .. minutes - 1`` of the run.
        event: The event to inject.
        horizon: Minutes to simulate from ``at`` (default: to the end of the run).
    """

    patient: int | str
    at: int
    event: Event
    horizon: int | None = None


@dataclass(frozen=True)
class CounterfactualResult:
    """The streams of one counterfactual, from the checkpoint it started from.

    Attributes:
        request: The request, with ``patient`` as an index.
        patient: The patient's name.
        start: First minute of ``streams`` (the checkpoint; minutes ``start .. at - 1`` are the
            original run, recomputed).
        stop: Minute after the last one (``at + horizon``).
        streams: Each stream of :data:`~wearbench.sim._loop.RECORDED` for ``start .. stop - 1``,
            shape ``(stop - start,)``, as ``run.streams`` (mg/dL, g, U/min), plus ``exercise``
            (intensity 0-1) and ``carbs_eaten`` (g) with the event in them.
    """

    request: Counterfactual
    patient: str
    start: int
    stop: int
    streams: dict[str, FloatArray]

    def frame(self) -> pd.DataFrame:
        """One row per minute ``start .. stop - 1``: ``minute`` and every stream."""
        return pd.DataFrame({"minute": np.arange(self.start, self.stop), **self.streams})

    def after(self, stream: str) -> FloatArray:
        """``stream`` from the injection minute ``at`` on."""
        return self.streams[stream][self.request.at - self.start :]


def simulate_counterfactual(
    run: SimulationRun, at: int, event: Event, *, patient: int | str = 0, horizon: int | None = None
) -> CounterfactualResult:
    """Re-run ``patient`` of ``run`` from minute ``at`` with ``event`` injected.

    Args:
        run: A run from :func:`~wearbench.sim.run_simulation`.
        at: Injection minute ("now").
        event: One of the events of :mod:`wearbench.sim._events` (e.g. ``RunNow(30, 8.0)``).
        patient: Patient index or name.
        horizon: Minutes to simulate from ``at`` (default: the rest of the run).

    Returns:
        The counterfactual's streams.

    Raises:
        WearbenchError: Unknown patient, ``at`` or the horizon outside the run, or an event that
            does not fit (e.g. a run past the end).
    """
    return simulate_counterfactuals(run, [Counterfactual(patient, at, event, horizon)])[0]


def simulate_counterfactuals(
    run: SimulationRun,
    requests: Sequence[Counterfactual],
    *,
    window: int = DEFAULT_WINDOW,
    compiled: bool = True,
) -> list[CounterfactualResult]:
    """Many counterfactuals, vectorised: one run of replicated patients per batch.

    Requests are sorted by injection minute and cut into batches whose injection minutes lie
    within ``window`` minutes of the batch's starting checkpoint; each batch runs from that
    checkpoint to its last ``at + horizon``. A run the compiled loop serves (see the module
    docstring) runs every request in one compiled call instead, each from its own checkpoint.
    The results equal those of :func:`simulate_counterfactual` one at a time, bit for bit
    (``start``, the first minute of a result, is the batch's checkpoint, or with the compiled
    loop the request's own).

    Args:
        run: A run from :func:`~wearbench.sim.run_simulation`.
        requests: The counterfactuals.
        window: Span of injection minutes per batch (min), for ``run_loop``.
        compiled: ``False`` runs the batches through ``run_loop`` even where the compiled loop
            could serve them (the same numbers; for comparisons).

    Returns:
        One result per request, in the order of ``requests``.

    Raises:
        WearbenchError: As :func:`simulate_counterfactual`, naming the request.
    """
    checked = [_check(run, i, r) for i, r in enumerate(requests)]
    results: dict[int, CounterfactualResult] = {}
    if checked and compiled and _compiled(run):
        results = _run_compiled(run, checked)
    order = sorted((i for i in range(len(checked)) if i not in results), key=lambda i: checked[i].at)
    batch: list[int] = []
    for i in order:
        if batch and checked[i].at - run.checkpoint_before(checked[batch[0]].at).minute > window:
            results.update(_run_batch(run, batch, checked))
            batch = []
        batch.append(i)
    if batch:
        results.update(_run_batch(run, batch, checked))
    return [results[i] for i in range(len(checked))]


def _check(run: SimulationRun, i: int, r: Counterfactual) -> Counterfactual:
    where = f"counterfactual {i} ({type(r.event).__name__} at minute {r.at}, patient {r.patient!r})"
    try:
        p = run.patient_index(r.patient)
    except WearbenchError as e:
        raise WearbenchError(f"{where}: {e}") from e
    if not 0 <= r.at < run.minutes:
        raise WearbenchError(f"{where}: minute {r.at} is outside the run (0..{run.minutes - 1})")
    horizon = run.minutes - r.at if r.horizon is None else r.horizon
    if not 1 <= horizon <= run.minutes - r.at:
        raise WearbenchError(
            f"{where}: horizon {horizon} min must be 1..{run.minutes - r.at} (the run's end)"
        )
    return Counterfactual(p, r.at, r.event, horizon)


def _run_batch(
    run: SimulationRun, batch: list[int], reqs: list[Counterfactual]
) -> dict[int, CounterfactualResult]:
    members = [reqs[i] for i in batch]
    idx = np.array([int(r.patient) for r in members], dtype=np.intp)
    cp = run.checkpoint_before(min(r.at for r in members))
    stop = max(r.at + (r.horizon or 0) for r in members)
    inputs = _inputs(run, idx, members, batch)
    n = run.params.n_patients
    controller, (sensor, meals, pump), rescue = select_patients((cp.controller, cp.stages, cp.rescue), idx, n)
    if inputs.insulin.any():
        pump = ExtraInsulin(pump, inputs.insulin)
    eaten = inputs.eaten
    if inputs.hidden.any():
        meals, eaten = AnnouncedOnly(meals, inputs.eaten), inputs.all_eaten
    exercise = inputs.exercise if run.exercise is not None or inputs.exercise.any() else None
    rec = run_loop(
        select_params(run.params, idx), select_state(cp.patient, idx), eaten, controller,
        (sensor, meals, pump), run.substeps, exercise, start=cp.minute, stop=stop, z=cp.z[idx],
        engine=run.engine, rescue=rescue,
    )  # fmt: skip
    out = {}
    for k, r in enumerate(members):
        end = r.at + (r.horizon or 0)
        streams = {s: v[: end - cp.minute, k].copy() for s, v in rec.items()}
        streams["carbs_eaten"] = eaten[k, cp.minute : end].copy()
        streams["exercise"] = inputs.exercise[k, cp.minute : end].copy()
        out[batch[k]] = CounterfactualResult(r, run.patients[int(r.patient)], cp.minute, end, streams)
    return out


def _inputs(
    run: SimulationRun, idx: np.ndarray, members: list[Counterfactual], numbers: list[int]
) -> EventInputs:
    """The members' input rows (patients ``idx``) with each member's event injected."""
    shape = (len(idx), run.minutes)
    exercise = np.zeros(shape) if run.exercise is None else run.exercise[idx]
    inputs = EventInputs(run.eaten[idx], exercise, np.zeros(shape), hidden=np.zeros(shape))
    for k, r in enumerate(members):
        where = f"counterfactual {numbers[k]} ({type(r.event).__name__} at minute {r.at})"
        try:
            r.event.inject(inputs.row(k), r.at, float(run.params.BW[idx[k]]))
        except WearbenchError as e:
            raise WearbenchError(f"{where}: {e}") from e
    return inputs


def _compiled(run: SimulationRun) -> bool:
    """Whether the run's re-runs can take the compiled loop (see the module docstring)."""
    if run.faults is not None or run.rescue is not None or run.loop != "default" or not run.checkpoints:
        return False
    return fast_resume_supports(run.checkpoints[min(run.checkpoints)], run.engine)


def _run_compiled(run: SimulationRun, checked: list[Counterfactual]) -> dict[int, CounterfactualResult]:
    """Requests through :func:`resume_fast`, each from its own checkpoint (one call), by number.

    Requests with unannounced carbs are left out (the compiled loop announces every carb).
    """
    idx = np.array([int(r.patient) for r in checked], dtype=np.intp)
    inputs = _inputs(run, idx, checked, list(range(len(checked))))
    numbers = np.flatnonzero(~inputs.hidden.any(axis=1))
    if not numbers.size:
        return {}
    if len(numbers) < len(checked):
        idx, inputs = idx[numbers], _select(inputs, numbers)
    reqs = [checked[i] for i in numbers]
    marks = np.array(sorted(run.checkpoints), dtype=np.int64)
    at = np.array([r.at for r in reqs], dtype=np.int64)
    stop = at + np.array([r.horizon or 0 for r in reqs], dtype=np.int64)
    where = np.searchsorted(marks, at, side="right") - 1
    if where.min() < 0:
        run.checkpoint_before(int(at[where.argmin()]))  # raises: no checkpoint that early
    begin = marks[where]
    first = _first_change(run, inputs, idx, begin, stop)
    start = np.where(first < stop, marks[np.searchsorted(marks, first, side="right") - 1], stop)
    state = np.empty((STATE_ROWS, len(reqs)))
    for minute in np.unique(start[start < stop]):
        on = start == minute
        state[:, on] = pack_state(run.checkpoints[int(minute)])[:, idx[on]]
    ex_on = np.full(len(reqs), run.exercise is not None) | inputs.exercise.any(axis=1)
    out, _ = resume_fast(
        select_params(run.params, idx), inputs.eaten, run.checkpoints[int(marks[0])].controller, run.sensor,
        None if run.noise is None else run.noise[idx], run.pump, run.substeps, state, (start, stop),
        exercise=inputs.exercise if ex_on.any() else None, exercise_on=ex_on,
        extra_insulin=inputs.insulin if inputs.insulin.any() else None,
    )  # fmt: skip
    return {
        int(numbers[k]): _compiled_result(
            run, inputs, out, k, r, (int(begin[k]), int(start[k]), int(stop[k]))
        )
        for k, r in enumerate(reqs)
    }


def _select(inputs: EventInputs, rows: np.ndarray) -> EventInputs:
    """The members ``rows`` of ``inputs`` (copies)."""
    return EventInputs(inputs.eaten[rows], inputs.exercise[rows], inputs.insulin[rows], inputs.hidden[rows])


def _first_change(
    run: SimulationRun, inputs: EventInputs, idx: np.ndarray, begin: np.ndarray, stop: np.ndarray
) -> np.ndarray:
    """Per member, the first minute in ``begin .. stop - 1`` with inputs unlike the run's (else stop)."""
    lo, hi = int(begin.min()), int(stop.max())
    changed = (inputs.eaten[:, lo:hi] != run.eaten[idx, lo:hi]) | (inputs.insulin[:, lo:hi] != 0)
    if run.exercise is not None:
        changed |= inputs.exercise[:, lo:hi] != run.exercise[idx, lo:hi]
    else:
        changed |= inputs.exercise[:, lo:hi] != 0
    minutes = np.arange(lo, hi)
    changed &= (minutes >= begin[:, None]) & (minutes < stop[:, None])
    return np.where(changed.any(axis=1), lo + changed.argmax(axis=1), stop)


def _compiled_result(
    run: SimulationRun,
    inputs: EventInputs,
    out: FloatArray,
    k: int,
    r: Counterfactual,
    span: tuple[int, int, int],
) -> CounterfactualResult:
    """Member ``k``: the run's streams from ``begin`` to ``start``, then the kernel's to ``stop``."""
    begin, start, stop = span
    p = int(r.patient)
    computed = dict(zip(FAST_ROWS, out[:, k, : stop - start], strict=True))
    for twin, row in (
        ("cgm_clean", "cgm"),
        ("insulin_requested", "insulin"),
        ("insulin_delivered", "insulin"),
    ):
        computed[twin] = computed[row]
    computed["carbs"] = inputs.eaten[k, start:stop]
    computed["long_acting"] = computed["rescue"] = np.zeros(stop - start)
    streams = {s: np.concatenate([run.streams[s][begin:start, p], computed[s]]) for s in RECORDED}
    streams["carbs_eaten"] = inputs.eaten[k, begin:stop].copy()
    streams["exercise"] = inputs.exercise[k, begin:stop].copy()
    return CounterfactualResult(r, run.patients[p], begin, stop, streams)


class AnnouncedOnly:
    """The meal stage told only of the announced carbs; the rest of what is eaten stays unannounced.

    Args:
        inner: The meal stage.
        announced: Carbs (g) per member and minute the controller may be told of, shape
            ``(M, minutes)`` (the loop's ``eaten`` adds the unannounced carbs to them).
    """

    def __init__(self, inner: MealStage, announced: FloatArray) -> None:
        self.inner, self.announced = inner, announced

    def announce(self, minute: int, eaten: FloatArray) -> FloatArray:
        return self.inner.announce(minute, self.announced[:, minute])


class ExtraInsulin:
    """The pump stage plus insulin the patient takes by hand (U in the minute), as a bolus.

    The dose is recorded in ``bolus``, ``insulin``, ``insulin_requested`` and
    ``insulin_delivered``; the controller is not told of it.

    Args:
        inner: The pump stage.
        units: Extra insulin (U) per member and minute, shape ``(M, minutes)``.
    """

    def __init__(self, inner: PumpStage, units: FloatArray) -> None:
        self.inner, self.units = inner, units

    def deliver(self, minute: int, action: ControllerAction) -> Dose:
        d = self.inner.deliver(minute, action)
        extra = self.units[:, minute]
        if not extra.any():
            return d
        on = extra != 0

        def add(v: FloatArray) -> FloatArray:
            return np.where(on, v + extra, v)

        return Dose(d.basal, add(d.bolus), add(d.shown), add(d.requested), add(d.delivered))
