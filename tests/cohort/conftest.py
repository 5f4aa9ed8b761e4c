"""A tiny, seeded, clean cohort for the cohort IO / validation / describe tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from wearbench.cohort import (
    BIOMARKER_NAMES,
    METRIC_NAMES,
    Cohort,
    reference_percentiles,
    save_cohort,
)

USERS = ("u0001", "u0002", "u0003")
N_DAYS = 40
START = "2024-01-01"

#: Sampling ranges well inside each metric's plausible range.
_DAILY_RANGES = {
    "resting_hr": (52, 72),
    "hrv": (25, 70),
    "vo2max": (30, 50),
    "steps": (2_000, 14_000),
    "active_kcal": (0, 0),  # derived from steps below
    "bmr_kcal": (1_350, 1_900),
    "exercise_count": (0, 3),
    "exercise_minutes": (0, 90),
    "exercise_avg_hr": (95, 150),
    "mets": (0, 12),
    "sleep_minutes": (330, 540),
    "sleep_efficiency": (78, 97),
    "deep_sleep_pct": (10, 25),
    "rem_sleep_pct": (15, 25),
    "bedtime_regularity": (10, 80),
    "stress": (15, 70),
}
_BLOOD = {
    "fasting_glucose": 92.0,
    "hba1c": 5.4,
    "insulin": 8.0,
    "triglycerides": 110.0,
    "hdl": 55.0,
    "ldl": 115.0,
    "total_cholesterol": 190.0,
    "hs_crp": 1.2,
    "alt": 24.0,
    "ast": 22.0,
    "ggt": 25.0,
    "creatinine": 0.9,
    "egfr": 95.0,
    "uric_acid": 5.2,
    "tsh": 1.8,
    "vitamin_d": 30.0,
    "ferritin": 90.0,
}


def build_cohort(seed: int = 0) -> Cohort:
    """3 users × 40 days, every value in range, one blood draw per user, reference from the cohort."""
    rng = np.random.default_rng(seed)
    dates = pd.date_range(START, periods=N_DAYS, freq="D")
    frames = []
    for user in USERS:
        cols: dict[str, object] = {"user_id": [user] * N_DAYS, "date": dates}
        for name in METRIC_NAMES:
            lo, hi = _DAILY_RANGES[name]
            if name in ("steps", "exercise_count"):
                cols[name] = rng.integers(lo, hi + 1, N_DAYS).astype(float)
            else:
                cols[name] = np.round(rng.uniform(lo, hi, N_DAYS), 1)
        cols["active_kcal"] = np.round(np.asarray(cols["steps"]) * 0.04 + rng.normal(0, 20, N_DAYS), 1)
        frames.append(pd.DataFrame(cols))
    daily = pd.concat(frames, ignore_index=True)
    daily["user_id"] = daily["user_id"].astype("str")
    demographics = pd.DataFrame(
        {
            "user_id": list(USERS),
            "age": [25.0, 35.0, 62.0],
            "sex": ["F", "M", "F"],
            "bmi": [22.5, 27.0, 31.2],
            "ethnicity": ["asian", "white", "black"],
        }
    )
    blood = pd.DataFrame({"user_id": list(USERS), "draw_date": pd.to_datetime(["2024-01-15"] * 3)})
    for i, name in enumerate(BIOMARKER_NAMES):
        blood[name] = np.round(_BLOOD[name] * (1 + 0.05 * (np.arange(3) - 1) + 0.001 * i), 3)
    reference = reference_percentiles(daily, demographics, min_days=14)
    return Cohort(
        daily=daily,
        demographics=demographics,
        blood=blood,
        reference=reference,
        source={"name": "test-builder", "params": {"seed": seed, "users": len(USERS)}},
        truth={"planted": {"note": "nothing planted"}, "seed": seed},
    )


@pytest.fixture
def cohort() -> Cohort:
    return build_cohort()


@pytest.fixture
def saved(cohort: Cohort, tmp_path: Path) -> Path:
    return save_cohort(cohort, tmp_path / "clean")


@pytest.fixture
def make_cohort() -> Callable[..., Cohort]:
    return build_cohort


def rewrite_parquet(file: Path, table: pa.Table) -> None:
    """Overwrite a cohort table behind save_cohort's back (as an outside tool would)."""
    pq.write_table(table, file, compression="zstd", compression_level=3, store_schema=False)


@pytest.fixture
def rewrite() -> Callable[[Path, pa.Table], None]:
    return rewrite_parquet
