"""Tests for period_aggregate / weekday_weekend."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wearbench.primitives import period_aggregate, weekday_weekend

NAN = math.nan
prop = settings(max_examples=50, deadline=None, derandomize=True)


def days(start: str, n: int) -> np.ndarray:
    return np.arange(np.datetime64(start), np.datetime64(start) + n)


# 2024-01-29 is a Monday in ISO week 2024-W05; 2024-02-05 starts W06.
D8 = days("2024-01-29", 8)
X8 = np.array([1.0, 2.0, 3.0, NAN, 5.0, 6.0, 7.0, 8.0])


def test_iso_weeks_hand_computed():
    # W05 = Jan 29 .. Feb 4 -> [1, 2, 3, 5, 6, 7] mean 24/6 = 4 (6 days); W06 = Feb 5 -> [8]
    t = period_aggregate(X8, D8, period="week")
    assert t.labels == ("2024-W05", "2024-W06")
    np.testing.assert_array_equal(t.starts, np.array(["2024-01-29", "2024-02-05"], dtype="datetime64[D]"))
    np.testing.assert_array_equal(t.values, [4.0, 8.0])
    np.testing.assert_array_equal(t.counts, [6, 1])


@pytest.mark.parametrize(
    ("stat", "expected"),
    [("mean", [2.0, 6.5]), ("median", [2.0, 6.5]), ("sum", [6.0, 26.0]), ("count", [3.0, 4.0])],
)
def test_months_hand_computed(stat, expected):
    # Jan: [1, 2, 3]; Feb: [NaN, 5, 6, 7, 8] -> 4 days, mean 6.5, median 6.5, sum 26
    t = period_aggregate(X8, D8, period="month", stat=stat)
    assert t.labels == ("2024-01", "2024-02")
    np.testing.assert_array_equal(t.starts, np.array(["2024-01-01", "2024-02-01"], dtype="datetime64[D]"))
    np.testing.assert_array_equal(t.values, expected)
    np.testing.assert_array_equal(t.counts, [3, 4])


def test_min_count_blanks_thin_periods_but_not_counts():
    t = period_aggregate(X8, D8, period="month", min_count=4)
    np.testing.assert_array_equal(t.values, [NAN, 6.5])
    c = period_aggregate(X8, D8, period="month", stat="count", min_count=4)
    np.testing.assert_array_equal(c.values, [3.0, 4.0])


def test_quarter():
    # all 7 observed days are in Q1: (1+2+3+5+6+7+8) / 7 = 32/7
    t = period_aggregate(X8, D8, period="quarter")
    assert t.labels == ("2024-Q1",)
    assert t.starts[0] == np.datetime64("2024-01-01")
    assert t.values[0] == pytest.approx(32 / 7)


def test_iso_year_boundaries():
    # 2020-12-28 (Mon) .. 2021-01-03 (Sun) is 2020-W53; 2024-12-30 (Mon) starts 2025-W01
    assert period_aggregate([1.0], days("2021-01-03", 1), period="week").labels == ("2020-W53",)
    t = period_aggregate(
        [1.0, 2.0], np.array(["2024-12-29", "2024-12-30"], dtype="datetime64[D]"), period="week"
    )
    assert t.labels == ("2024-W52", "2025-W01")
    q = period_aggregate(
        [1.0, 2.0], np.array(["2023-12-31", "2024-01-01"], dtype="datetime64[D]"), period="quarter"
    )
    assert q.labels == ("2023-Q4", "2024-Q1")


def test_empty_periods_between_data_are_reported():
    t = period_aggregate([1.0, 3.0], np.array(["2024-01-15", "2024-03-10"], dtype="datetime64[D]"))
    assert t.labels == ("2024-01", "2024-02", "2024-03")
    np.testing.assert_array_equal(t.values, [1.0, NAN, 3.0])
    np.testing.assert_array_equal(t.counts, [1, 0, 1])
    s = period_aggregate(
        [1.0, 3.0], np.array(["2024-01-15", "2024-03-10"], dtype="datetime64[D]"), stat="sum"
    )
    assert math.isnan(s.values[1])  # a month without data has no sum (not 0)


def test_unsorted_and_repeated_dates():
    perm = np.array([7, 0, 3, 5, 1, 6, 2, 4])
    a = period_aggregate(X8[perm], D8[perm], period="week")
    np.testing.assert_array_equal(a.values, [4.0, 8.0])
    rep = period_aggregate([1.0, 3.0, 5.0], np.array(["2024-01-01"] * 3, dtype="datetime64[D]"))
    assert (rep.values[0], rep.counts[0]) == (3.0, 3)


def test_empty_one_point_all_nan():
    e = period_aggregate(np.array([]), np.array([], dtype="datetime64[D]"))
    assert e.labels == ()
    assert e.values.shape == e.counts.shape == e.starts.shape == (0,)
    one = period_aggregate([5.0], days("2024-02-29", 1), stat="median")
    assert (one.labels, one.values[0], one.counts[0]) == (("2024-02",), 5.0, 1)
    nan = period_aggregate([NAN] * 3, days("2024-02-28", 3))
    assert nan.labels == ("2024-02", "2024-03")
    assert np.isnan(nan.values).all()
    np.testing.assert_array_equal(nan.counts, [0, 0])


def test_bad_dates_raise():
    with pytest.raises(ValueError, match="datetime64"):
        period_aggregate([1.0], np.array(["2024-01-01"], dtype="datetime64[ns]"))
    with pytest.raises(ValueError, match="shape"):
        period_aggregate([1.0, 2.0], days("2024-01-01", 3))
    with pytest.raises(ValueError, match="NaT"):
        period_aggregate([1.0], np.array(["NaT"], dtype="datetime64[D]"))
    with pytest.raises(ValueError, match="period"):
        period_aggregate([1.0], days("2024-01-01", 1), period="year")


@prop
@given(
    start=st.integers(0, 20_000),
    data=st.lists(st.one_of(st.none(), st.integers(-9, 9).map(float)), min_size=1, max_size=120),
    period=st.sampled_from(["week", "month", "quarter"]),
    stat=st.sampled_from(["mean", "median", "sum", "count"]),
)
def test_matches_pandas_groupby(start, data, period, stat):
    x = np.array([NAN if v is None else v for v in data])
    d = np.datetime64("1970-01-01") + np.arange(start, start + len(x))
    t = period_aggregate(x, d, period=period, stat=stat)
    idx = pd.DatetimeIndex(d.astype("datetime64[ns]"))
    if period == "week":
        iso = idx.isocalendar()
        keys = [f"{y}-W{w:02d}" for y, w in zip(iso.year, iso.week, strict=True)]
    elif period == "month":
        keys = [f"{ts.year}-{ts.month:02d}" for ts in idx]
    else:
        keys = [f"{ts.year}-Q{ts.quarter}" for ts in idx]
    grouped = pd.Series(x).groupby(keys, sort=False)
    ref = grouped.count() if stat == "count" else grouped.agg(stat)
    if stat == "sum":
        ref[grouped.count() == 0] = NAN  # pandas sums an all-missing group to 0
    assert t.labels == tuple(dict.fromkeys(keys))  # dense calendar -> every period present, in order
    np.testing.assert_allclose(t.values, ref.loc[list(t.labels)].to_numpy(dtype=float), rtol=1e-12)
    np.testing.assert_array_equal(t.counts, grouped.count().loc[list(t.labels)].to_numpy())


# --- weekday_weekend -----------------------------------------------------------------------


def test_weekday_weekend_hand_computed():
    # Mon..Sun [1, 2, 3, 4, 5, 10, 20]: weekday mean 3, weekend mean 15 -> weekend - weekday = 12
    w = weekday_weekend([1.0, 2.0, 3.0, 4.0, 5.0, 10.0, 20.0], days("2024-01-29", 7))
    assert (w.weekday, w.weekend, w.difference, w.n_weekday, w.n_weekend) == (3.0, 15.0, 12.0, 5, 2)


def test_weekday_weekend_median_and_gaps():
    # Mon..Sun [1, 2, NaN, 4, 100, 10, NaN]: weekday median of [1, 2, 4, 100] = 3; weekend [10]
    w = weekday_weekend([1.0, 2.0, NAN, 4.0, 100.0, 10.0, NAN], days("2024-01-29", 7), stat="median")
    assert (w.weekday, w.weekend, w.difference, w.n_weekday, w.n_weekend) == (3.0, 10.0, 7.0, 4, 1)


def test_weekday_weekend_missing_side_is_nan():
    w = weekday_weekend([1.0, 2.0], days("2024-01-29", 2))  # Mon, Tue only
    assert (w.weekday, w.n_weekend) == (1.5, 0)
    assert math.isnan(w.weekend)
    assert math.isnan(w.difference)
    e = weekday_weekend(np.array([]), np.array([], dtype="datetime64[D]"))
    assert (e.n_weekday, e.n_weekend) == (0, 0)
    assert math.isnan(e.weekday)


def test_weekday_weekend_bad_stat():
    with pytest.raises(ValueError, match="stat"):
        weekday_weekend([1.0], days("2024-01-29", 1), stat="sum")
