"""Hourly aggregation and weekly windows on hand-built minute days."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wearbench.tracks import hourly, stack_weeks, weekly_windows

N = np.nan


def day() -> np.ndarray:
    return np.full((1, 19, 1440), np.nan, dtype=np.float32)


def test_hourly_hand_computed_first_hour() -> None:
    x = day()
    x[0, 0, :3] = [10.0, N, 5.0]  # steps: nansum 15
    x[0, 5, :4] = [60.0, 70.0, N, 80.0]  # HR: nanmean 70
    x[0, 7, :60] = 0.0
    x[0, 7, 30] = 1.0  # asleep: one 1 -> 1
    x[0, 8, :2] = [0.0, 0.0]  # in bed: all observed 0 -> 0, observed
    x[0, 9, 60:120] = 1.0  # walking in hour 1
    seg = hourly(x)
    assert seg.shape == (1, 24, 38)
    v, m = seg[0, :, :19], seg[0, :, 19:]
    assert v[0, 0] == 15.0
    assert v[0, 5] == 70.0
    assert v[0, 7] == 1.0
    assert v[0, 8] == 0.0
    assert m[0, [0, 5, 7, 8]].tolist() == [0, 0, 0, 0]
    assert m[0, 9] == 1  # no walking minute observed in hour 0
    assert v[1, 9] == 1.0
    assert m[1, 9] == 0
    # every other channel-hour is missing: value 0, M = 1
    assert m.sum() == 24 * 19 - 5
    assert v[m == 1].tolist() == [0.0] * int(m.sum())


def test_hourly_sum_hour_boundaries() -> None:
    x = day()
    x[0, 3, :] = 1.0  # one step a minute
    x[0, 3, 59] = 2.0  # last minute of hour 0
    x[0, 3, 60] = 3.0  # first minute of hour 1
    seg = hourly(x)
    assert seg[0, 0, 3] == 61.0
    assert seg[0, 1, 3] == 62.0
    assert (seg[0, 2:, 3] == 60.0).all()


def test_hourly_all_nan_day_is_all_missing() -> None:
    seg = hourly(day())
    assert (seg[0, :, :19] == 0).all()
    assert (seg[0, :, 19:] == 1).all()


def test_hourly_one_observed_value() -> None:
    x = day()
    x[0, 5, 700] = 64.0  # hour 11
    seg = hourly(x)
    assert seg[0, 11, 5] == 64.0
    assert seg[0, 11, 24] == 0
    assert seg[0, :, 24].sum() == 23


def test_hourly_nan_missing_form() -> None:
    x = day()
    x[0, 0, :60] = 2.0
    seg = hourly(x, nan_missing=True)
    assert seg[0, 0, 0] == 120.0
    assert np.isnan(seg[0, 1:, 0]).all()
    assert (seg[0, 1:, 19] == 1).all()
    assert np.isnan(seg[0, :, 1:19]).all()


def test_hourly_of_no_days() -> None:
    assert hourly(np.zeros((0, 19, 1440), dtype=np.float32)).shape == (0, 24, 38)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), nan_share=st.floats(0.0, 1.0))
def test_hourly_sums_equal_minute_sums(seed: int, nan_share: float) -> None:
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 50, size=(2, 19, 1440)).astype(np.float32)
    x[rng.random(x.shape) < nan_share] = np.nan
    seg = hourly(x)
    for c in (0, 1, 2, 3, 4, 6):
        minute_sum = np.nansum(x[:, c, :].astype(np.float64), axis=1)
        np.testing.assert_array_equal(seg[:, :, c].sum(axis=1), minute_sum)
        observed_hours = (~np.isnan(x[:, c].reshape(2, 24, 60))).any(axis=2)
        np.testing.assert_array_equal(seg[:, :, 19 + c] == 0, observed_hours)


# --- weekly windows ------------------------------------------------------------------------------


def test_weekly_windows_stride_one() -> None:
    days = np.arange(100, 108)  # 8 consecutive days
    retained = np.array([1, 1, 0, 1, 1, 1, 1, 0], dtype=bool)
    starts, rows = weekly_windows(days, retained)
    # window 100-106: 6 retained; 101-107: 5; none may run past day 107
    assert starts.tolist() == [100, 101]
    assert rows.tolist() == [[0, 1, -1, 3, 4, 5, 6], [1, -1, 3, 4, 5, 6, -1]]
    starts, _ = weekly_windows(days[:7], retained[:7])
    assert starts.tolist() == [100]


def test_weekly_windows_keep_calendar_gaps() -> None:
    dates = ["2024-01-01", "2024-01-02", "2024-01-04", "2024-01-05", "2024-01-06", "2024-01-08"]
    days = np.array(dates, dtype="datetime64[D]")
    starts, rows = weekly_windows(days, np.ones(6, dtype=bool))
    first = int(days[0].astype(np.int64))
    # Jan 1-7 holds 5 days, Jan 2-8 holds 5 days
    assert starts.tolist() == [first, first + 1]
    assert rows.tolist() == [[0, 1, -1, 2, 3, 4, -1], [1, -1, 2, 3, 4, -1, 5]]


def test_weekly_windows_four_retained_days_is_not_a_week() -> None:
    starts, rows = weekly_windows(np.arange(4), np.ones(4, dtype=bool))
    assert starts.tolist() == []
    assert rows.shape == (0, 7)


def test_weekly_windows_stride_and_threshold_parameters() -> None:
    days = np.arange(21)
    starts, _ = weekly_windows(days, np.ones(21, dtype=bool), stride=7)
    assert starts.tolist() == [0, 7, 14]
    starts, _ = weekly_windows(days, np.ones(21, dtype=bool), stride=7, min_retained=7)
    assert starts.tolist() == [0, 7, 14]
    starts, _ = weekly_windows(days, np.ones(21, dtype=bool), length=3, min_retained=3, stride=10)
    assert starts.tolist() == [0, 10]


def test_weekly_windows_empty_and_errors() -> None:
    starts, rows = weekly_windows(np.zeros(0, dtype=np.int64), np.zeros(0, dtype=bool))
    assert starts.shape == (0,)
    assert rows.shape == (0, 7)
    with pytest.raises(ValueError, match="strictly increasing"):
        weekly_windows(np.array([3, 3]), np.ones(2, dtype=bool))
    with pytest.raises(ValueError, match="retained has shape"):
        weekly_windows(np.arange(3), np.ones(2, dtype=bool))


def test_stack_weeks_fills_absent_days_as_missing() -> None:
    x = np.repeat(day(), 2, axis=0)
    x[0, 0, :] = 1.0
    x[1, 0, :] = 2.0
    seg = hourly(x)
    week = stack_weeks(seg, np.array([[1, -1, 0]]))
    assert week.shape == (1, 72, 38)
    assert (week[0, :24, 0] == 120.0).all()
    assert (week[0, 24:48, :19] == 0).all()
    assert (week[0, 24:48, 19:] == 1).all()
    assert (week[0, 48:, 0] == 60.0).all()
    nan_week = stack_weeks(seg, np.array([[-1, 0, 1]]), nan_missing=True)
    assert np.isnan(nan_week[0, :24, :19]).all()


def test_stack_weeks_shape_of_seven_days() -> None:
    seg = hourly(np.repeat(day(), 7, axis=0))
    _, rows = weekly_windows(np.arange(7), np.ones(7, dtype=bool))
    assert stack_weeks(seg, rows).shape == (1, 168, 38)
    with pytest.raises(ValueError, match="rows must be"):
        stack_weeks(seg, np.array([[7]]))
