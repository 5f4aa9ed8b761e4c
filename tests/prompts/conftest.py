"""A hand-made 5-day user and item, and a small real benchmark (built once per session)."""

import math
from pathlib import Path

import numpy as np
import pytest

import wearbench
from wearbench.bench import build_benchmark
from wearbench.questions import Item, UserContext

NAN = math.nan


def make_item(end: str = "2024-03-05", window: int = 3, history: int = 5, user: str = "u1") -> Item:
    letters = "ABCDEFGHIJ"
    return Item(
        id="wb-test",
        type="trend",
        type_version=1,
        reasoning="data",
        signals="single",
        grounding="population",
        dependency="window",
        user_id=user,
        end_date=end,
        window_days=window,
        history_days=history,
        metrics=("resting_hr",),
        question="Which option is right?",
        options={x: f"option text {x}" for x in letters},
        claims={x: {} for x in letters},
        answer="C",
        graph={},
        evidence={},
        grounding_ref=None,
        pair_kind=None,
        gates=None,
    )


def make_ctx() -> UserContext:
    dates = np.datetime64("2024-03-01", "D") + np.arange(5).astype("timedelta64[D]")
    metrics = {
        "steps": np.array([1000, 2500, 3000, 4000, 1500], dtype=float),
        "resting_hr": np.array([60, 62, NAN, 61, 63]),
        "hrv": np.array([40.5, 41.0, 39.5, 42.0, 43.5]),
        "vo2max": np.full(5, NAN),
    }
    blood = (
        {"draw_date": "2024-02-01", "fasting_glucose": 92.0, "hba1c": 5.25, "hdl": NAN},
        {"draw_date": "2024-03-10", "fasting_glucose": 150.0, "hba1c": 7.0},
    )
    reference = {
        "steps": {5: 2000.0, 10: 3000.5, 25: 5000.0, 50: 7000.0, 75: 9000.0, 90: 11000.0, 95: 12500.0},
        "resting_hr": {5: 50.0, 10: 53.0, 25: 57.0, 50: 61.0, 75: 65.0, 90: 70.0, 95: 74.25},
    }
    demo = {"age": 34.0, "sex": "F", "bmi": 22.5, "ethnicity": "asian"}
    return UserContext("u1", dates, metrics, demo, blood, reference)


@pytest.fixture
def item() -> Item:
    return make_item()


@pytest.fixture
def ctx() -> UserContext:
    return make_ctx()


@pytest.fixture(scope="session")
def small_bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cohort = tmp_path_factory.mktemp("cohort")
    # 600 reference users: every age band x sex cell of the population has >= 30 users
    wearbench.synth(8, 120, seed=3, reference_users=600, out=cohort)
    out = tmp_path_factory.mktemp("bench")
    build_benchmark(cohort, out, types=["trend", "blood_state"], seed=0)
    return out
