"""Golden simulator traces: one patient-day with nine fault kinds, and one clean PID day with exercise.

The files under ``tests/sim/golden/`` were written by this module before the simulator's two loops
became one; every float must match bit for bit. Regenerate only on purpose, and review the diff:
``WEARBENCH_UPDATE_GOLDEN=1 python -m pytest -p no:xdist tests/sim/test_golden.py``.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wearbench.sim import exercise_array, random_faults, simulate

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


def faulty_day() -> pd.DataFrame:
    """adult#001, one day, basal-bolus, Dexcom, Insulet, random meals, the nine faults of KINDS."""
    plan = random_faults(
        KINDS, 1, 1440, np.random.default_rng(12), min_duration=30, max_duration=60, min_gap=20
    )
    return simulate(["adult#001"], 1, seed=12, faults=plan)


def clean_pid_day() -> pd.DataFrame:
    """adolescent#003, one day, PID controller, GuardianRT, one 45-min run at 0.6 from minute 600."""
    s = pd.DataFrame(
        {"patient": [0], "start": [600], "duration": [45], "kind": ["running"], "intensity": [0.6]}
    )
    exercise = (exercise_array(s, 1, 1440), s)
    return simulate(["adolescent#003"], 1, controller="pid", sensor="GuardianRT", seed=5, exercise=exercise)


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


def test_golden_faulty_day_has_every_fault() -> None:
    want = pd.read_parquet(GOLDEN / "faulty_day.parquet")
    assert sorted(set(want["label"]) - {""}) == sorted(KINDS)
    assert want["cgm"].isna().sum() > 0  # missing_signal shows NaN readings
