"""reference_percentiles against a hand-computed case."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wearbench import UnknownNameError, WearbenchError
from wearbench.cohort import EXTRA_PERCENTILES, PERCENTILES, Cohort, load_cohort, reference_percentiles

P = [f"p{p}" for p in PERCENTILES]
COLUMNS = ["metric", "age_band", "sex", "n_users", *P, *[f"p{p}" for p in EXTRA_PERCENTILES], "mean", "sd"]


def _daily(values: dict[str, list[float]], metric: str = "resting_hr") -> pd.DataFrame:
    rows = [
        {"user_id": u, "date": pd.Timestamp("2024-01-01") + pd.Timedelta(days=i), metric: v}
        for u, vs in values.items()
        for i, v in enumerate(vs)
    ]
    return pd.DataFrame(rows)


DEMO = pd.DataFrame(
    {
        "user_id": ["a", "b", "c", "d", "e", "f", "g"],
        "age": [25.0, 28.0, 45.0, 70.0, 30.0, 15.0, 33.0],
        "sex": ["F", "F", "M", "F", "M", "F", "X"],
    }
)
VALUES = {
    "a": [60.0, 62.0, 64.0],  # median 62   → 18-29 F
    "b": [70.0, 70.0, 80.0],  # median 70   → 18-29 F
    "c": [55.0, 57.0],  # median 56           → 40-49 M
    "d": [50.0, np.nan, 52.0, 54.0],  # median 52 (3 values) → 60+ F
    "e": [99.0],  # only 1 day: excluded with min_days=2
    "f": [80.0, 80.0],  # age 15: below every band
    "g": [80.0, 80.0],  # sex X: excluded
}


def test_hand_computed_case() -> None:
    ref = reference_percentiles(_daily(VALUES), DEMO, metrics=("resting_hr",), min_days=2)
    assert list(ref.columns) == COLUMNS
    assert ref[["metric", "age_band", "sex"]].values.tolist() == [
        ["resting_hr", "18-29", "F"],
        ["resting_hr", "40-49", "M"],
        ["resting_hr", "60+", "F"],
    ]
    assert ref["n_users"].tolist() == [2, 1, 1]
    # linear interpolation between 62 and 70: 62 + q/100 * 8
    assert ref.loc[0, P].tolist() == pytest.approx([62.4, 62.8, 64.0, 66.0, 68.0, 69.2, 69.6])
    assert ref.loc[1, P].tolist() == pytest.approx([56.0] * 7)
    assert ref.loc[2, P].tolist() == pytest.approx([52.0] * 7)
    assert ref.loc[0, ["p20", "p40", "p80"]].tolist() == pytest.approx([63.6, 65.2, 68.4])
    assert ref.loc[0, ["mean", "sd"]].tolist() == pytest.approx([66.0, 8.0**0.5 * 2])  # SD of 62, 70
    assert np.isnan(ref.loc[1, "sd"])  # one user: no SD
    assert ref["n_users"].dtype == np.int64
    assert all(ref[c].dtype == np.float64 for c in P)


def test_min_days_counts_non_missing_days() -> None:
    ref = reference_percentiles(_daily(VALUES), DEMO, metrics=("resting_hr",), min_days=4)
    assert ref.empty  # d has 4 rows but only 3 values
    assert list(ref.columns) == COLUMNS


def test_rows_are_sorted_by_metric_band_sex() -> None:
    daily = _daily(VALUES).assign(steps=lambda d: d["resting_hr"] * 100)
    ref = reference_percentiles(daily, DEMO, metrics=("steps", "resting_hr"), min_days=2)
    keys = ref[["metric", "age_band", "sex"]].values.tolist()
    assert keys == sorted(keys)
    assert ref.loc[ref["metric"] == "steps", "p50"].tolist() == pytest.approx([6600.0, 5600.0, 5200.0])


def test_bad_arguments() -> None:
    with pytest.raises(ValueError, match="min_days"):
        reference_percentiles(_daily(VALUES), DEMO, metrics=("resting_hr",), min_days=0)
    with pytest.raises(UnknownNameError, match="resting_hr"):
        reference_percentiles(_daily(VALUES), DEMO, metrics=("resting_hrr",))
    with pytest.raises(WearbenchError, match="hrv"):
        reference_percentiles(_daily(VALUES), DEMO, metrics=("hrv",))


def test_reference_survives_save_and_load(cohort: Cohort, saved: Path) -> None:
    pd.testing.assert_frame_equal(load_cohort(saved).reference, cohort.reference)
