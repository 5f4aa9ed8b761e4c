"""Hand-built minute days for each preprocessing rule: one that triggers it, one that does not."""

from __future__ import annotations

import numpy as np
import pytest

from wearbench.tracks import (
    VARIANCE_DDOF,
    low_variance_filter,
    retained_days,
    wear_filter,
    within_day_variance,
    zero_to_nan,
)

N = np.nan


def day() -> np.ndarray:
    """One all-NaN minute day, shape (1, 19, 1440)."""
    return np.full((1, 19, 1440), np.nan, dtype=np.float32)


def alternating(a: float, b: float) -> np.ndarray:
    return np.tile(np.array([a, b], dtype=np.float32), 720)


# --- wear filter ---------------------------------------------------------------------------------


def test_wear_filter_counts_nonwear_minutes() -> None:
    nonwear = np.zeros((4, 1440), dtype=bool)
    nonwear[1, :720] = True  # exactly 720: kept
    nonwear[2, :721] = True  # 721: dropped
    nonwear[3, :] = True  # never worn
    assert wear_filter(nonwear).tolist() == [True, True, False, False]


def test_wear_filter_cutoff_is_a_parameter() -> None:
    nonwear = np.zeros((1, 1440), dtype=bool)
    nonwear[0, :100] = True
    assert wear_filter(nonwear, max_nonwear=99).tolist() == [False]
    assert wear_filter(nonwear, max_nonwear=100).tolist() == [True]


def test_wear_filter_rejects_bad_shape() -> None:
    with pytest.raises(ValueError, match=r"\(n_days, 1440\)"):
        wear_filter(np.zeros((2, 60), dtype=bool))


# --- low-variance filter -------------------------------------------------------------------------


def test_variance_is_sample_variance_over_observed_minutes() -> None:
    x = day()
    x[0, 0, :3] = [0.0, 1.0, 2.0]  # mean 1, squares 1+0+1 = 2; /(3-1) = 1
    x[0, 5, :1] = 60.0  # one observed value: undefined with ddof=1
    var = within_day_variance(x, [0, 5, 3])
    assert VARIANCE_DDOF == 1
    assert var[0, 0] == 1.0
    assert np.isnan(var[0, 1])
    assert np.isnan(var[0, 2])  # all NaN
    assert within_day_variance(x, [0, 5], ddof=0)[0].tolist() == [2 / 3, 0.0]


def test_constant_steps_day_is_removed() -> None:
    x = day()
    x[0, 0, :] = 5.0
    assert low_variance_filter(x).tolist() == [False]


def test_variable_steps_day_is_kept() -> None:
    x = day()
    x[0, 0, :] = alternating(0.0, 4.0)
    assert low_variance_filter(x).tolist() == [True]


@pytest.mark.parametrize("channel", [0, 1, 3, 4, 6])
def test_each_count_channel_is_checked_at_one(channel: int) -> None:
    x = np.repeat(day(), 2, axis=0)
    x[0, channel, :3] = [0.0, 1.0, 2.0]  # variance exactly 1.0: at the threshold, kept
    x[1, channel, :3] = [0.0, 0.5, 1.0]  # variance 0.25: removed
    assert low_variance_filter(x).tolist() == [True, False]


def test_heart_rate_threshold_is_1e_minus_4() -> None:
    x = np.repeat(day(), 3, axis=0)
    x[0, 5, :] = 60.0  # constant HR: variance 0
    x[1, 5, :] = alternating(60.0, 60.01)  # variance ~2.5e-5
    x[2, 5, :] = alternating(60.0, 61.0)  # variance ~0.25
    assert low_variance_filter(x).tolist() == [False, False, True]


def test_all_zero_channel_day_is_not_judged() -> None:
    x = day()
    x[0, 0, :] = 0.0  # phone left at home: variance 0, but zero-to-NaN handles it
    x[0, 0, 5] = np.nan
    assert low_variance_filter(x).tolist() == [True]
    assert low_variance_filter(x, skip_all_zero=False).tolist() == [False]
    x[0, 0, 6] = 0.5  # one nonzero minute: judged, variance ~1.7e-4 < 1
    assert low_variance_filter(x).tolist() == [False]


def test_flights_are_exempt() -> None:
    x = day()
    x[0, 2, :] = 3.0
    assert low_variance_filter(x).tolist() == [True]


def test_nan_variance_never_removes() -> None:
    x = np.repeat(day(), 2, axis=0)  # day 0 all NaN
    x[1, 0, 10] = 7.0  # one observed value: undefined variance
    assert low_variance_filter(x).tolist() == [True, True]
    # with population variance, one observed value has variance 0 and the day goes
    assert low_variance_filter(x, ddof=0).tolist() == [True, False]


def test_thresholds_are_a_parameter() -> None:
    x = day()
    x[0, 0, :] = 5.0
    assert low_variance_filter(x, {}).tolist() == [True]
    assert low_variance_filter(x, {2: 1.0}).tolist() == [True]


def test_low_variance_rejects_bad_shape() -> None:
    with pytest.raises(ValueError, match=r"\(n_days, 19, 1440\)"):
        low_variance_filter(np.zeros((1, 7, 1440), dtype=np.float32))


# --- retained days -------------------------------------------------------------------------------


def test_retained_is_wear_and_low_variance() -> None:
    x = np.repeat(day(), 3, axis=0)
    x[:, 0, :] = alternating(0.0, 4.0)
    x[2, 0, :] = 5.0  # constant: fails low variance
    nonwear = np.zeros((3, 1440), dtype=bool)
    nonwear[1, :800] = True  # fails wear
    assert retained_days(x, nonwear).tolist() == [True, False, False]


def test_retained_rejects_day_count_mismatch() -> None:
    with pytest.raises(ValueError, match="1 days but nonwear has 2"):
        retained_days(day(), np.zeros((2, 1440), dtype=bool))


def test_retained_on_zero_days() -> None:
    assert retained_days(np.zeros((0, 19, 1440)), np.zeros((0, 1440), dtype=bool)).tolist() == []


# --- zero to NaN ---------------------------------------------------------------------------------


def test_zero_heart_rate_becomes_nan() -> None:
    x = day()
    x[0, 5, :4] = [0.0, 60.0, 0.0, 70.0]
    out = zero_to_nan(x)
    np.testing.assert_array_equal(out[0, 5, :4], [N, 60.0, N, 70.0])
    assert np.isnan(x[0, 5, 4:]).all()
    assert x[0, 5, 0] == 0.0  # input untouched


def test_nonzero_heart_rate_is_unchanged() -> None:
    x = day()
    x[0, 5, :] = 55.0
    np.testing.assert_array_equal(zero_to_nan(x), x)


@pytest.mark.parametrize("channel", [0, 1, 3, 4, 6])
def test_all_zero_count_channel_day_becomes_nan(channel: int) -> None:
    x = day()
    x[0, channel, :] = 0.0
    x[0, channel, 100] = np.nan  # observed values all zero
    assert np.isnan(zero_to_nan(x)[0, channel]).all()


def test_count_channel_with_one_nonzero_minute_is_unchanged() -> None:
    x = day()
    x[0, 0, :] = 0.0
    x[0, 0, 500] = 12.0
    out = zero_to_nan(x)
    np.testing.assert_array_equal(out[0, 0], x[0, 0])
    assert (out[0, 0] == 0).sum() == 1439


def test_flights_and_workouts_keep_their_zeros() -> None:
    x = day()
    x[0, 2, :] = 0.0
    x[0, 9:, :] = 0.0
    out = zero_to_nan(x)
    assert (out[0, 2] == 0).all()
    assert (out[0, 9:] == 0).all()


def test_short_sleep_zeros_become_nan_in_both_channels() -> None:
    x = day()
    x[0, 7:9, :] = 0.0
    x[0, 7, :179] = 1.0  # 179 asleep minutes < 180
    x[0, 8, :200] = 1.0
    out = zero_to_nan(x)
    assert (out[0, 7, :179] == 1).all()
    assert np.isnan(out[0, 7, 179:]).all()
    assert (out[0, 8, :200] == 1).all()
    assert np.isnan(out[0, 8, 200:]).all()


def test_sleep_of_exactly_three_hours_keeps_zeros() -> None:
    x = day()
    x[0, 7:9, :] = 0.0
    x[0, 7, 600:780] = 1.0  # 180 minutes
    np.testing.assert_array_equal(zero_to_nan(x)[0, 7:9], x[0, 7:9])


def test_sleep_rule_uses_asleep_not_inbed_minutes() -> None:
    x = day()
    x[0, 7:9, :] = 0.0
    x[0, 8, :600] = 1.0  # 10 h in bed, no asleep minute
    out = zero_to_nan(x)
    assert np.isnan(out[0, 7]).all()
    assert (out[0, 8, :600] == 1).all()
    assert np.isnan(out[0, 8, 600:]).all()


def test_zero_to_nan_on_all_nan_day_is_all_nan() -> None:
    assert np.isnan(zero_to_nan(day())).all()


def test_zero_to_nan_parameters() -> None:
    x = day()
    x[0, 0, :] = 0.0
    x[0, 7, :] = 0.0
    x[0, 7, :60] = 1.0
    out = zero_to_nan(x, zero_day_channels=(), min_sleep_minutes=60)
    np.testing.assert_array_equal(out, x)
