"""Re-create the simulation behind a simulated folder, for counterfactual ("what if") answers.

A folder written by ``wearbench cgm simulate --profile NAME`` records in ``manifest.json`` every
choice of its run: profile, patients, days, controller, sensor, meals, faults, exercise, seed and
engine. :func:`rerun_folder` runs the same simulation again with hourly checkpoints
(:func:`~wearbench.sim.simulate_profile` with ``checkpoint_every``), checks that it reproduces
the folder's readings bit for bit, and gives one :class:`Rerun` per patient. A :class:`Rerun`
answers ``counterfactual(at, event, horizon)``: the displayed CGM and true BG on the 5-minute
grid had ``event`` happened at minute ``at`` (:func:`~wearbench.sim.simulate_counterfactuals`).
Results are cached; :meth:`Rerun.prefetch` (or :func:`prefetch`, over many patients) runs many
requests in a few batches of replicated patients, which is much faster than one at a time.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from wearbench._errors import WearbenchError
from wearbench.sim import (
    Counterfactual,
    Event,
    ProfileRun,
    SimulationRun,
    faults_from_csv,
    get_profile,
    meals_from_csv,
    simulate_counterfactuals,
    simulate_profile,
    write_simulation,
)

STEP = 5  #: minutes between grid points
CHECKPOINT_EVERY = 60  #: minutes between the re-run's checkpoints


@dataclass(frozen=True)
class Trace:
    """A counterfactual on the 5-minute grid: points ``first`` … ``first + len(cgm) − 1``.

    Attributes:
        at: Injection minute ("now"), minutes from day 1 00:00.
        first: Point index of the first value (the first grid point at or after ``at``).
        cgm: Displayed CGM, mg/dL (NaN while a fault hides it), one value per point.
        true_bg: Plasma glucose, mg/dL, one value per point.
        until: Last minute simulated (``at + horizon``); the last point is at or before it.
    """

    at: int
    first: int
    cgm: np.ndarray
    true_bg: np.ndarray
    until: int

    @property
    def last_minute(self) -> int:
        """Minute of the last point held."""
        return (self.first + len(self.cgm) - 1) * STEP

    def bg_at(self, minute: int) -> float:
        """Displayed CGM at grid minute ``minute`` (NaN when missing).

        Raises:
            WearbenchError: If ``minute`` is off the grid or outside the trace.
        """
        i = minute // STEP - self.first
        if minute % STEP or not 0 <= i < len(self.cgm):
            raise WearbenchError(
                f"minute {minute} is not a grid minute of this counterfactual "
                f"({self.first * STEP}..{self.last_minute})"
            )
        return float(self.cgm[i])

    def between(self, lo: float, hi: float, *, true: bool = False) -> np.ndarray:
        """Values at the grid points with time ``t`` in ``[lo, hi]`` (minutes; clipped to the trace)."""
        values = self.true_bg if true else self.cgm
        a = max(math.ceil(lo / STEP) - self.first, 0)
        b = max(math.floor(hi / STEP) - self.first + 1, 0)
        return np.asarray(values[a:b])


@dataclass
class _Shared:
    """The re-run all patients of a folder share, and its cache of counterfactuals."""

    run: SimulationRun
    cache: dict[tuple[int, int, Event], Trace] = field(default_factory=dict)

    def fetch(self, wanted: Iterable[tuple[int, int, Event, int]]) -> None:
        """Simulate every ``(patient, at, event, horizon)`` not yet cached with that horizon."""
        longest: dict[tuple[int, int, Event], int] = {}
        for p, at, event, horizon in wanted:
            key = (p, at, event)
            have = self.cache.get(key)
            if have is None or have.until < at + horizon:
                longest[key] = max(longest.get(key, 0), horizon)
        groups: dict[tuple[int, int], list[Counterfactual]] = {}
        for (p, at, event), horizon in longest.items():
            span = min(horizon + 1, self.run.minutes - at)
            checkpoint = at // CHECKPOINT_EVERY * CHECKPOINT_EVERY
            # one batch per checkpoint and horizon class: members run about as long as they need
            groups.setdefault((checkpoint, span.bit_length()), []).append(Counterfactual(p, at, event, span))
        for requests in groups.values():
            for r, res in zip(requests, simulate_counterfactuals(self.run, requests), strict=True):
                grid = np.arange(res.start, res.stop)
                on = (grid % STEP == 0) & (grid >= r.at)
                first = int(grid[on][0]) // STEP
                cgm, true_bg = res.streams["cgm"][on].copy(), res.streams["true_bg"][on].copy()
                trace = Trace(r.at, first, cgm, true_bg, res.stop - 1)
                self.cache[(int(r.patient), r.at, r.event)] = trace


@dataclass(frozen=True, eq=False)
class Rerun:
    """One patient of a re-simulated folder: counterfactuals from any minute of the run.

    Attributes:
        subject: The patient's name (the folder's ``subject_id``).
        patient: Index of the patient in the run.
    """

    subject: str
    patient: int
    _shared: _Shared

    @property
    def minutes(self) -> int:
        """Minutes in the run."""
        return self._shared.run.minutes

    @property
    def engine(self) -> str:
        """The simulator engine of the re-run (``numpy`` or ``numba``)."""
        return self._shared.run.engine

    def fits(self, at: int, horizon: int) -> bool:
        """Whether a counterfactual from ``at`` for ``horizon`` minutes lies inside the run."""
        return at >= 0 and at + horizon < self.minutes

    def counterfactual(self, at: int, event: Event, horizon: int) -> Trace:
        """The displayed CGM and true BG had ``event`` happened at minute ``at``.

        Args:
            at: Injection minute ("now"), minutes from day 1 00:00.
            event: A :mod:`wearbench.sim` event (``RunNow(30, 8.0)``, ``MealNow(50)`` …); events
                are compared by value, so equal requests share one simulation.
            horizon: Minutes after ``at`` to cover (the grid points up to ``at + horizon``).

        Returns:
            The trace from the first grid point at or after ``at`` to ``at + horizon``.

        Raises:
            WearbenchError: If the request does not fit the run (see :meth:`fits`) or the event
                does not fit (e.g. a meal over 300 g).
        """
        if not self.fits(at, horizon):
            raise WearbenchError(
                f"patient {self.subject}: a counterfactual from minute {at} for {horizon} min does not "
                f"fit the run ({self.minutes} min)"
            )
        self.prefetch([(at, event, horizon)])
        return self._shared.cache[(self.patient, at, event)]

    def prefetch(self, requests: Iterable[tuple[int, Event, int]]) -> None:
        """Simulate ``(at, event, horizon)`` requests of this patient in batches (cached)."""
        self._shared.fetch((self.patient, at, event, horizon) for at, event, horizon in requests)


def prefetch(requests: Iterable[tuple[Rerun, int, Event, int]]) -> None:
    """Simulate ``(rerun, at, event, horizon)`` requests of many patients in shared batches.

    Requests of patients from different re-runs are grouped by re-run. Requests that do not fit
    the run are skipped (asking for them later raises).
    """
    by_run: dict[int, tuple[_Shared, list[tuple[int, int, Event, int]]]] = {}
    for r, at, event, horizon in requests:
        if r.fits(at, horizon):
            by_run.setdefault(id(r._shared), (r._shared, []))[1].append((r.patient, at, event, horizon))
    for shared, wanted in by_run.values():
        shared.fetch(wanted)


def rerun_folder(folder: str | Path, readings: Mapping[str, np.ndarray]) -> dict[str, Rerun]:
    """Re-simulate a simulated folder from its manifest and check it against its readings.

    Args:
        folder: A folder written by ``wearbench cgm simulate --profile NAME``.
        readings: Displayed CGM per subject on the folder's 5-minute grid (mg/dL, NaN while
            missing), e.g. ``{r.subject: r.bg for r in read_records(folder)}``.

    Returns:
        One :class:`Rerun` per subject of ``readings``.

    Raises:
        WearbenchError: ``"<folder>: this folder cannot be re-simulated: <why>"``: no manifest,
            not a profile simulation, a meals or faults CSV that is gone, an engine that is not
            installed, or readings that differ from the re-simulation (the first patient and
            minute that differ are named).
    """
    root = Path(folder)
    params = _manifest(root)
    try:
        _, run = _simulate(root, params)
    except WearbenchError as e:
        raise WearbenchError(f"{root}: this folder cannot be re-simulated: {e}") from e
    return reruns_of(root, run, readings)


def _manifest(root: Path, cannot: str = "this folder cannot be re-simulated") -> dict[str, Any]:
    path = root / "manifest.json"
    why = ""
    params: dict[str, Any] = {}
    if not path.is_file():
        why = "it has no manifest.json"
    else:
        try:
            manifest = json.loads(path.read_text())
            params = dict(manifest.get("params") or {})
        except (json.JSONDecodeError, AttributeError, TypeError) as e:
            why = f"manifest.json cannot be read ({e})"
        else:
            if manifest.get("source") != "wearbench.sim":
                why = "manifest.json does not come from the simulator (source != wearbench.sim)"
            elif not params.get("profile") or params["profile"] == "default":
                why = "it was not simulated with a profile (cgm simulate --profile NAME)"
            else:
                lacking = [k for k in ("patients", "days", "controller", "seed") if k not in params]
                why = f"manifest.json params lack {', '.join(lacking)}" if lacking else ""
    if why:
        raise WearbenchError(f"{root}: {cannot}: {why}")
    return params


def _csv(root: Path, what: str, value: str) -> Path:
    path = Path(value)
    if not path.is_file():
        raise WearbenchError(f"its {what} came from {value}, which is not a file here")
    return path


def _simulate(
    root: Path, params: Mapping[str, Any], *, faults: bool = True
) -> tuple[ProfileRun, SimulationRun]:
    """The run the manifest describes, with hourly checkpoints (the CLI's ``_simulate_profile``).

    ``faults=False``: the same run with its faults switched off (the fault-free twin). The profile
    draws the scenario (meals, exercise, perturbations) with ``default_rng([seed, 8])``, the
    random fault plan with ``default_rng([seed, 6])`` and the sensor noise from ``seed`` before
    the loop starts, so the twin has the folder's scenario and noise whatever the fault plan.
    """
    names: Sequence[str] = list(params["patients"])
    days = int(params["days"])
    meals = str(params.get("meals", "random"))
    plan = str(params.get("faults", "none")) if faults else "none"
    sensor = params.get("sensor", "Dexcom")
    run = simulate_profile(
        get_profile(str(params["profile"])),
        days,
        patients=names,
        controller=str(params["controller"]),
        sensor=None if sensor in (None, "none") else str(sensor),
        meals=meals_from_csv(_csv(root, "meals", meals), len(names), days) if meals != "random" else None,
        faults=plan if plan in ("none", "random") else faults_from_csv(  # type: ignore[arg-type]
            _csv(root, "faults", plan), list(names), days * 1440),
        exercise=params.get("exercise", "random") != "none",
        seed=int(params["seed"]),
        engine=str(params.get("engine", "auto")),
        checkpoint_every=CHECKPOINT_EVERY,
    )  # fmt: skip
    if run.run is None:  # pragma: no cover - simulate_profile keeps the run when asked for checkpoints
        raise WearbenchError("the simulator kept no run")
    return run, run.run


def simulate_twin(folder: str | Path, out: Path) -> SimulationRun:
    """Simulate the fault-free twin of a simulated folder and write it to ``out``.

    The twin is the folder's run (its manifest's profile, patients, days, controller, sensor,
    meals, exercise, seed and engine) with ``faults`` ``none``, written as ``wearbench cgm
    simulate … --faults none`` writes it (its manifest's params say ``"faults": "none"`` and
    ``twin_of`` the folder).

    Returns:
        The twin's run, with hourly checkpoints (for :func:`reruns_of`).

    Raises:
        WearbenchError: ``"<folder>: its fault-free twin cannot be simulated: <why>"`` (as
            :func:`rerun_folder`: no manifest, not a profile simulation, a CSV that is gone …).
    """
    root = Path(folder)
    cannot = "its fault-free twin cannot be simulated"
    params = _manifest(root, cannot)
    try:
        twin, run = _simulate(root, params, faults=False)
    except WearbenchError as e:
        raise WearbenchError(f"{root}: {cannot}: {e}") from e
    write_simulation(
        twin.frame, out, sample_time=twin.sample_time, faults=twin.faults, exercise=twin.sessions,
        meals=twin.meals, layout=twin.profile.layout,
        params={**params, "faults": "none", "twin_of": str(root)},
    )  # fmt: skip
    return run


def reruns_of(where: Path, run: SimulationRun, readings: Mapping[str, np.ndarray]) -> dict[str, Rerun]:
    """One :class:`Rerun` per subject of ``readings``, sharing ``run``, after checking its readings.

    Args:
        where: The folder named in an error.
        run: A run with checkpoints.
        readings: Displayed CGM per subject on the 5-minute grid (mg/dL, NaN while missing).

    Raises:
        WearbenchError: ``"<where>: this folder cannot be re-simulated: …"`` if a subject is not
            in the run or its readings differ from the run's (the first differing minute named).
    """
    shared = _Shared(run)
    out = {}
    for subject, bg in readings.items():
        if subject not in run.patients:
            raise WearbenchError(
                f"{where}: this folder cannot be re-simulated: subject {subject} is not among the "
                "manifest's patients"
            )
        p = run.patients.index(subject)
        _check(where, subject, np.asarray(bg, dtype=np.float64), run.streams["cgm"][::STEP, p])
        out[subject] = Rerun(subject, p, shared)
    return out


def _check(root: Path, subject: str, folder: np.ndarray, rerun: np.ndarray) -> None:
    """Raise unless the folder's readings equal the re-run's, bit for bit (NaN where NaN)."""
    same = len(folder) == len(rerun) and np.array_equal(folder, rerun, equal_nan=True)
    if same:
        return
    why = f"{len(folder)} readings in the folder, {len(rerun)} in the re-simulation"
    if len(folder) == len(rerun):
        i = int(np.flatnonzero(~((folder == rerun) | (np.isnan(folder) & np.isnan(rerun))))[0])
        why = f"minute {i * STEP}: {folder[i]!r} mg/dL in the folder, {rerun[i]!r} in the re-simulation"
    raise WearbenchError(
        f"{root}: this folder cannot be re-simulated: subject {subject}'s readings differ from a "
        f"re-simulation with the manifest's settings ({why}); the simulator or the profile may have "
        "changed since it was written"
    )
