"""Hand-built cases for prepare_user and the ImputationError → SkillErrors rows."""

from __future__ import annotations

import numpy as np
import pytest

from wearbench.minutes import HR, MinuteUser
from wearbench.scoring import imputation_rows
from wearbench.tracks import ImputationError, prepare_user


def _user() -> MinuteUser:
    """Day 0: not worn; day 1: constant steps (low variance); days 2-3: varied, HR has zeros."""
    x = np.zeros((4, 19, 1440), dtype=np.float32)
    t = np.arange(1440, dtype=np.float32)
    for d in (2, 3):
        for c in (0, 1, 3, 4, 6):
            x[d, c] = (t % 7) * 2  # variance far above 1
        x[d, HR] = 60 + (t % 5)
        x[d, HR, :10] = 0
    x[1, :7] = 3.0  # constant: variance 0
    x[1, HR] = 70.0
    nonwear = np.zeros((4, 1440), dtype=bool)
    nonwear[0, :721] = True  # 721 > 720 non-wear minutes
    dates = np.arange("2024-01-01", "2024-01-05", dtype="datetime64[D]")
    return MinuteUser("u1", dates, x, nonwear)


def test_prepare_user_counts_each_rule_and_applies_zero_to_nan() -> None:
    p = prepare_user(_user())
    c = p.counts
    assert (c.n_days, c.wear_dropped, c.variance_dropped, c.retained) == (4, 1, 1, 2)
    assert p.dates.tolist() == np.array(["2024-01-03", "2024-01-04"], dtype="datetime64[D]").tolist()
    assert p.days.shape == (2, 19, 1440)
    assert p.days.dtype == np.float32
    assert np.isnan(p.days[:, HR, :10]).all()
    assert not np.isnan(p.days[:, HR, 10:]).any()
    assert np.isnan(p.days[:, 7]).all()  # no sleep at all (< 3 h): zero sleep minutes -> NaN


def test_prepare_user_max_days_keeps_the_first_and_counts_all() -> None:
    p = prepare_user(_user(), max_days=1)
    assert p.days.shape[0] == 1
    assert str(p.dates[0]) == "2024-01-03"
    assert p.counts.retained == 2


def _e(approach: str, channel: int, value: float, method: str = "m", p: str = "p1") -> ImputationError:
    return ImputationError(method, approach, p, channel, "mae" if channel < 7 else "auroc", value, 10)


def test_rows_collapse_binary_channels_per_category() -> None:
    errors = [
        _e("random_noise", 0, 2.5),
        _e("random_noise", 7, 0.8),  # asleep: 1 - AUC = 0.2
        _e("random_noise", 8, 0.6),  # in bed: 0.4
        _e("random_noise", 9, 1.0),  # walking workout: 1 - AUC = 0 -> floored at eps
        _e("sleep_gap", 5, 4.0),
        _e("sleep_gap", 8, 0.9),  # semantic approach: binary row dropped
    ]
    rows = {(r["approach"], r["task"]): r for r in imputation_rows(errors)}
    assert set(rows) == {
        ("random_noise", "iPhone StepCount"),
        ("random_noise", "Sleep"),
        ("random_noise", "Workout"),
        ("sleep_gap", "Watch HeartRate"),
    }
    sleep = rows[("random_noise", "Sleep")]
    assert sleep["bucket"] == "Sleep"
    assert sleep["error"] == pytest.approx(0.3)
    assert sleep["rank_error"] == pytest.approx(0.3)
    workout = rows[("random_noise", "Workout")]
    assert (workout["error"], workout["rank_error"]) == (0.005, 0.0)
    cont = [r for r in rows.values() if r["bucket"] in ("Activity", "Physiology")]
    assert sorted((r["approach"], r["error"]) for r in cont) == [("random_noise", 2.5), ("sleep_gap", 4.0)]
