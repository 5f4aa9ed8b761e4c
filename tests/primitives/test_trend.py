"""Tests for ols_slope / theil_sen_slope / window_change."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from wearbench.primitives import ols_slope, theil_sen_slope, window_change

NAN = math.nan

series = st.lists(st.one_of(st.none(), st.integers(-30, 30).map(float)), min_size=0, max_size=40).map(
    lambda xs: np.array([NAN if v is None else v for v in xs], dtype=np.float64)
)
prop = settings(max_examples=50, deadline=None, derandomize=True)


def test_ols_hand_computed():
    # y = [1, 2, 2, 5] at x = 0..3: xbar 1.5, ybar 2.5, Sxy 6, Sxx 5 -> slope 1.2, intercept 0.7
    # fitted [0.7, 1.9, 3.1, 4.3], residuals [.3, .1, -1.1, .7], SSR 1.8 -> SE sqrt(0.9 / 5) = 0.42426
    # t(0.975, df 2) = 4.302653 -> half-width 1.82543
    s = ols_slope([1.0, 2.0, 2.0, 5.0])
    assert s.slope == pytest.approx(1.2)
    assert s.intercept == pytest.approx(0.7)
    assert s.n == 4
    assert s.lo == pytest.approx(1.2 - 4.302653 * math.sqrt(0.18), rel=1e-6)
    assert s.hi == pytest.approx(1.2 + 4.302653 * math.sqrt(0.18), rel=1e-6)


def test_ols_exact_fit_with_gap():
    # days 0, 2, 3 hold 1, 5, 7 (day 1 missing): y = 1 + 2 x exactly -> CI collapses onto the slope
    s = ols_slope([1.0, NAN, 5.0, 7.0])
    assert (s.n, s.slope, s.intercept) == (3, pytest.approx(2.0), pytest.approx(1.0))
    assert s.lo == pytest.approx(2.0)
    assert s.hi == pytest.approx(2.0)


def test_ols_wider_alpha_narrows_ci():
    x = [1.0, 2.0, 2.0, 5.0, 4.0]
    wide, narrow = ols_slope(x, alpha=0.01), ols_slope(x, alpha=0.5)
    assert wide.lo < narrow.lo < narrow.slope < narrow.hi < wide.hi


def test_theil_sen_hand_computed():
    # pairwise slopes of [1, 2, 2, 5]: (0,1) 1, (0,2) .5, (0,3) 4/3, (1,2) 0, (1,3) 1.5, (2,3) 3
    # sorted [0, .5, 1, 4/3, 1.5, 3] -> median (1 + 4/3) / 2 = 7/6; intercept 2 - 7/6 * 1.5 = 0.25
    s = theil_sen_slope([1.0, 2.0, 2.0, 5.0])
    assert s.slope == pytest.approx(7 / 6)
    assert s.intercept == pytest.approx(0.25)
    assert s.n == 4


def test_theil_sen_ignores_outlier():
    # every pair not involving day 4 has slope 1; median of 10 slopes stays 1
    assert theil_sen_slope([0.0, 1.0, 2.0, 3.0, 100.0]).slope == 1.0
    # OLS is pulled: dx [-2, -1, 0, 1, 2], Sxy = -1 + 3 + 200 = 202, Sxx = 10 -> 20.2
    assert ols_slope([0.0, 1.0, 2.0, 3.0, 100.0]).slope == pytest.approx(20.2)


@pytest.mark.parametrize("fn", [ols_slope, theil_sen_slope])
@pytest.mark.parametrize("x", [[], [1.0], [1.0, 2.0], [NAN] * 6, [1.0, NAN, NAN, 2.0]])
def test_fewer_than_three_points_is_nan(fn, x):
    s = fn(x)
    assert s.n == sum(not math.isnan(v) for v in x)
    assert all(math.isnan(v) for v in (s.slope, s.lo, s.hi, s.intercept))


@pytest.mark.parametrize("fn", [ols_slope, theil_sen_slope])
def test_constant_series_has_zero_slope(fn):
    s = fn([4.0, 4.0, NAN, 4.0, 4.0])
    assert (s.slope, s.lo, s.hi, s.intercept) == (0.0, 0.0, 0.0, 4.0)


@pytest.mark.parametrize("fn", [ols_slope, theil_sen_slope])
@pytest.mark.parametrize("alpha", [0.0, 1.0, -0.1, 2.0])
def test_bad_alpha_raises(fn, alpha):
    with pytest.raises(ValueError, match="alpha"):
        fn([1.0, 2.0, 3.0], alpha=alpha)


@prop
@given(y=series, alpha=st.sampled_from([0.05, 0.1, 0.32]))
def test_ols_matches_scipy_linregress(y, alpha):
    keep = ~np.isnan(y)
    s = ols_slope(y, alpha=alpha)
    if keep.sum() < 3:
        assert math.isnan(s.slope)
        return
    if np.ptp(y[keep]) == 0:  # scipy leaves the SE of a constant series undefined; ours is an exact fit
        assert (s.slope, s.lo, s.hi) == (0.0, 0.0, 0.0)
        return
    ref = stats.linregress(np.flatnonzero(keep), y[keep])
    half = stats.t.ppf(1 - alpha / 2, keep.sum() - 2) * ref.stderr
    assert s.slope == pytest.approx(ref.slope, abs=1e-9)
    assert s.intercept == pytest.approx(ref.intercept, abs=1e-9)
    assert s.lo == pytest.approx(ref.slope - half, abs=1e-9)
    assert s.hi == pytest.approx(ref.slope + half, abs=1e-9)


@prop
@given(y=series, alpha=st.sampled_from([0.05, 0.1, 0.32]))
def test_theil_sen_matches_scipy(y, alpha):
    keep = ~np.isnan(y)
    s = theil_sen_slope(y, alpha=alpha)
    if keep.sum() < 3:
        assert math.isnan(s.slope)
        return
    ref = stats.theilslopes(y[keep], np.flatnonzero(keep).astype(float), alpha=1 - alpha, method="separate")
    assert s.n == keep.sum()
    assert s.slope == pytest.approx(ref.slope, abs=1e-12)
    assert s.intercept == pytest.approx(ref.intercept, abs=1e-9)
    assert s.lo == pytest.approx(ref.low_slope, abs=1e-12)
    assert s.hi == pytest.approx(ref.high_slope, abs=1e-12)


@prop
@given(y=series)
def test_theil_sen_matches_pairwise_loop(y):
    pts = [(i, v) for i, v in enumerate(y) if not math.isnan(v)]
    if len(pts) < 3:
        return
    slopes = sorted((b[1] - a[1]) / (b[0] - a[0]) for k, a in enumerate(pts) for b in pts[k + 1 :])
    assert theil_sen_slope(y).slope == pytest.approx(float(np.median(slopes)), abs=1e-12)


# --- window_change -------------------------------------------------------------------------


def test_window_change_hand_computed():
    # first 3 days mean 2, last 3 days mean 11 -> +9
    assert window_change([1.0, 2.0, 3.0, 10.0, 11.0, 12.0], edge_days=3, min_count=2) == 9.0
    # middle days are ignored
    assert window_change([1.0, 2.0, 3.0, 99.0, 10.0, 11.0, 12.0], edge_days=3, min_count=2) == 9.0


def test_window_change_gaps_and_min_count():
    x = [1.0, NAN, 3.0, 10.0, NAN, NAN]  # first edge [1, 3] mean 2; last edge [10] only
    assert math.isnan(window_change(x, edge_days=3, min_count=2))
    assert window_change(x, edge_days=3, min_count=1) == 8.0


@pytest.mark.parametrize("x", [[], [1.0], [1.0] * 5, [NAN] * 20])
def test_window_change_undefined(x):
    # empty, one point, shorter than 2 * edge_days (edges would overlap), all missing
    assert math.isnan(window_change(x, edge_days=3, min_count=1))


def test_window_change_bad_parameters():
    with pytest.raises(ValueError, match="min_count"):
        window_change([1.0] * 10, edge_days=3, min_count=4)
    with pytest.raises(ValueError, match="edge_days"):
        window_change([1.0] * 10, edge_days=0)
