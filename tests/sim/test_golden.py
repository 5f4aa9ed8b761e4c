"""Golden simulator traces: one patient-day with nine fault kinds, and one clean PID day with exercise.

The files under ``tests/sim/golden/`` were written by this module before the simulator's two loops
became one; every float of the numpy engine must match bit for bit, and the compiled (numba)
engine must match to 1e-9 mg/dL. Regenerate only on purpose, and review the diff:
``WEARBENCH_UPDATE_GOLDEN=1 python -m pytest -p no:xdist tests/sim/test_golden.py``.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wearbench.sim import (
    BasalBolusController,
    PatientParams,
    exercise_array,
    fault_names,
    fixed_meals,
    initial_state,
    load_params,
    random_fault_plan,
    random_faults,
    simulate,
)
from wearbench.sim._loop import CGMReading, PlainMeals, PlainPump, PlainSensor, run_loop

pytest.importorskip("simglucose")

GOLDEN = Path(__file__).parent / "golden"
#: One fault of every target: sensor (cgm), announced meal, basal, bolus and hidden total delivery.
KINDS = [
    "missing_signal",
    "positive_spike",
    "repeated_reading",
    "positive_bias",
    "false_meal",
    "false_bolus",
    "positive_basal",
    "min_basal",
    "unknown_under",
]


def faulty_day(engine: str = "numpy") -> pd.DataFrame:
    """adult#001, one day, basal-bolus, Dexcom, Insulet, random meals, the nine faults of KINDS."""
    plan = random_faults(
        KINDS, 1, 1440, np.random.default_rng(12), min_duration=30, max_duration=60, min_gap=20
    )
    return simulate(["adult#001"], 1, seed=12, faults=plan, engine=engine)


def clean_pid_day(engine: str = "numpy") -> pd.DataFrame:
    """adolescent#003, one day, PID controller, GuardianRT, one 45-min run at 0.6 from minute 600."""
    s = pd.DataFrame(
        {"patient": [0], "start": [600], "duration": [45], "kind": ["running"], "intensity": [0.6]}
    )
    exercise = (exercise_array(s, 1, 1440), s)
    return simulate(
        ["adolescent#003"], 1, controller="pid", sensor="GuardianRT", seed=5, exercise=exercise, engine=engine
    )


def _same_bits(got: pd.DataFrame, want: pd.DataFrame) -> None:
    assert list(got.columns) == list(want.columns)
    assert len(got) == len(want)
    for c in got.columns:
        a, b = got[c].to_numpy(), want[c].to_numpy()
        if a.dtype == np.float64:
            assert b.dtype == np.float64, c
            assert np.array_equal(a.view(np.int64), b.view(np.int64)), f"column {c} differs"
        else:
            assert [str(x) for x in a] == [str(x) for x in b], f"column {c} differs"


@pytest.mark.parametrize("name", ["faulty_day", "clean_pid_day"])
def test_simulate_matches_golden_trace(name: str) -> None:
    got = {"faulty_day": faulty_day, "clean_pid_day": clean_pid_day}[name]()
    path = GOLDEN / f"{name}.parquet"
    if os.environ.get("WEARBENCH_UPDATE_GOLDEN") == "1":
        got.to_parquet(path, index=False)
    _same_bits(got, pd.read_parquet(path))


@pytest.mark.parametrize("name", ["faulty_day", "clean_pid_day"])
def test_compiled_engine_matches_golden_trace(name: str) -> None:
    """The numba engine (faults through run_loop, the clean PID day through the compiled loop)."""
    pytest.importorskip("numba")
    got = {"faulty_day": faulty_day, "clean_pid_day": clean_pid_day}[name]("numba")
    want = pd.read_parquet(GOLDEN / f"{name}.parquet")
    assert list(got.columns) == list(want.columns)
    for c in got.columns:
        a, b = got[c].to_numpy(), want[c].to_numpy()
        if a.dtype == np.float64:
            assert np.array_equal(np.isnan(a), np.isnan(b)), c
            np.testing.assert_allclose(a, b, rtol=0, atol=1e-9, equal_nan=True, err_msg=c)
        else:
            assert [str(x) for x in a] == [str(x) for x in b], c


def test_golden_faulty_day_has_every_fault() -> None:
    want = pd.read_parquet(GOLDEN / "faulty_day.parquet")
    assert sorted(set(want["label"]) - {""}) == sorted(KINDS)
    assert want["cgm"].isna().sum() > 0  # missing_signal shows NaN readings


def test_random_fault_plan_is_the_cli_layout() -> None:
    """2 patients x 2 days: 18 types > 4 patient-days, so 9 per patient in 320-min slots."""
    plan = random_fault_plan(2, 2, seed=3)
    assert len(plan.events) == 18
    assert sorted(e.label for e in plan.events) == fault_names()
    assert all(30 <= e.duration <= 160 for e in plan.events)  # longest = min(180, 320 // 2)
    plan.check(2, 2 * 1440)
    assert random_fault_plan(2, 2, seed=3) == plan
    assert random_fault_plan(2, 2, seed=4) != plan


def test_a_wrapped_stage_plugs_into_the_one_loop() -> None:
    """A counterfactual sensor stage (reads 50 mg/dL high) changes the controller's view, not the truth."""

    class HighSensor:
        def __init__(self, inner: PlainSensor) -> None:
            self.inner = inner

        def read(self, minute: int, gsub: np.ndarray) -> CGMReading:
            r = self.inner.read(minute, gsub)
            return CGMReading(r.clean, r.shown + 50.0, r.seen + 50.0)

    params = load_params(["adult#001"])
    eaten = fixed_meals(1, 1)
    stages = (PlainSensor(None, None), PlainMeals(), PlainPump(None, 1))
    base = run_loop(params, initial_state(params), eaten, _ready(params), stages, 2)
    high = (HighSensor(PlainSensor(None, None)), PlainMeals(), PlainPump(None, 1))
    got = run_loop(params, initial_state(params), eaten, _ready(params), high, 2)
    assert np.array_equal(got["cgm"][0], base["cgm"][0] + 50.0)
    assert got["bolus"].sum() > base["bolus"].sum()  # correction boluses above 150 mg/dL
    assert got["true_bg"].mean() < base["true_bg"].mean()


def _ready(params: PatientParams) -> BasalBolusController:
    c = BasalBolusController()
    c.reset(params)
    return c
