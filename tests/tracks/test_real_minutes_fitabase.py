"""The Fitabase minute files (shared data) through preprocessing and the imputation track.

Four users of the Fitabase export (two with second-level heart rate in the shared folder's
``heartrate/`` file, two without). The folder has no ``minuteSleep`` file and Fitbit records no
workouts, so channels 7-18 are missing for everyone (as are the iPhone channels and Watch
distance): they are reported in the cohort's ``missing_channels`` and yield no error rows.
Numbers measured on these exact inputs (seed 0).
"""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from wearbench import WearbenchError
from wearbench.minutes import CHANNEL_NAMES, HR, MinuteCohort
from wearbench.scoring import score_imputation_results, score_track_results
from wearbench.sources.fitbit import fitabase_minutes
from wearbench.tracks import (
    preprocess_cohort,
    read_imputation_results,
    run_forecast,
    run_imputation,
    run_predict,
)

METHODS = ("locf", "mean", "linear", "temporal_mean", "personal_mean")
USERS = ["2022484408", "1503960366", "2026352035", "4020332650"]
_DEFAULT = Path(__file__).resolve().parents[2].parent / "shared" / "data"
WATCH_HAS = (3, HR, 6)  # Watch steps, heart rate, active energy


@pytest.fixture(scope="module")
def loaded(tmp_path_factory: pytest.TempPathFactory) -> tuple[MinuteCohort, Path]:
    root = Path(os.environ.get("WEARBENCH_SHARED_DATA", _DEFAULT))
    if not (root / "README.md").is_file():
        pytest.skip(f"real data folder not found at {root} (set WEARBENCH_SHARED_DATA)")
    out = tmp_path_factory.mktemp("fitabase") / "m"
    return fitabase_minutes(root / "fitbit_fitabase", out, users=USERS), out


def test_missing_channels_are_reported(loaded: tuple[MinuteCohort, Path]) -> None:
    cohort, _ = loaded
    missing = cohort.source["missing_channels"]
    lacks = [CHANNEL_NAMES[c] for c in (0, 1, 2, 4, *range(7, 19))]
    assert missing["2022484408"] == lacks
    assert missing["1503960366"] == [*lacks[:4], CHANNEL_NAMES[HR], *lacks[4:]]  # no heart-rate file rows
    for user in cohort.users:
        for c in (0, 1, 2, 4, *range(7, 19)):
            assert np.isnan(user.values[:, c]).all()


def test_preprocessing_days_per_user(loaded: tuple[MinuteCohort, Path]) -> None:
    _, folder = loaded
    counts = {
        c.user_id: (c.n_days, c.wear_dropped, c.variance_dropped, c.retained)
        for c in preprocess_cohort(folder)
    }
    assert counts == {
        "2022484408": (31, 16, 0, 15),
        "1503960366": (30, 0, 2, 28),
        # heart rate on 4 days only: a minute is worn with an HR sample or steps, so 965-1423
        # non-wear minutes a day (the limit is 720) and no day kept
        "2026352035": (31, 31, 0, 0),
        "4020332650": (31, 24, 0, 7),
    }


def test_imputation_track_scores_only_the_channels_the_device_has(
    loaded: tuple[MinuteCohort, Path], tmp_path: Path
) -> None:
    _, folder = loaded
    manifest = run_imputation(folder, METHODS, tmp_path / "r", seed=0, test_share=0.5)
    split = manifest["split"]
    assert (split["train"], split["test"]) == (["1503960366", "4020332650"], ["2022484408", "2026352035"])
    assert (split["train_days"], split["test_days"], split["test_without_days"]) == (35, 15, ["2026352035"])
    _, errors = read_imputation_results(tmp_path / "r")
    locf = [e for e in errors if e.method == "locf"]
    assert len(errors) == 5 * len(locf) == 55
    assert {e.channel for e in errors} == set(WATCH_HAS)  # none for a missing channel
    assert {e.participant for e in errors} == {"2022484408"}
    assert Counter(e.approach for e in locf) == {
        "random_noise": 3,
        "temporal_slice": 3,
        "signal_slice": 3,
        "intensity_failure": 2,  # HR and energy, 18 cells each
    }
    sub = manifest["substitution"]["locf"]
    assert {a: s["n_masked"] for a, s in sub.items()} == {
        "random_noise": 27687,
        "temporal_slice": 15723,
        "signal_slice": 29204,
        "sleep_gap": 0,  # no sleep channel
        "workout_gap": 0,  # no workout channel
        "intensity_failure": 36,
    }
    assert all(s["n_substituted"] == 0 for m in METHODS for s in manifest["substitution"][m].values())
    scored = score_imputation_results(tmp_path / "r", "locf", n_boot=200)
    for scope in ("Overall", "Activity", "Physiology", "Semantic"):
        assert scored["methods"]["locf"][scope]["skill"] == 0.0
    for method in METHODS:  # no sleep or workout data: those scopes have no skill
        assert scored["methods"][method]["Sleep"]["skill"] is None
        assert scored["methods"][method]["Workout"]["skill"] is None
    assert scored["methods"]["linear"]["Overall"]["skill"] == pytest.approx(0.1790, abs=1e-4)


def test_forecast_and_no_labels(loaded: tuple[MinuteCohort, Path], tmp_path: Path) -> None:
    """Issue 16: the forecasting track (seasonal_naive, linear) on the same users; no outcome labels."""
    _, folder = loaded
    fc = run_forecast(folder, ["seasonal_naive", "linear"], tmp_path / "f", seed=0, test_share=0.5)
    assert {u: o["valid"] for u, o in fc["origins"].items()} == {
        "1503960366": 25, "4020332650": 3, "2022484408": 11, "2026352035": 0,
    }  # fmt: skip
    assert fc["split"]["test_without_windows"] == ["2026352035"]  # no retained day (HR on 4 days)
    assert fc["scored_hours"] == 688
    scored = score_track_results(tmp_path / "f", n_boot=200)
    assert scored["methods"]["seasonal_naive"]["Overall"]["skill"] == 0.0
    # a lag-linear model fit on 28 windows of 2 users loses to yesterday's hours
    assert scored["methods"]["linear"]["Overall"]["skill"] == pytest.approx(-0.7705, abs=1e-4)
    with pytest.raises(WearbenchError, match="no labels"):
        run_predict(folder, ["linear"], tmp_path / "p")
