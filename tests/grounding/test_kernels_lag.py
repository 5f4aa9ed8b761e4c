"""``lag_corr_counts``: hand-computed values, and bit-for-bit equality with the previous version.

``_previous`` is the implementation before the centring stopped going through ``np.nanmean``
(kept here as the reference): the new one must give the same bytes. ``_loop`` is a plain
Python loop over pairs, weightings, lags and days (exact sums with ``math.fsum``).
"""

import math
import warnings

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from wearbench.grounding._kernels import _shift, lag_corr_counts

FloatArray = np.ndarray


def _previous(
    x: FloatArray, y: FloatArray, weights: FloatArray, max_lag: int
) -> tuple[FloatArray, FloatArray]:
    lags = np.arange(-max_lag, max_lag + 1, dtype=np.int64)
    with np.errstate(invalid="ignore", divide="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        xc = x - np.nan_to_num(np.nanmean(x, -1, keepdims=True))
        yc = y - np.nan_to_num(np.nanmean(y, -1, keepdims=True))
    ys = _shift(yc, lags)
    xs = np.broadcast_to(xc[:, None, :], ys.shape)
    valid = np.isfinite(xs) & np.isfinite(ys)
    v = valid.astype(np.float64)
    x0, y0 = np.where(valid, xs, 0.0), np.where(valid, ys, 0.0)
    wt = weights.T
    s, sx, sy = v @ wt, x0 @ wt, y0 @ wt
    sxx, syy, sxy = (x0 * x0) @ wt, (y0 * y0) @ wt, (x0 * y0) @ wt
    n_days = v @ (weights > 0).T.astype(np.float64)
    with np.errstate(invalid="ignore", divide="ignore"):
        vx, vy = sxx - sx * sx / s, syy - sy * sy / s
        r = (sxy - sx * sy / s) / np.sqrt(vx * vy)
    ok = (vx > 1e-10 * sxx) & (vy > 1e-10 * syy) & (vx > 0) & (vy > 0)
    return np.where(ok, np.clip(r, -1.0, 1.0), np.nan).transpose(0, 2, 1), n_days.transpose(0, 2, 1)


def _loop(x: FloatArray, y: FloatArray, weights: FloatArray, max_lag: int) -> tuple[FloatArray, FloatArray]:
    (p_n, n), b_n, l_n = x.shape, weights.shape[0], 2 * max_lag + 1
    r, days = np.full((p_n, b_n, l_n), np.nan), np.zeros((p_n, b_n, l_n))
    for p in range(p_n):
        mx = [v for v in x[p] if not math.isnan(v)]
        my = [v for v in y[p] if not math.isnan(v)]
        xc = [v - (math.fsum(mx) / len(mx) if mx else 0.0) for v in x[p]]
        yc = [v - (math.fsum(my) / len(my) if my else 0.0) for v in y[p]]
        for b in range(b_n):
            for k in range(l_n):
                lag = k - max_lag
                pairs = [(xc[t], yc[t + lag], weights[b, t]) for t in range(n) if 0 <= t + lag < n]
                pairs = [(a, c, w) for a, c, w in pairs if not (math.isnan(a) or math.isnan(c))]
                days[p, b, k] = sum(1 for _, _, w in pairs if w > 0)
                s = math.fsum(w for _, _, w in pairs)
                if s == 0:
                    continue
                ax, ay = math.fsum(w * a for a, _, w in pairs) / s, math.fsum(w * c for _, c, w in pairs) / s
                vx = math.fsum(w * (a - ax) ** 2 for a, _, w in pairs)
                vy = math.fsum(w * (c - ay) ** 2 for _, c, w in pairs)
                if vx > 1e-9 * math.fsum(w * a * a for a, _, w in pairs) and vy > 1e-9 * math.fsum(
                    w * c * c for _, c, w in pairs
                ):
                    r[p, b, k] = math.fsum(w * (a - ax) * (c - ay) for a, c, w in pairs) / math.sqrt(vx * vy)
    return r, days


def _same_bytes(a: tuple[FloatArray, FloatArray], b: tuple[FloatArray, FloatArray]) -> None:
    for new, old in zip(a, b, strict=True):
        assert new.shape == old.shape
        assert new.dtype == old.dtype
        assert new.tobytes() == old.tobytes()


def test_hand_computed_lags() -> None:
    x, y = np.array([[1.0, 2.0, 3.0, 4.0]]), np.array([[1.0, 3.0, 2.0, 4.0]])
    r, days = lag_corr_counts(x, y, np.ones((1, 4)), max_lag=4)
    # lag 0: centred x (-1.5,-.5,.5,1.5), y (-1.5,.5,-.5,1.5): 4 / 5; lags ±1: three pairs, 1 / 2;
    # lags ±2: two increasing pairs, 1; lags ±3: one pair, undefined; lag ±4: no pair
    np.testing.assert_allclose(r[0, 0], [np.nan, np.nan, 1.0, 0.5, 0.8, 0.5, 1.0, np.nan, np.nan], atol=1e-12)
    assert days[0, 0].tolist() == [0, 1, 2, 3, 4, 3, 2, 1, 0]


def test_hand_computed_weight_and_gap() -> None:
    x, y = np.array([[1.0, 2.0, 3.0, 4.0]]), np.array([[1.0, 3.0, 2.0, 4.0]])
    r, days = lag_corr_counts(x, y, np.array([[2.0, 1.0, 1.0, 1.0], [1.0, 0.0, 1.0, 1.0]]), max_lag=0)
    # day 0 counted twice = (1,1),(1,1),(2,3),(3,2),(4,4): Σdxdy 5.8, Σdx² = Σdy² = 6.8
    assert abs(r[0, 0, 0] - 29 / 34) < 1e-12
    assert days[0, :, 0].tolist() == [4, 3]
    gap, gap_days = lag_corr_counts(np.array([[1.0, 2.0, np.nan, 4.0]]), y, np.ones((1, 4)), max_lag=0)
    # pairs (1,1),(2,3),(4,4): Σdxdy 39/9, Σdx² = Σdy² = 42/9
    assert abs(gap[0, 0, 0] - 13 / 14) < 1e-12
    assert gap_days[0, 0, 0] == 3


def test_constant_and_all_missing_sides_are_undefined() -> None:
    x = np.array([[5.0, 5.0, 5.0, 5.0, 5.0], [np.nan] * 5])
    y = np.array([[1.0, 2.0, 3.0, 4.0, 5.0]] * 2)
    r, days = lag_corr_counts(x, y, np.ones((1, 5)), max_lag=1)
    assert np.isnan(r).all()
    assert days.tolist() == [[[4, 5, 4]], [[0, 0, 0]]]
    _same_bytes((r, days), _previous(x, y, np.ones((1, 5)), 1))


@st.composite
def _inputs(draw: st.DrawFn) -> tuple[FloatArray, FloatArray, FloatArray, int]:
    rng = np.random.default_rng(draw(st.integers(0, 2**32 - 1)))
    p, n, b = draw(st.integers(1, 4)), draw(st.integers(1, 40)), draw(st.integers(1, 5))
    max_lag = draw(st.integers(0, n + 3))  # lags beyond the series included
    x, y = rng.normal(size=(p, n)) * 10 + 3, rng.normal(size=(p, n))
    if draw(st.booleans()):
        x, y = np.round(x), np.round(y * 3)  # ties and constant runs
    x[rng.random((p, n)) < draw(st.floats(0, 0.9))] = np.nan  # NaN gaps
    y[rng.random((p, n)) < draw(st.floats(0, 0.9))] = np.nan
    kind = draw(st.sampled_from(["ones", "bootstrap", "lodo", "real"]))
    if kind == "ones":
        w = np.ones((b, n))
    elif kind == "bootstrap":
        w = np.zeros((b, n))
        np.add.at(w, (np.arange(b)[:, None], rng.integers(0, n, size=(b, n))), 1.0)
    elif kind == "lodo":
        w = 1.0 - np.eye(n)[: min(b, n)]
    else:
        w = rng.random((b, n)) * (rng.random((b, n)) < 0.8)
    return x, y, w, max_lag


@settings(max_examples=300, deadline=None)
@given(_inputs())
def test_same_bytes_as_previous_version(args: tuple[FloatArray, FloatArray, FloatArray, int]) -> None:
    x, y, w, max_lag = args
    _same_bytes(lag_corr_counts(x, y, w, max_lag=max_lag), _previous(x, y, w, max_lag))


@settings(max_examples=60, deadline=None)
@given(_inputs())
def test_matches_plain_loop(args: tuple[FloatArray, FloatArray, FloatArray, int]) -> None:
    x, y, w, max_lag = args
    r, days = lag_corr_counts(x, y, w, max_lag=max_lag)
    r_ref, days_ref = _loop(x, y, w, max_lag)
    np.testing.assert_array_equal(days, days_ref)
    both = np.isfinite(r) & np.isfinite(r_ref)
    np.testing.assert_allclose(r[both], r_ref[both], rtol=0, atol=1e-9)


def test_typical_build_shapes_same_bytes() -> None:
    rng = np.random.default_rng(7)
    for p, b, n, max_lag in [
        (1, 1, 500, 1),
        (1, 31, 500, 3),
        (1, 3, 365, 3),
        (20, 31, 500, 3),
        (6, 500, 500, 3),
    ]:
        x, y = rng.normal(size=(p, n)), rng.normal(size=(p, n))
        x[:, rng.random(n) < 0.2] = np.nan
        w = rng.integers(0, 3, size=(b, n)).astype(np.float64)
        _same_bytes(lag_corr_counts(x, y, w, max_lag=max_lag), _previous(x, y, w, max_lag))
