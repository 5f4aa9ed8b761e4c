"""Tests for lagged_correlation / argmax_pair."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from wearbench.primitives import argmax_pair, lagged_correlation
from wearbench.primitives._correlation import _best

NAN = math.nan
prop = settings(max_examples=50, deadline=None, derandomize=True)

pairs = st.integers(0, 40).flatmap(
    lambda n: st.tuples(
        st.lists(st.one_of(st.none(), st.integers(-5, 5)), min_size=n, max_size=n),
        st.lists(st.one_of(st.none(), st.integers(-5, 5)), min_size=n, max_size=n),
    )
)


def to_array(xs):
    return np.array([NAN if v is None else float(v) for v in xs], dtype=np.float64)


# y[t + 1] = x[t] for t < 5, so x leads y by one day.
X = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
Y = [9.0, 1.0, 2.0, 3.0, 4.0, 5.0]


def test_hand_computed_lags():
    # L=+1: pairs (x[t], y[t+1]) = (1,1) .. (5,5) -> r = 1
    # L=0: x 1..6, y [9,1,2,3,4,5]: dx [-2.5..2.5], dy [5,-3,-2,-1,0,1]; Sxy -5, Sxx 17.5, Syy 40
    #      -> r = -5 / sqrt(700) = -0.18898
    # L=-1: pairs (x[t], y[t-1]): x 2..6, y [9,1,2,3,4]; Sxy -8, Sxx 10, Syy 38.8 -> r = -8 / sqrt(388)
    lc = lagged_correlation(X, Y, max_lag=1, min_overlap=3)
    np.testing.assert_array_equal(lc.lags, [-1, 0, 1])
    np.testing.assert_allclose(lc.r, [-8 / math.sqrt(388), -5 / math.sqrt(700), 1.0])
    np.testing.assert_array_equal(lc.n, [5, 6, 5])
    assert lc.best_lag == 1  # positive lag: x leads y
    assert lc.best_r == pytest.approx(1.0)


def test_swapping_inputs_negates_the_lag():
    lc = lagged_correlation(Y, X, max_lag=1, min_overlap=3)
    assert lc.best_lag == -1
    np.testing.assert_allclose(lc.r, lagged_correlation(X, Y, max_lag=1, min_overlap=3).r[::-1])


def test_spearman_hand_computed():
    # x vs x^2 is monotone: Spearman 1; Pearson = 60 / sqrt(10 * 374) = 0.98110
    x, y = [1.0, 2.0, 3.0, 4.0, 5.0], [1.0, 4.0, 9.0, 16.0, 25.0]
    assert lagged_correlation(x, y, max_lag=0, method="spearman", min_overlap=3).r[0] == pytest.approx(1.0)
    assert lagged_correlation(x, y, max_lag=0, min_overlap=3).r[0] == pytest.approx(60 / math.sqrt(3740))


def test_spearman_ties_use_average_ranks():
    # ranks x [1, 2.5, 2.5, 4], y [1, 2, 3, 4]: Sxy 4.5, Sxx 4.5, Syy 5 -> r = 4.5 / sqrt(22.5) = 0.94868
    lc = lagged_correlation(
        [1.0, 2.0, 2.0, 3.0], [1.0, 2.0, 3.0, 4.0], max_lag=0, method="spearman", min_overlap=3
    )
    assert lc.r[0] == pytest.approx(4.5 / math.sqrt(22.5))


def test_spearman_ranks_only_the_pairs_used():
    # the NaN in y drops pair 2 and x=100 must not keep rank 5 among the 4 remaining pairs
    x = [1.0, 2.0, 100.0, 3.0, 4.0]
    y = [4.0, 3.0, NAN, 2.0, 1.0]
    lc = lagged_correlation(x, y, max_lag=0, method="spearman", min_overlap=3)
    assert lc.r[0] == pytest.approx(-1.0)
    assert lc.n[0] == 4


def test_gaps_drop_pairs_and_min_overlap():
    x = [1.0, 2.0, NAN, 4.0, 5.0]
    y = [2.0, 4.0, 6.0, NAN, 10.0]
    lc = lagged_correlation(x, y, max_lag=0, min_overlap=3)  # pairs (1,2), (2,4), (5,10): n=3, r=1
    assert (lc.n[0], lc.r[0]) == (3, pytest.approx(1.0))
    assert math.isnan(lagged_correlation(x, y, max_lag=0, min_overlap=4).r[0])


@pytest.mark.parametrize(
    ("x", "y"),
    [([], []), ([1.0], [2.0]), ([NAN] * 10, [1.0] * 10), ([3.0] * 10, list(map(float, range(10))))],
)
def test_undefined_everywhere(x, y):
    # empty, one point, all missing, constant side
    lc = lagged_correlation(x, y, max_lag=2, min_overlap=2)
    assert np.isnan(lc.r).all()
    assert lc.best_lag is None
    assert math.isnan(lc.best_r)
    np.testing.assert_array_equal(lc.lags, [-2, -1, 0, 1, 2])


def test_best_lag_tie_breaking():
    lags = np.array([-2, -1, 0, 1, 2])
    assert _best(lags, np.array([0.5, 0.1, 0.2, 0.1, -0.5])) == (-2, 0.5)  # same |lag| -> smaller lag
    assert _best(lags, np.array([0.5, 0.1, 0.2, -0.5, 0.1])) == (1, -0.5)  # smaller |lag| wins a |r| tie
    assert _best(lags, np.array([0.5, 0.1, -0.5, -0.5, 0.5])) == (0, -0.5)
    assert _best(lags, np.array([NAN, 0.3, NAN, -0.3, NAN])) == (-1, 0.3)
    assert _best(lags, np.array([0.2, NAN, 0.1, -0.4, NAN])) == (1, -0.4)  # largest |r|, sign kept
    best_lag, best_r = _best(lags, np.full(5, NAN))
    assert best_lag is None
    assert math.isnan(best_r)


def test_bad_inputs_raise():
    with pytest.raises(ValueError, match="same length"):
        lagged_correlation([1.0, 2.0], [1.0])
    with pytest.raises(ValueError, match="max_lag"):
        lagged_correlation([1.0], [1.0], max_lag=-1)
    with pytest.raises(ValueError, match="min_overlap"):
        lagged_correlation([1.0], [1.0], min_overlap=1)
    with pytest.raises(ValueError, match="method"):
        lagged_correlation([1.0], [1.0], method="kendall")


@prop
@given(xy=pairs, max_lag=st.integers(0, 4), min_overlap=st.integers(2, 8))
def test_pearson_matches_pandas_shift(xy, max_lag, min_overlap):
    x, y = to_array(xy[0]), to_array(xy[1])
    lc = lagged_correlation(x, y, max_lag=max_lag, min_overlap=min_overlap)
    sx, sy = pd.Series(x), pd.Series(y)
    for lag, r, n in zip(lc.lags, lc.r, lc.n, strict=True):
        shifted = sy.shift(-int(lag))
        assert n == int((sx.notna() & shifted.notna()).sum())
        ref = sx.corr(shifted, min_periods=min_overlap)
        if math.isnan(ref):
            assert math.isnan(r)
        else:
            assert r == pytest.approx(ref, abs=1e-9)


@prop
@given(xy=pairs, max_lag=st.integers(0, 3))
def test_spearman_matches_scipy(xy, max_lag):
    x, y = to_array(xy[0]), to_array(xy[1])
    lc = lagged_correlation(x, y, max_lag=max_lag, method="spearman", min_overlap=3)
    for lag, r in zip(lc.lags, lc.r, strict=True):
        a = x[max(0, -lag) : len(x) - max(0, lag)]
        b = y[max(0, lag) : len(y) - max(0, -lag)]
        keep = ~np.isnan(a) & ~np.isnan(b)
        a, b = a[keep], b[keep]
        if len(a) < 3 or np.ptp(a) == 0 or np.ptp(b) == 0:
            assert math.isnan(r)
        else:
            assert r == pytest.approx(stats.spearmanr(a, b).statistic, abs=1e-9)


@prop
@given(xy=pairs, max_lag=st.integers(0, 3))
def test_best_is_max_abs_r(xy, max_lag):
    lc = lagged_correlation(to_array(xy[0]), to_array(xy[1]), max_lag=max_lag, min_overlap=3)
    finite = ~np.isnan(lc.r)
    if not finite.any():
        assert lc.best_lag is None
        return
    assert abs(lc.best_r) == np.abs(lc.r[finite]).max()
    assert lc.r[list(lc.lags).index(lc.best_lag)] == lc.best_r


# --- argmax_pair ---------------------------------------------------------------------------


def test_argmax_by_abs():
    # |b| = 0.7 beats |a| = 0.5 by 0.2 >= 0.15; NaN c ignored
    w = argmax_pair({"a": 0.5, "b": -0.7, "c": NAN})
    assert (w.winner, w.value, w.runner_up, w.runner_up_value) == ("b", -0.7, "a", 0.5)
    assert w.gap == pytest.approx(0.2)
    assert w.decisive


def test_argmax_signed():
    w = argmax_pair({"a": 0.5, "b": -0.7}, by_abs=False)
    assert (w.winner, w.runner_up, w.gap) == ("a", "b", pytest.approx(1.2))


def test_argmax_not_decisive_below_margin():
    w = argmax_pair({"hrv~rhr": 0.6, "sleep~rhr": 0.5, "steps~rhr": 0.1})
    assert (w.winner, w.runner_up) == ("hrv~rhr", "sleep~rhr")
    assert not w.decisive
    assert argmax_pair({"a": 0.6, "b": 0.5}, margin=0.05).decisive


def test_argmax_tie_broken_by_name_and_not_decisive():
    w = argmax_pair({"b": 0.6, "a": -0.6}, margin=0.0)
    assert (w.winner, w.value, w.runner_up, w.gap, w.decisive) == ("a", -0.6, "b", 0.0, False)


def test_argmax_single_finite_score():
    w = argmax_pair({"x": 0.3, "y": NAN})
    assert (w.winner, w.runner_up, w.gap, w.decisive) == ("x", None, math.inf, True)
    assert math.isnan(w.runner_up_value)


@pytest.mark.parametrize("scores", [{}, {"a": NAN}, {"a": NAN, "b": NAN}])
def test_argmax_needs_a_finite_score(scores):
    with pytest.raises(ValueError, match="at least one finite"):
        argmax_pair(scores)


def test_argmax_rejects_inf_and_bad_margin():
    with pytest.raises(ValueError, match="inf"):
        argmax_pair({"a": math.inf})
    with pytest.raises(ValueError, match="margin"):
        argmax_pair({"a": 0.1}, margin=-0.1)
