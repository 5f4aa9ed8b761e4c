"""Simulation profiles: one switch that sets the grid, cohort, scenario, faults and output layout.

``default`` is the simulator as it always was (``wearbench cgm simulate`` without ``--profile``).
``healthloopqa`` reproduces the setup HealthLoopQA's questions read (``docs/cgm-healthloopqa.md``):
a 5-minute grid (288 readings a day, mg/dL), insulin per sample in mU/min plus bolus events, the
five typed meals with perturbations, running and cycling described by their magnitude, the seed's
fault sizes and durations, hazard labels, a fixed 20-patient cohort, and people who treat their
lows with 15 g of fast carbs (:class:`~wearbench.sim.scenario.RescueCarbs`).
"""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

import numpy as np
import pandas as pd

from wearbench._errors import UnknownNameError, WearbenchError
from wearbench.executors import Executor
from wearbench.sim._run import SimulationRun
from wearbench.sim._simulate import run_simulation
from wearbench.sim.controller import Controller
from wearbench.sim.faults import FaultPlan, FaultProfile, FaultSize, profile_faults
from wearbench.sim.patient import load_params
from wearbench.sim.patient._params import FloatArray
from wearbench.sim.scenario import (
    MEAL_COLUMNS,
    DailyScenario,
    ExerciseSlot,
    MealSlot,
    Perturbation,
    RescueCarbs,
    meal_type_at,
)
from wearbench.sim.sensor import Sensor


@dataclass(frozen=True)
class Profile:
    """A named set of simulation choices (see the module docstring).

    Attributes:
        name: Profile name (``--profile``).
        summary: One line for ``--help`` and the manifest.
        layout: Output layout of :func:`~wearbench.sim.write_simulation`.
        sample_time: Output grid and sensor sample period (min), or ``None`` for the sensor's own.
        controller: Controller used when none is named (resolved by name at run time).
        cohort: Patients used when none are named (empty: the CLI default).
        cohort_seed: Seed :func:`draw_cohort` drew ``cohort`` with (``None``: not drawn).
        scenario: Daily meals and exercise, or ``None`` for simglucose-style random meals.
        faults: Sizes of ``--faults random``, or ``None`` for :func:`random_fault_plan`.
        rescue: Hypoglycaemia self-treatment of the simulated people, or ``None`` for none.
    """

    name: str
    summary: str
    layout: Literal["default", "healthloopqa"] = "default"
    sample_time: int | None = None
    controller: str = "basal-bolus"
    cohort: tuple[str, ...] = ()
    cohort_seed: int | None = None
    scenario: DailyScenario | None = None
    faults: FaultProfile | None = None
    rescue: RescueCarbs | None = None


def draw_cohort(names: Sequence[str], size: int, seed: int) -> tuple[str, ...]:
    """``size`` patients drawn without replacement from ``names`` with ``default_rng(seed)``, sorted.

    Raises:
        WearbenchError: If ``size`` is not in ``1..len(names)``.
    """
    if not 1 <= size <= len(names):
        raise WearbenchError(f"a cohort of {size} from {len(names)} patients")
    picked = np.random.default_rng(seed).choice(len(names), size=size, replace=False)
    return tuple(sorted(str(names[i]) for i in picked))


_HOURS = 60  # minutes per hour, for the fault durations below

_HEALTHLOOPQA_FAULTS = FaultProfile(
    sizes=(
        # Day and clock windows give the windowed AD templates an interval to find (ad_12, ad_14,
        # ad_15, ad_16, ad_24, ad_33, ad_40; docs/cgm-healthloopqa.md).
        FaultSize("positive_spike", 8, 5, 5, magnitude=60.0),
        FaultSize("positive_spike", 1, 5, 5, magnitude=60.0, hours=(6.0, 12.0), days=(30, 30)),
        FaultSize("positive_spike", 1, 5, 5, magnitude=60.0, hours=(15.0, 18.0), days=(27, 27)),
        FaultSize("negative_spike", 6, 5, 5, magnitude=60.0),
        FaultSize("negative_spike", 2, 5, 5, magnitude=60.0, hours=(12.0, 14.0)),
        FaultSize("negative_spike", 1, 5, 5, magnitude=60.0, days=(14, 14)),
        FaultSize("negative_spike", 1, 5, 5, magnitude=60.0, days=(1, 7)),
        # Counts drawn per patient (2-8 short and 1-3 hour-long losses in 30 days), so that the
        # share of missing readings (ad_1) is not the same for every patient.
        FaultSize("missing_signal", 2, 15, 15, max_per_30_days=8),
        FaultSize("missing_signal", 1, 60, 60, max_per_30_days=3),
        FaultSize("missing_signal", 1, 60, 60, days=(28, 29)),
        FaultSize("repeated_reading", 1, 3 * _HOURS, 5 * _HOURS),
        FaultSize("repeated_reading", 1, 3 * _HOURS, 5 * _HOURS, hours=(0.0, 3.0)),
        FaultSize("repeated_episode", 2, 2 * _HOURS, 4 * _HOURS),
        FaultSize("negative_bias", 1, 6 * _HOURS, 12 * _HOURS, magnitude=32.0),
        FaultSize("positive_bias", 1, 4 * _HOURS, 12 * _HOURS, magnitude=32.0),
        FaultSize("min_reading", 2, 30, 90, magnitude=70.0),
        FaultSize("max_reading", 2, 30, 90, magnitude=250.0, hours=(12.0, 14.0)),
        FaultSize("zero_reading", 2, 15, 60),
        FaultSize("false_meal", 2, 5, 5, magnitude=50.0),
        FaultSize("false_bolus", 2, 5, 5, intensity=1.0),
        FaultSize("positive_basal", 2, 1 * _HOURS, 4 * _HOURS, intensity=0.5),
        FaultSize("negative_basal", 2, 1 * _HOURS, 4 * _HOURS, intensity=0.625),
        FaultSize("max_basal", 1, 30, 2 * _HOURS),
        FaultSize("min_basal", 1, 1 * _HOURS, 4 * _HOURS),
        FaultSize("unknown_stop", 1, 1 * _HOURS, 4 * _HOURS),
        FaultSize("unknown_under", 1, 1 * _HOURS, 4 * _HOURS, intensity=0.625),
    ),
    grid=5,
    min_gap=30,
)

_HEALTHLOOPQA_SCENARIO = DailyScenario(
    meals=(
        MealSlot("breakfast", (7.0, 8.5), (40.0, 60.0)),
        MealSlot("morning_snack", (9.0, 11.0), (10.0, 25.0)),
        MealSlot("lunch", (12.0, 13.5), (60.0, 90.0)),
        MealSlot("afternoon_snack", (15.0, 17.0), (10.0, 25.0)),
        MealSlot("dinner", (18.5, 20.0), (60.0, 100.0)),
    ),
    exercise=(
        ExerciseSlot("running", 3.0, (5.0, 7.0), (20, 45), (5.0, 9.0), (0.0, 3.0)),
        ExerciseSlot("cycling", 2.0, (16.0, 18.0), (20, 60), (50.0, 120.0)),
    ),
    perturbation=Perturbation(probability=0.2, intensity=(0.25, 0.5), shift_min=120.0),
)

_PROFILES = {
    p.name: p
    for p in (
        Profile("default", "simglucose-style meals, the sensor's own sample time, intensity-sized faults"),
        Profile(
            "healthloopqa",
            "HealthLoopQA: 5-min grid, 20-patient cohort, typed meals, exercise, seed fault sizes, hazards",
            layout="healthloopqa",
            sample_time=5,
            controller="hcl-mpc",
            cohort=(
                "adolescent#001",
                "adolescent#002",
                "adolescent#004",
                "adolescent#007",
                "adolescent#009",
                "adolescent#010",
                "adult#002",
                "adult#003",
                "adult#004",
                "adult#005",
                "adult#007",
                "adult#008",
                "adult#009",
                "adult#010",
                "child#001",
                "child#002",
                "child#005",
                "child#007",
                "child#008",
                "child#010",
            ),
            cohort_seed=42,
            scenario=_HEALTHLOOPQA_SCENARIO,
            faults=_HEALTHLOOPQA_FAULTS,
            rescue=RescueCarbs(),
        ),
    )
}


def profile_names() -> list[str]:
    """Sorted names of the simulation profiles."""
    return sorted(_PROFILES)


def get_profile(name: str) -> Profile:
    """The profile ``name``.

    Raises:
        UnknownNameError: With close matches, for an unknown name.
    """
    try:
        return _PROFILES[name]
    except KeyError:
        raise UnknownNameError(
            "profile", name, difflib.get_close_matches(name, list(_PROFILES), n=3)
        ) from None


@dataclass(frozen=True)
class ProfileRun:
    """A profile simulation, ready for :func:`~wearbench.sim.write_simulation`.

    Attributes:
        profile: The profile.
        patients: Patient names, in row order.
        days: Days simulated.
        frame: :func:`~wearbench.sim.simulate` output (always with fault columns; with a
            ``rescue`` column when the profile has rescue carbs).
        faults: The fault plan (empty for none).
        meals: Meal table (``MEAL_COLUMNS``); skipped meals have ``carbs_g`` 0.
        sessions: Exercise sessions table, or ``None`` without exercise.
        sample_time: Output grid (min).
        run: The :class:`~wearbench.sim.SimulationRun` behind ``frame`` (for counterfactual re-runs)
            when ``simulate_profile`` was asked for checkpoints, else ``None``.
    """

    profile: Profile
    patients: list[str]
    days: int
    frame: pd.DataFrame
    faults: FaultPlan
    meals: pd.DataFrame
    sessions: pd.DataFrame | None
    sample_time: int
    run: SimulationRun | None = None


def _meal_table(carbs: FloatArray) -> pd.DataFrame:
    """Meal table of given carbs (g per minute), typed by clock time, unperturbed."""
    p, m = np.nonzero(carbs)
    return pd.DataFrame({"patient": p.astype(np.int64), "start": m.astype(np.int64), "carbs_g": carbs[p, m],
                         "meal_type": meal_type_at(m).astype(str), "perturbation": "",
                         "perturbation_intensity": 0.0}, columns=MEAL_COLUMNS)  # fmt: skip


def simulate_profile(
    profile: Profile,
    days: int,
    *,
    patients: Sequence[str] | None = None,
    controller: str | Controller | None = None,
    sensor: str | None = "Dexcom",
    meals: FloatArray | None = None,
    faults: Literal["none", "random"] | FaultPlan = "none",
    exercise: bool = True,
    seed: int = 0,
    engine: str = "auto",
    checkpoint_every: int | None = None,
    executor: Executor | None = None,
) -> ProfileRun:
    """Simulate with a profile's grid, cohort, scenario and fault sizes (``layout != "default"``).

    Meals and exercise come from the profile's scenario drawn with ``default_rng([seed, 8])``,
    the random fault plan from :func:`~wearbench.sim.faults.profile_faults` with
    ``default_rng([seed, 6])``, sensor noise from ``seed``; the people treat lows as the profile's
    ``rescue`` says (``dataclasses.replace(profile, rescue=None)`` for a run without).

    Args:
        profile: A profile with a scenario and fault sizes (e.g. ``get_profile("healthloopqa")``).
        days: Days to simulate.
        patients: Patient names (``None``: the profile's cohort).
        controller: Registered controller name or a controller (``None``: the profile's, e.g.
            ``hcl-mpc``, looked up when the run starts).
        sensor: Sensor whose noise is used, sampled on the profile's grid; ``None``: noise-free.
        meals: Carbs eaten (g), shape ``(P, days * 1440)``, typed by clock time; ``None``: the
            profile's scenario.
        faults: ``"none"``, ``"random"`` (the profile's sizes) or a plan.
        exercise: Whether the scenario's exercise sessions are done.
        seed: The run's seed.
        engine: The simulator engine (:func:`~wearbench.sim.simulate`'s ``engine``).
        checkpoint_every: ``None``: no checkpoints, ``ProfileRun.run`` is ``None``. Else keep the
            loop's state every this many minutes and return the
            :class:`~wearbench.sim.SimulationRun` in ``ProfileRun.run`` (the frame is the same).
        executor: Where the patients' loops run (:func:`~wearbench.sim.simulate`'s ``executor``;
            only with ``checkpoint_every=None``).

    Returns:
        The run.
    """
    if profile.scenario is None or profile.faults is None or profile.sample_time is None:
        raise WearbenchError(f"profile {profile.name!r} has no scenario and fault sizes; use simulate()")
    names = list(patients) if patients else list(profile.cohort)
    params = load_params(names)
    draw = profile.scenario.draw(params.BW, days, np.random.default_rng([seed, 8]))
    carbs, table = (draw.carbs, draw.meals) if meals is None else (meals, _meal_table(meals))
    if isinstance(faults, FaultPlan):
        plan = faults
    elif faults == "random":
        plan = profile_faults(profile.faults, len(names), days, np.random.default_rng([seed, 6]))
    else:
        plan = FaultPlan()
    the_sensor = replace(Sensor.named(sensor), sample_time=profile.sample_time) if sensor else None
    sessions = draw.sessions if exercise else None
    run = run_simulation(
        names, days, controller=controller or profile.controller, sensor=the_sensor, meals=carbs,
        seed=seed, faults=plan, exercise=(draw.intensity, draw.sessions) if exercise else None,
        engine=engine, checkpoint_every=checkpoint_every, rescue=profile.rescue, executor=executor,
    )  # fmt: skip
    kept = run if checkpoint_every is not None else None
    return ProfileRun(profile, names, days, run.frame(), plan, table, sessions, profile.sample_time, kept)
