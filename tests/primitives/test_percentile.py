"""Tests for percentile_band / percentile_rank."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wearbench.primitives import percentile_band, percentile_rank

CUTS = {5: 10.0, 10: 20.0, 25: 30.0, 50: 40.0, 75: 50.0, 90: 60.0, 95: 70.0}
prop = settings(max_examples=50, deadline=None, derandomize=True)


@pytest.mark.parametrize(
    ("value", "band"),
    [
        (5.0, "<P5"),
        (9.99, "<P5"),
        (10.0, "P5-P10"),  # on a cut -> upper band
        (15.0, "P5-P10"),
        (40.0, "P50-P75"),
        (69.9, "P90-P95"),
        (70.0, ">P95"),
        (1e6, ">P95"),
        (math.nan, "missing"),
    ],
)
def test_bands(value, band):
    assert percentile_band(value, CUTS) == band


@pytest.mark.parametrize(
    ("value", "rank"),
    [
        (15.0, 7.5),  # halfway between P5=10 and P10=20
        (45.0, 62.5),  # halfway between P50=40 and P75=50
        (40.0, 50.0),
        (10.0, 5.0),
        (5.0, 5.0),  # clipped below
        (100.0, 95.0),  # clipped above
    ],
)
def test_ranks(value, rank):
    assert percentile_rank(value, CUTS) == pytest.approx(rank)


def test_key_order_does_not_matter():
    shuffled = dict(reversed(list(CUTS.items())))
    assert percentile_band(35.0, shuffled) == "P25-P50"
    assert percentile_rank(35.0, shuffled) == pytest.approx(37.5)


def test_tied_cuts():
    tied = {5: 10.0, 10: 20.0, 25: 20.0, 50: 40.0}
    assert percentile_band(20.0, tied) == "P25-P50"  # on a run of equal cuts -> above all of them
    assert percentile_band(19.9, tied) == "P5-P10"
    assert percentile_rank(20.0, tied) == 25.0
    assert percentile_rank(30.0, tied) == pytest.approx(37.5)


def test_single_cut_and_nan():
    assert percentile_band(1.0, {50: 1.0}) == ">P50"
    assert percentile_band(0.5, {50: 1.0}) == "<P50"
    assert percentile_rank(123.0, {50: 1.0}) == 50.0
    assert math.isnan(percentile_rank(math.nan, CUTS))


@pytest.mark.parametrize(
    ("cuts", "message"),
    [
        ({5: 10.0, 10: 9.0}, "non-decreasing"),
        ({}, "empty"),
        ({101: 1.0}, "integers in"),
        ({5.5: 1.0}, "integers in"),
        ({5: math.nan}, "finite"),
        ({5: math.inf}, "finite"),
    ],
)
def test_bad_cuts_raise(cuts, message):
    with pytest.raises(ValueError, match=message):
        percentile_band(1.0, cuts)
    with pytest.raises(ValueError, match=message):
        percentile_rank(1.0, cuts)


@prop
@given(
    steps=st.lists(st.integers(1, 10), min_size=7, max_size=7),
    value=st.floats(-10, 100, allow_nan=False),
)
def test_rank_matches_numpy_interp_and_band(steps, value):
    cuts = dict(zip([5, 10, 25, 50, 75, 90, 95], np.cumsum(steps).astype(float).tolist(), strict=True))
    rank = percentile_rank(value, cuts)
    assert rank == pytest.approx(float(np.interp(value, list(cuts.values()), list(cuts))), abs=1e-12)
    band = percentile_band(value, cuts)
    if band.startswith("<"):
        assert rank == 5.0
    elif band.startswith(">"):
        assert rank == 95.0
    else:
        lo, hi = (int(p[1:]) for p in band.split("-"))
        assert lo <= rank < hi


def test_json_string_keys_are_accepted() -> None:
    # Percentile maps that went through JSON have string keys; they mean the same cuts.
    cuts = {5: 10.0, 50: 20.0, 95: 30.0}
    as_json = {str(k): v for k, v in cuts.items()}
    assert percentile_band(25.0, as_json) == percentile_band(25.0, cuts) == "P50-P95"
    assert percentile_rank(15.0, as_json) == percentile_rank(15.0, cuts) == 27.5
