"""Tests for rolling_baseline / zscore / robust_zscore."""

from __future__ import annotations

import math
import statistics

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wearbench.primitives import MAD_TO_SD, robust_zscore, rolling_baseline, zscore

NAN = math.nan
SQRT2 = math.sqrt(2.0)

# Daily series with gaps: small integers and halves (exact arithmetic, many ties) or NaN.
series = st.lists(
    st.one_of(st.none(), st.integers(-40, 40).map(lambda v: v / 2)), min_size=0, max_size=60
).map(lambda xs: np.array([NAN if v is None else v for v in xs], dtype=np.float64))
prop = settings(max_examples=50, deadline=None, derandomize=True)


def reference(values, window, min_count, method, include_current):
    """Pure-Python loop: statistics module over each trailing window."""
    centers, scales, counts = [], [], []
    for t in range(len(values)):
        hi = t + 1 if include_current else t
        win = [v for v in values[max(0, hi - window) : hi] if not math.isnan(v)]
        counts.append(len(win))
        if len(win) < min_count:
            centers.append(NAN)
            scales.append(NAN)
        elif method == "mean_sd":
            centers.append(statistics.fmean(win))
            scales.append(statistics.stdev(win) if len(win) >= 2 else NAN)
        else:
            med = statistics.median(win)
            centers.append(med)
            scales.append(MAD_TO_SD * statistics.median([abs(v - med) for v in win]))
    return np.array(centers), np.array(scales), np.array(counts)


# --- hand-computed cases -------------------------------------------------------------------


def test_mean_sd_excludes_today():
    # window=2: day2 sees [2, 4] -> mean 3, sd sqrt(((2-3)^2 + (4-3)^2) / 1) = sqrt(2);
    # day3 sees [4, 6] -> mean 5, sd sqrt(2); day0 has no days, day1 only one (< min_count 2).
    b = rolling_baseline([2.0, 4.0, 6.0, 8.0], window=2, min_count=2)
    np.testing.assert_allclose(b.center, [NAN, NAN, 3.0, 5.0])
    np.testing.assert_allclose(b.scale, [NAN, NAN, SQRT2, SQRT2])
    np.testing.assert_array_equal(b.count, [0, 1, 2, 2])
    # z: day2 (6 - 3) / sqrt(2) = 2.1213; day3 (8 - 5) / sqrt(2) = 2.1213
    np.testing.assert_allclose(
        zscore([2.0, 4.0, 6.0, 8.0], window=2, min_count=2), [NAN, NAN, 3 / SQRT2, 3 / SQRT2]
    )


def test_include_current_shifts_window_by_one_day():
    # day1 sees [2, 4] -> 3; day2 [4, 6] -> 5; day3 [6, 8] -> 7; day0 only [2] (< min_count 2).
    b = rolling_baseline([2.0, 4.0, 6.0, 8.0], window=2, min_count=2, include_current=True)
    np.testing.assert_allclose(b.center, [NAN, 3.0, 5.0, 7.0])
    np.testing.assert_array_equal(b.count, [1, 2, 2, 2])


def test_gap_in_the_middle():
    # values [1, NaN, 3, 5, 100], window 3, min_count 2
    # day3 window [1, NaN, 3] -> n=2, mean 2, sd sqrt(2); median 2, |dev| [1, 1] -> MAD 1
    # day4 window [NaN, 3, 5] -> n=2, mean 4, sd sqrt(2); median 4, MAD 1
    x = [1.0, NAN, 3.0, 5.0, 100.0]
    b = rolling_baseline(x, window=3, min_count=2)
    np.testing.assert_allclose(b.center, [NAN, NAN, NAN, 2.0, 4.0])
    np.testing.assert_allclose(b.scale, [NAN, NAN, NAN, SQRT2, SQRT2])
    np.testing.assert_array_equal(b.count, [0, 1, 1, 2, 2])
    r = rolling_baseline(x, window=3, min_count=2, method="median_mad")
    np.testing.assert_allclose(r.center, [NAN, NAN, NAN, 2.0, 4.0])
    np.testing.assert_allclose(r.scale, [NAN, NAN, NAN, 1.4826, 1.4826])
    # robust z day4 = (100 - 4) / 1.4826 = 64.751; day3 = (5 - 2) / 1.4826 = 2.0235
    np.testing.assert_allclose(
        robust_zscore(x, window=3, min_count=2), [NAN, NAN, NAN, 3 / 1.4826, 96 / 1.4826]
    )


def test_median_mad_resists_outlier():
    # day3 window [1, 2, 10]: median 2, |dev| [1, 0, 8] -> MAD 1 -> scale 1.4826; z = (3 - 2) / 1.4826
    z = robust_zscore([1.0, 2.0, 10.0, 3.0], window=3, min_count=3)
    np.testing.assert_allclose(z, [NAN, NAN, NAN, 1 / 1.4826])


def test_constant_window_gives_exact_zero_scale_and_nan_z():
    # [0.1, 0.1, 0.1] has mean 0.1 exactly and SD 0; a naive two-pass mean is 0.10000000000000002.
    x = [0.1, 0.1, 0.1, 0.2]
    b = rolling_baseline(x, window=3, min_count=2)
    assert b.center[2] == 0.1
    assert b.center[3] == 0.1
    assert b.scale[2] == 0.0
    assert b.scale[3] == 0.0
    assert np.isnan(zscore(x, window=3, min_count=2)[3])  # zero scale -> NaN, no epsilon
    assert np.isnan(robust_zscore(x, window=3, min_count=2)[3])


def test_single_value_window_has_center_but_no_sd():
    b = rolling_baseline([5.0, 7.0], window=3, min_count=1)
    assert b.center[1] == 5.0
    assert np.isnan(b.scale[1])  # SD with ddof=1 of one value is undefined
    m = rolling_baseline([5.0, 7.0], window=3, min_count=1, method="median_mad")
    assert m.scale[1] == 0.0  # MAD of one value is 0


def test_ties_median_of_even_count():
    # day4 window [3, 1, 3, 1]: median (1 + 3) / 2 = 2, |dev| all 1 -> MAD 1
    b = rolling_baseline([3.0, 1.0, 3.0, 1.0, 0.0], window=4, min_count=4, method="median_mad")
    assert b.center[4] == 2.0
    assert b.scale[4] == pytest.approx(1.4826)


# --- edge cases ----------------------------------------------------------------------------


@pytest.mark.parametrize("method", ["mean_sd", "median_mad"])
def test_empty_one_point_all_nan(method):
    empty = rolling_baseline(np.array([]), method=method)
    assert empty.center.shape == empty.scale.shape == empty.count.shape == (0,)
    one = rolling_baseline([3.0], window=2, min_count=1, method=method)
    assert np.isnan(one.center[0])
    assert one.count[0] == 0
    nan = rolling_baseline([NAN] * 5, window=2, min_count=1, method=method)
    assert np.isnan(nan.center).all()
    assert np.isnan(nan.scale).all()
    np.testing.assert_array_equal(nan.count, [0] * 5)
    assert np.isnan(zscore([NAN] * 5, window=2, min_count=1, method=method)).all()


def test_missing_today_gives_nan_z():
    z = zscore([1.0, 2.0, 3.0, NAN], window=3, min_count=2)
    assert np.isnan(z[3])


def test_results_are_read_only_and_input_untouched():
    x = np.array([1.0, 2.0, 4.0, 8.0])
    b = rolling_baseline(x, window=2, min_count=1)
    with pytest.raises(ValueError, match="read-only"):
        b.center[0] = 1.0
    np.testing.assert_array_equal(x, [1.0, 2.0, 4.0, 8.0])


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"window": 0}, "window"),
        ({"window": 3, "min_count": 4}, "min_count"),
        ({"min_count": 0}, "min_count"),
        ({"window": 2.5}, "window"),
        ({"method": "mean"}, "method"),
    ],
)
def test_bad_parameters_raise(kwargs, message):
    with pytest.raises(ValueError, match=message):
        rolling_baseline([1.0, 2.0], **kwargs)


def test_bad_input_raises():
    with pytest.raises(ValueError, match="1-D"):
        rolling_baseline(np.ones((2, 2)))
    with pytest.raises(ValueError, match=r"values\[1\] is inf"):
        zscore([1.0, np.inf])


# --- properties: vectorised kernel vs pure-Python loop and pandas ----------------------------


@prop
@given(
    x=series,
    window=st.integers(1, 10),
    frac=st.floats(0, 1),
    method=st.sampled_from(["mean_sd", "median_mad"]),
    include_current=st.booleans(),
)
def test_matches_python_reference(x, window, frac, method, include_current):
    min_count = max(1, round(frac * window))
    b = rolling_baseline(
        x, window=window, min_count=min_count, method=method, include_current=include_current
    )
    center, scale, count = reference(list(x), window, min_count, method, include_current)
    np.testing.assert_array_equal(b.count, count)
    np.testing.assert_allclose(b.center, center, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(b.scale, scale, rtol=1e-12, atol=1e-12)


@prop
@given(x=series, window=st.integers(2, 10), frac=st.floats(0, 1))
def test_mean_sd_matches_pandas_shifted(x, window, frac):
    min_count = max(2, round(frac * window))
    s = pd.Series(x, dtype="float64")
    roll = s.rolling(window, min_periods=min_count)
    b = rolling_baseline(x, window=window, min_count=min_count)
    np.testing.assert_allclose(b.center, roll.mean().shift(1).to_numpy(), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(b.scale, roll.std().shift(1).to_numpy(), rtol=1e-7, atol=1e-7)


@prop
@given(x=series, window=st.integers(1, 10), frac=st.floats(0, 1))
def test_median_mad_matches_pandas_shifted(x, window, frac):
    min_count = max(1, round(frac * window))
    s = pd.Series(x, dtype="float64")
    roll = s.rolling(window, min_periods=min_count)

    def mad(w):
        w = w[~np.isnan(w)]
        return MAD_TO_SD * np.median(np.abs(w - np.median(w)))

    b = rolling_baseline(x, window=window, min_count=min_count, method="median_mad")
    np.testing.assert_allclose(b.center, roll.median().shift(1).to_numpy(), rtol=1e-12)
    np.testing.assert_allclose(b.scale, roll.apply(mad, raw=True).shift(1).to_numpy(), rtol=1e-12)


@prop
@given(x=series, window=st.integers(2, 8))
def test_zscore_definition(x, window):
    b = rolling_baseline(x, window=window, min_count=2)
    z = zscore(x, window=window, min_count=2)
    for t in range(len(x)):
        if b.scale[t] > 0 and not np.isnan(x[t]):
            assert z[t] == pytest.approx((x[t] - b.center[t]) / b.scale[t], rel=1e-12)
        else:
            assert np.isnan(z[t])
