"""Tests for bootstrap_days / bootstrap_indices / leave_one_day_out."""

from __future__ import annotations

import math

import numpy as np
import pytest

from wearbench import UnknownNameError
from wearbench.primitives import (
    bootstrap_days,
    bootstrap_indices,
    leave_one_day_out,
    ols_slope,
    period_aggregate,
    window_change,
)

NAN = math.nan


def test_indices_sorted_in_range_and_seeded():
    a = bootstrap_indices(20, np.random.default_rng(7))
    b = bootstrap_indices(20, np.random.default_rng(7))
    np.testing.assert_array_equal(a, b)
    assert len(a) == 20
    assert (np.diff(a) >= 0).all()
    assert a.min() >= 0
    assert a.max() <= 19
    assert len(np.unique(a)) < 20  # with replacement: P(all distinct) = 20!/20^20 ~ 2e-8 for any seed


def test_block_bootstrap_keeps_runs():
    # block = n: the only start is day 0, so the resample is the series itself
    np.testing.assert_array_equal(bootstrap_indices(6, np.random.default_rng(0), block=6), np.arange(6))
    # block 3 over 7 days: 3 blocks of 3 consecutive days, truncated to 7 indices
    idx = bootstrap_indices(7, np.random.default_rng(3), block=3)
    assert len(idx) == 7
    assert idx.max() <= 6
    with pytest.raises(ValueError, match="block"):
        bootstrap_indices(5, np.random.default_rng(0), block=6)


def test_bootstrap_days_aligns_arrays():
    x = np.arange(10, dtype=float)
    out = bootstrap_days(lambda a, b: (a, b), x, 2 * x, n_resamples=5, rng=np.random.default_rng(1))
    assert len(out) == 5
    for a, b in out:
        np.testing.assert_array_equal(b, 2 * a)  # same days drawn for both arrays
        assert (np.diff(a) >= 0).all()  # temporal order kept


def test_bootstrap_days_is_seeded_and_accepts_names():
    x = np.array([1.0, 3.0, 2.0, 5.0, 4.0, 6.0, NAN, 8.0])
    one = bootstrap_days("ols_slope", x, n_resamples=4, rng=np.random.default_rng(5))
    two = bootstrap_days(ols_slope, x, n_resamples=4, rng=np.random.default_rng(5))
    assert [s.slope for s in one] == [s.slope for s in two]
    assert len({s.slope for s in one}) > 1  # resamples differ from each other
    got = bootstrap_days(
        "window_change", x, n_resamples=3, rng=np.random.default_rng(5), edge_days=2, min_count=1
    )
    rng = np.random.default_rng(5)  # same draws, replayed by hand
    expected = [window_change(x[bootstrap_indices(8, rng)], edge_days=2, min_count=1) for _ in range(3)]
    np.testing.assert_array_equal(got, expected)


def test_bootstrap_days_with_dates():
    d = np.arange(np.datetime64("2024-01-30"), np.datetime64("2024-02-03"))
    out = bootstrap_days(period_aggregate, np.ones(4), d, n_resamples=3, rng=np.random.default_rng(0))
    assert all(t.counts.sum() == 4 for t in out)  # repeated dates are fine


def test_bootstrap_days_bad_arguments():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="aligned"):
        bootstrap_days(ols_slope, np.ones(3), np.ones(4), rng=rng)
    with pytest.raises(ValueError, match="at least one"):
        bootstrap_days(ols_slope, rng=rng)
    with pytest.raises(ValueError, match="n_resamples"):
        bootstrap_days(ols_slope, np.ones(3), n_resamples=0, rng=rng)
    with pytest.raises(ValueError, match="Generator"):
        bootstrap_days(ols_slope, np.ones(3), rng=0)  # type: ignore[arg-type]
    with pytest.raises(UnknownNameError, match="ols_slope"):
        bootstrap_days("ols_slop", np.ones(3), rng=rng)


def test_leave_one_day_out_hand_computed():
    # [1, NaN, 3]: day1 is already missing and skipped; dropping day0 leaves [3], dropping day2 leaves [1]
    out = leave_one_day_out(lambda a: float(np.nanmean(a)), np.array([1.0, NAN, 3.0]))
    assert out == [3.0, 1.0]


def test_leave_one_day_out_keeps_calendar_and_dates():
    x = np.array([1, 2, 3, 4])  # integer input is converted to float so a day can be NaN
    d = np.arange(np.datetime64("2024-01-29"), np.datetime64("2024-02-02"))
    seen = leave_one_day_out(lambda a, b: (a, b), x, d)
    assert len(seen) == 4
    for day, (a, b) in enumerate(seen):
        assert len(a) == 4
        assert np.isnan(a[day])
        assert np.isnan(a).sum() == 1
        np.testing.assert_array_equal(b, d)
    np.testing.assert_array_equal(x, [1, 2, 3, 4])  # input untouched


def test_leave_one_day_out_observed_in_any_array():
    x = np.array([1.0, NAN, NAN])
    y = np.array([NAN, 2.0, NAN])
    seen = leave_one_day_out(lambda a, b: (a.copy(), b.copy()), x, y)
    assert len(seen) == 2  # day 2 is missing in both arrays


def test_leave_one_day_out_by_name():
    x = np.array([1.0, 2.0, 3.0, 10.0, 11.0, 12.0])
    # dropping day0: first edge [2, 3] mean 2.5 -> 11 - 2.5 = 8.5; dropping day5: 10.5 - 2 = 8.5
    out = leave_one_day_out("window_change", x, edge_days=3, min_count=2)
    assert out[0] == 8.5
    assert out[5] == 8.5
    assert out[1] == window_change(np.array([1.0, NAN, 3.0, 10.0, 11.0, 12.0]), edge_days=3, min_count=2)
