"""Forecasting windows: calendar trajectories, the validity rules, the origin cap, H = 48."""

from __future__ import annotations

import numpy as np
import pytest

from wearbench.tracks import (
    DayCounts,
    PreparedUser,
    draw_origins,
    forecast_windows,
    origin_rng,
    trajectory,
    user_forecast_windows,
    valid_origins,
)


def _user(dates: list[str], fill: float | None = None) -> PreparedUser:
    """Retained days on ``dates``; channel 5 (HR) minute value = 10 * day index + hour."""
    n = len(dates)
    days = np.full((n, 19, 1440), np.nan, dtype=np.float32)
    for i in range(n):
        days[i, 5] = 10.0 * i + np.repeat(np.arange(24), 60)
    if fill is not None:
        days[:, 0] = fill
    counts = DayCounts("u1", n, 0, 0, n)
    return PreparedUser("u1", np.array(dates, dtype="datetime64[D]"), days, counts)


def test_trajectory_spans_calendar_days_and_gap_days_are_nan() -> None:
    traj = trajectory(_user(["2024-01-01", "2024-01-02", "2024-01-05"]))
    assert traj.start == np.datetime64("2024-01-01")
    assert traj.valid.tolist() == [True, True, False, False, True]
    assert traj.values.shape == (5 * 24, 19)
    assert traj.values[0, 5] == 0.0
    assert traj.values[23, 5] == 23.0
    assert traj.values[24 + 7, 5] == 17.0  # day index 1, hour 7
    assert np.isnan(traj.values[48:96]).all()  # the two gap days
    assert traj.values[96 + 3, 5] == 23.0  # third retained day (index 2): 20 + 3
    assert np.isnan(traj.values[:, 7]).all()  # a channel never observed


def test_trajectory_of_a_user_without_days_is_empty() -> None:
    traj = trajectory(_user([]))
    assert traj.values.shape == (0, 19)
    assert traj.valid.size == 0


def test_three_of_seven_rule_at_its_edge() -> None:
    # days 0..9; valid: 0, 1, 2, then 3 invalid, 4..9 valid
    valid = np.array([1, 1, 1, 0, 1, 1, 1, 1, 1, 1], dtype=bool)
    # day 3 itself invalid; days 0-2 have fewer than 3 valid predecessors
    assert valid_origins(valid).tolist() == [4, 5, 6, 7, 8, 9]
    # exactly 2 of the previous 7 valid -> not an origin; exactly 3 -> an origin
    v2 = np.array([1, 0, 0, 0, 0, 0, 1, 1, 1, 0, 0], dtype=bool)
    # day 7: previous 7 (0..6) hold 0 and 6 -> 2 valid: no; day 8: 1..7 hold 6, 7 -> 2: no
    assert valid_origins(v2).tolist() == []
    v3 = np.array([1, 0, 0, 0, 0, 1, 1, 1, 1], dtype=bool)
    # day 7: 0..6 hold 0, 5, 6 -> 3: yes; day 8: 1..7 hold 5, 6, 7 -> 3: yes
    assert valid_origins(v3).tolist() == [7, 8]
    # a day 8 back does not count: day 8 of [1, 0*6, 1, 1, 1]: previous 7 = 1..7 -> 2 valid
    v4 = np.array([1, 0, 0, 0, 0, 0, 1, 1, 1], dtype=bool)
    assert valid_origins(v4).tolist() == []


def test_h48_needs_both_target_days_valid() -> None:
    valid = np.array([1, 1, 1, 1, 0, 1, 1, 1], dtype=bool)
    assert valid_origins(valid, 24).tolist() == [3, 5, 6, 7]
    assert valid_origins(valid, 48).tolist() == [5, 6]  # 3: day 4 invalid; 7: day 8 is past the end
    with pytest.raises(ValueError, match="multiple of 24"):
        valid_origins(valid, 36)


def test_cap_draws_sorted_and_seeded() -> None:
    cand = np.arange(3, 250, dtype=np.int64)
    a = draw_origins(cand, origin_rng(7, "u1"), cap=100)
    b = draw_origins(cand, origin_rng(7, "u1"), cap=100)
    c = draw_origins(cand, origin_rng(8, "u1"), cap=100)
    assert a.size == 100
    assert np.array_equal(a, b)
    assert not np.array_equal(a, c)
    assert np.all(np.diff(a) > 0)
    assert set(a.tolist()) <= set(cand.tolist())
    expected = np.sort(origin_rng(7, "u1").choice(cand, size=100, replace=False))
    assert np.array_equal(a, expected)
    assert draw_origins(cand[:5], origin_rng(7, "u1"), cap=100).tolist() == [3, 4, 5, 6, 7]
    assert draw_origins(cand[:5], origin_rng(7, "u1"), cap=5).tolist() == [3, 4, 5, 6, 7]


def test_windows_history_is_padded_and_target_is_the_origin_days() -> None:
    traj = trajectory(_user(["2024-01-01", "2024-01-02", "2024-01-03", "2024-01-04"]))
    w = forecast_windows(traj, np.array([3]), horizon=24, history=72)
    assert w.history.shape == (1, 72, 19)
    assert w.target.shape == (1, 24, 19)
    assert w.origins.tolist() == [np.datetime64("2024-01-04")]
    assert w.history[0, 0, 5] == 0.0
    assert w.history[0, -1, 5] == 23.0 + 20.0
    assert w.target[0, :, 5].tolist() == [30.0 + h for h in range(24)]
    w2 = forecast_windows(traj, np.array([3]), horizon=24, history=336)
    assert np.isnan(w2.history[0, : 336 - 72]).all()  # before the trajectory
    with pytest.raises(ValueError, match="past the trajectory"):
        forecast_windows(traj, np.array([3]), horizon=48)


def test_user_windows_counts_candidates_before_the_cap() -> None:
    dates = [str(np.datetime64("2024-01-01") + i) for i in range(20)]
    w, n_valid = user_forecast_windows(_user(dates), seed=0, horizon=24, cap=5)
    assert n_valid == 17  # origins 3..19
    assert len(w) == 5
    assert w.participants.tolist() == ["u1"] * 5
    w48, n48 = user_forecast_windows(_user(dates), seed=0, horizon=48)
    assert n48 == 16
    assert len(w48) == 16
    assert w48.target.shape == (16, 48, 19)
