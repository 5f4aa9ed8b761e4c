"""Pure numpy kernels for the consensus CGM metrics of one subject.

Every kernel takes plain arrays: ``glucose`` (float64, mg/dL, finite, > 0) and, where time
matters, ``t_ns`` (int64 nanoseconds of naive local wall-clock time, sorted ascending). They
return a float (NaN when the metric is undefined) and never warn. The grid-based kernels
(:func:`conga`, :func:`modd`, :func:`mage_ma`) reproduce iglu's ``CGMS2DayByDay`` interpolation
so that they agree with iglu-python 0.4.3 (and the iglu R package it ports).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

_NS_PER_MIN = 60_000_000_000
_NS_PER_DAY = 24 * 60 * _NS_PER_MIN
_NAN = float("nan")


def mean(glucose: FloatArray) -> float:
    """Mean glucose, mg/dL (Danne et al. 2017 international consensus on CGM use)."""
    return float(np.mean(glucose)) if glucose.size else _NAN


def sd(glucose: FloatArray) -> float:
    """Sample standard deviation (ddof = 1) of glucose, mg/dL (Danne et al. 2017)."""
    return float(np.std(glucose, ddof=1)) if glucose.size >= 2 else _NAN


def cv(glucose: FloatArray) -> float:
    """Coefficient of variation, % = 100 · SD / mean (Danne et al. 2017; target ≤ 36 %)."""
    m, s = mean(glucose), sd(glucose)
    return 100.0 * s / m if np.isfinite(s) and m != 0 else _NAN


def gmi(glucose: FloatArray) -> float:
    """Glucose Management Indicator, % = 3.31 + 0.02392 · mean mg/dL (Bergenstal et al. 2018)."""
    return 3.31 + 0.02392 * mean(glucose)


def percent_in_range(glucose: FloatArray, low: float, high: float) -> float:
    """Share of readings with ``low ≤ glucose ≤ high`` mg/dL, % of readings (Battelino et al. 2019)."""
    if not glucose.size:
        return _NAN
    return 100.0 * float(np.count_nonzero((glucose >= low) & (glucose <= high))) / glucose.size


def percent_below(glucose: FloatArray, threshold: float) -> float:
    """Share of readings strictly below ``threshold`` mg/dL, % of readings (Battelino et al. 2019)."""
    if not glucose.size:
        return _NAN
    return 100.0 * float(np.count_nonzero(glucose < threshold)) / glucose.size


def percent_above(glucose: FloatArray, threshold: float) -> float:
    """Share of readings strictly above ``threshold`` mg/dL, % of readings (Battelino et al. 2019)."""
    if not glucose.size:
        return _NAN
    return 100.0 * float(np.count_nonzero(glucose > threshold)) / glucose.size


def _risk(glucose: FloatArray) -> FloatArray:
    """Kovatchev et al. 1997 symmetrised glucose scale f(BG) = 1.509 · (ln(BG)^1.084 − 5.381), BG mg/dL."""
    out: FloatArray = 1.509 * (np.log(glucose) ** 1.084 - 5.381)
    return out


def lbgi(glucose: FloatArray) -> float:
    """Low Blood Glucose Index: 10 · Σ min(f, 0)² over readings < 112.5 mg/dL, / n (Kovatchev et al. 1998).

    Unitless. ``f`` is :func:`_risk`; the sum is divided by all ``n`` readings (as iglu does).
    """
    if not glucose.size:
        return _NAN
    f = np.minimum(_risk(glucose), 0.0)
    return 10.0 * float(np.sum(f[glucose < 112.5] ** 2)) / glucose.size


def hbgi(glucose: FloatArray) -> float:
    """High Blood Glucose Index: 10 · Σ max(f, 0)² over readings ≥ 112.5 mg/dL, / n (Kovatchev et al. 2006).

    Unitless; the sum is divided by all ``n`` readings (as iglu does).
    """
    if not glucose.size:
        return _NAN
    f = np.maximum(_risk(glucose), 0.0)
    return 10.0 * float(np.sum(f[glucose >= 112.5] ** 2)) / glucose.size


def gri(glucose: FloatArray) -> float:
    """Glycemia Risk Index (Klonoff et al. 2023), 0–100.

    GRI = 3.0 · %<54 + 2.4 · %54–69 + 1.6 · %>250 + 0.8 · %181–250, capped at 100; the
    percentages are reading counts with the TBR/TAR thresholds of Battelino et al. 2019.
    """
    if not glucose.size:
        return _NAN
    b54, b70 = percent_below(glucose, 54.0), percent_below(glucose, 70.0)
    a180, a250 = percent_above(glucose, 180.0), percent_above(glucose, 250.0)
    return min(3.0 * b54 + 2.4 * (b70 - b54) + 1.6 * a250 + 0.8 * (a180 - a250), 100.0)


def sufficiency(t_ns: IntArray) -> tuple[float, float, float]:
    """Data sufficiency on the inferred regular grid (iglu ``active_percent``, automatic range).

    The sampling interval ``dt`` is the median gap between readings rounded to whole minutes
    (at least 1). Over the span from first to last reading ``round(span / dt) + 1`` readings are
    expected; every gap longer than ``dt`` misses ``(gap − dt) / dt`` of them (summed over the
    gaps, then rounded). Sufficiency is ``(expected − missing) / expected``. Battelino et al. 2019
    ask for ≥ 70 % of the expected readings (over 14 days).

    Returns:
        ``(sufficiency 0–1, dt in minutes, days spanned = span / 1440 minutes)``; all NaN with
        fewer than two distinct reading times.
    """
    if t_ns.size < 2 or t_ns[-1] == t_ns[0]:
        return _NAN, _NAN, _NAN
    gaps = np.diff(t_ns).astype(np.float64) / 1e9 / 60.0
    dt = max(1, round(float(np.median(gaps))))
    span = float(t_ns[-1] - t_ns[0]) / 1e9 / 60.0
    expected = round(span / dt) + 1
    long_gaps = gaps[gaps > dt]
    missing = round((float(np.sum(long_gaps)) - long_gaps.size * dt) / dt)
    return (expected - missing) / expected, float(dt), span / 1440.0


def grid_step_minutes(t_ns: IntArray) -> int:
    """Grid step as iglu infers it: the most common gap between readings, in whole minutes (truncated).

    Zero gaps (duplicate times) are ignored and the step is at least 1 minute (iglu would fail).
    Returns 0 with fewer than two distinct times.
    """
    gaps = np.diff(t_ns)
    gaps = gaps[gaps > 0]
    if not gaps.size:
        return 0
    values, counts = np.unique(gaps.astype(np.float64) / 1e9 / 60.0, return_counts=True)
    return max(1, int(values[int(np.argmax(counts))]))


def day_grid(t_ns: IntArray, glucose: FloatArray, dt0: int, inter_gap: float = 45.0) -> FloatArray:
    """Glucose linearly interpolated onto iglu's day-by-day grid (``CGMS2DayByDay``, R-compatible mode).

    The grid runs from midnight before the first reading (exclusive) to midnight after the last
    (inclusive) every ``dt0`` minutes. Grid points outside the readings, and grid points inside a
    gap of more than ``inter_gap`` minutes between two readings, are NaN. Flattened, mg/dL.
    """
    start = int(t_ns[0]) - int(t_ns[0]) % _NS_PER_DAY
    last = int(t_ns[-1])
    end = last if last % _NS_PER_DAY == 0 else last - last % _NS_PER_DAY + _NS_PER_DAY
    n_grid = (end - start) // (dt0 * _NS_PER_MIN)
    grid_x = np.arange(1, n_grid + 1, dtype=np.float64) * dt0
    rel = t_ns - start
    # whole seconds exactly, then the fraction: matches pandas' total_seconds() for any span
    secs = (rel // 1_000_000_000).astype(np.float64) + (rel % 1_000_000_000).astype(np.float64) / 1e9
    out: FloatArray = np.interp(grid_x, secs / 60.0, glucose, left=np.nan, right=np.nan)
    gap = np.flatnonzero(np.diff(t_ns).astype(np.float64) / 1e9 > inter_gap * 60.0)
    if gap.size:
        lo = np.floor(secs[gap] / (60.0 * dt0)).astype(np.int64)
        hi = np.floor((secs[gap + 1] - 1.0) / (60.0 * dt0)).astype(np.int64)
        keep = hi > lo
        marks = np.zeros(n_grid + 1, dtype=np.int64)
        np.add.at(marks, np.minimum(lo[keep], n_grid), 1)
        np.add.at(marks, np.minimum(hi[keep], n_grid), -1)
        out[np.cumsum(marks)[:n_grid] > 0] = np.nan
    return out


def conga(t_ns: IntArray, glucose: FloatArray, hours: int = 1) -> float:
    """CONGA-n (McDonnell et al. 2005): SD (ddof = 1) of differences ``hours`` apart on the grid, mg/dL.

    Uses :func:`day_grid` with iglu's step and 45-minute interpolation limit; differences that
    touch a gap (NaN) are dropped, as in iglu's ``conga``. NaN with fewer than two differences.
    """
    dt0 = grid_step_minutes(t_ns)
    if dt0 == 0:
        return _NAN
    lag = round(60 / dt0) * hours
    grid = day_grid(t_ns, glucose, dt0)
    if lag <= 0 or lag >= grid.size:
        return _NAN
    diffs = grid[lag:] - grid[:-lag]
    diffs = diffs[~np.isnan(diffs)]
    return float(np.std(diffs, ddof=1)) if diffs.size >= 2 else _NAN


def modd(t_ns: IntArray, glucose: FloatArray, lag_days: int = 1) -> float:
    """MODD (Molnar et al. 1972; Service & Nelson 1980): mean |G(t) − G(t − 24 h)| on the grid, mg/dL.

    Uses :func:`day_grid` as iglu's ``modd`` does; pairs that touch a gap are dropped.
    """
    dt0 = grid_step_minutes(t_ns)
    if dt0 == 0:
        return _NAN
    shift = int(lag_days * 24 * 60 / dt0)
    grid = day_grid(t_ns, glucose, dt0)
    if shift >= grid.size:
        return _NAN
    diffs = np.abs(grid[shift:] - grid[:-shift])
    diffs = diffs[~np.isnan(diffs)]
    return float(np.mean(diffs)) if diffs.size else _NAN


def rolling_mean(values: FloatArray, window: int) -> FloatArray:
    """Trailing moving average over ``window`` points ignoring NaN, bit-identical to pandas.

    ``pd.Series(values).rolling(window, min_periods=1).mean()``: an online Kahan sum with
    separate add/remove compensation, a window of equal values giving exactly that value, and
    NaN for an all-NaN window. MAGE's peak finding depends on the *sign* of the difference of
    two such averages (zero counts as no crossing), so the float operations are reproduced
    exactly rather than approximated by a vectorised window sum.
    """
    out: FloatArray = np.full(values.size, np.nan)
    vals = values.tolist()
    total = comp_add = comp_remove = 0.0
    nobs = neg_ct = same = 0
    prev = vals[0] if vals else 0.0
    for i, val in enumerate(vals):
        if i >= window:
            old = vals[i - window]
            if old == old:
                nobs -= 1
                y = -old - comp_remove
                t = total + y
                comp_remove = t - total - y
                total = t
                neg_ct -= math.copysign(1.0, old) < 0
        if val == val:
            nobs += 1
            y = val - comp_add
            t = total + y
            comp_add = t - total - y
            total = t
            neg_ct += math.copysign(1.0, val) < 0
            same = same + 1 if val == prev else 1
            prev = val
        if nobs > 0:
            result = total / nobs
            if same >= nobs:
                result = prev
            elif (neg_ct == 0 and result < 0) or (neg_ct == nobs and result > 0):
                result = 0.0
            out[i] = result
    return out


def _crossings(gl: FloatArray, delta: FloatArray) -> tuple[list[int], list[int]]:
    """Crossing points of the short and long moving averages (iglu ``_find_crossing_points``).

    Types: 0 = relative minimum follows, 1 = relative maximum follows.
    """
    n = delta.size
    ids, types = [0], [1 if delta[0] > 0 else 0]
    d = np.where(delta == 0, np.nan, delta)
    ok = ~np.isnan(gl) & ~np.isnan(d)
    okd = ~np.isnan(d)
    for i in range(1, n):
        if ok[i] and ok[i - 1] and okd[i - 1]:
            if d[i] * d[i - 1] < 0:
                ids.append(i)
                types.append(0 if d[i] < d[i - 1] else 1)
        elif okd[i]:
            prev = d[ids[-1]]
            if d[i] * prev < 0:
                ids.append(i)
                types.append(0 if d[i] < prev else 1)
    ids.append(n - 1)
    types.append(1 if d[-1] > 0 else 0)
    return ids, types


def _extrema(gl: FloatArray, ids: list[int], types: list[int]) -> FloatArray:
    """Glucose at the nadir/peak between successive crossings (iglu ``_calculate_extrema``)."""
    values: list[float] = []
    s1 = ids[0]
    for i in range(len(ids) - 1):
        seg = gl[s1 : ids[i + 1] + 1]
        k = int(np.nanargmin(seg)) if types[i] == 0 else int(np.nanargmax(seg))
        values.append(float(seg[k]))
        s1 += k
    return np.asarray(values, dtype=np.float64)


def _excursions(minmax: FloatArray, sd_: float, plus: bool) -> list[float]:
    """Heights (mg/dL, positive) of the countable excursions (> 1 SD) between extrema.

    A direct port of iglu's ``calculate_mage_plus``/``calculate_mage_minus`` (MAGE+ rises
    nadir → peak, MAGE− falls peak → nadir); a fall is handled as a rise of −glucose.
    """
    sign = 1.0 if plus else -1.0
    x = sign * minmax  # a fall in minmax is a rise in -minmax
    n = x.size
    heights: list[float] = []
    j = prev_j = 0
    while j < n:
        delta = x[j] - x[prev_j : j + 1]
        i = int(np.argmax(delta)) + prev_j
        if delta[i - prev_j] > sd_:
            k = j
            while k < n:
                if x[k] >= x[j]:
                    j = k
                if x[k] - x[j] < -sd_ or k == n - 1:
                    heights.append(float(x[j] - x[i]))
                    prev_j = k if plus else j
                    j = k
                    break
                k += 1
        else:
            j += 1
    return heights


def _mage_segment(gl: FloatArray, short_ma: int, long_ma: int) -> list[float]:
    """MAGE+ and MAGE− of one gap-free segment (iglu ``mage_atomic``); empty when undefined."""
    n = gl.size
    ma_s, ma_l = rolling_mean(gl, short_ma), rolling_mean(gl, long_ma)
    ma_s[:short_ma] = ma_s[-1] if short_ma > n else ma_s[short_ma - 1]
    ma_l[:long_ma] = ma_l[-1] if long_ma > n else ma_l[long_ma - 1]
    valid = gl[~np.isnan(gl)]
    if not valid.size or n < 7 or n < short_ma or (valid.size >= 2 and float(np.std(valid, ddof=1)) < 1):
        return []
    ids, types = _crossings(gl, ma_s - ma_l)
    minmax = _extrema(gl, ids, types)
    sd_ = float(np.std(valid, ddof=1)) if valid.size >= 2 else _NAN
    plus = _excursions(minmax, sd_, plus=True)
    minus = _excursions(minmax, sd_, plus=False)
    return [float(np.mean(h)) for h in (plus, minus) if h]


def mage_ma(
    t_ns: IntArray,
    glucose: FloatArray,
    short_ma: int = 5,
    long_ma: int = 32,
    inter_gap: float = 45.0,
    max_gap: float = 180.0,
) -> float:
    """MAGE by the moving-average algorithm (Fernandes et al. 2022; iglu's default ``version="ma"``), mg/dL.

    Emulates Service et al. 1970: glucose on a 5-minute :func:`day_grid` (interpolating gaps up to
    ``inter_gap`` minutes), split into segments at gaps over ``max_gap`` minutes; in each segment
    the crosses of a ``short_ma``- and a ``long_ma``-point moving average bracket the peaks and
    nadirs, and excursions larger than the segment's SD count. MAGE+ and MAGE− (means of the
    rises and falls) are averaged with weights equal to segment durations (iglu
    ``direction="avg"``). NaN when no segment has a countable excursion.
    """
    if np.unique(t_ns).size < 2:
        return _NAN
    if short_ma >= long_ma:
        short_ma, long_ma = long_ma, short_ma
    grid = day_grid(t_ns, glucose, 5, inter_gap)
    valid = np.flatnonzero(~np.isnan(grid))
    if not valid.size:
        return _NAN
    breaks = valid[1:][np.diff(valid) * 5 > max_gap]
    starts = np.concatenate([[valid[0]], breaks])
    ends = np.concatenate([valid[:-1][np.diff(valid) * 5 > max_gap], [valid[-1]]])
    num = den = 0.0
    for s, e in zip(starts.tolist(), ends.tolist(), strict=True):
        duration = float((e - s) * 5)
        for value in _mage_segment(grid[s : e + 1], short_ma, long_ma):
            num += value * duration
            den += duration
    return num / den if den > 0 else _NAN
