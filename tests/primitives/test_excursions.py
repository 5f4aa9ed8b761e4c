"""Tests for excursions / excursion_count / recovery_time."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wearbench.primitives import Run, excursion_count, excursions, recovery_time, zscore

NAN = math.nan
SQRT3 = math.sqrt(3.0)

series = st.lists(st.one_of(st.none(), st.integers(-20, 20).map(float)), min_size=0, max_size=60).map(
    lambda xs: np.array([NAN if v is None else v for v in xs], dtype=np.float64)
)
prop = settings(max_examples=50, deadline=None, derandomize=True)

# window 4, min_count 4, values [9, 11, 9, 11, 15, 15, 10]:
# day4: window [9, 11, 9, 11] mean 10, sd sqrt(4/3) -> z = 5 / sqrt(4/3) = 4.3301
# day5: window [11, 9, 11, 15] mean 11.5, SS 19, sd sqrt(19/3) = 2.5166 -> z = 3.5 / 2.5166 = 1.3908
# day6: window [9, 11, 15, 15] mean 12.5, SS 27, sd 3 -> z = -2.5 / 3 = -0.8333
SPIKE = [9.0, 11.0, 9.0, 11.0, 15.0, 15.0, 10.0]
Z4, Z5, Z6 = 5 / math.sqrt(4 / 3), 3.5 / math.sqrt(19 / 3), -2.5 / 3


def test_hand_computed_z():
    z = zscore(SPIKE, window=4, min_count=4)
    np.testing.assert_allclose(z, [NAN, NAN, NAN, NAN, Z4, Z5, Z6])


def test_run_above_k1():
    (run,) = excursions(SPIKE, k=1.0, window=4, min_count=4)
    assert (run.start, run.end, run.length) == (4, 5, 2)
    assert run.peak_z == pytest.approx(Z4)


def test_run_above_k15_is_one_day():
    assert excursions(SPIKE, k=1.5, window=4, min_count=4) == (Run(4, 4, 1, pytest.approx(Z4)),)


def test_min_run_filters_short_runs():
    assert excursions(SPIKE, k=1.5, window=4, min_count=4, min_run=2) == ()
    assert excursion_count(SPIKE, k=1.0, window=4, min_count=4, min_run=2) == 1


def test_below():
    (run,) = excursions(SPIKE, k=0.5, direction="below", window=4, min_count=4)
    assert (run.start, run.end, run.length) == (6, 6, 1)
    assert run.peak_z == pytest.approx(Z6)  # most negative z, keeps its sign


def test_threshold_is_inclusive():
    # day3 window [0, 2, 1]: mean 1, SS 2, sd 1 -> z(day3 = 2) = 1.0 exactly, and z >= k counts
    assert excursion_count([0.0, 2.0, 1.0, 2.0], k=1.0, window=3, min_count=3) == 1


def test_nan_day_breaks_a_run():
    # window 4, min_count 3, values [9, 11, 9, 11, 15, NaN, 15, 15]:
    # day3: [9, 11, 9] mean 29/3, sd sqrt(4/3) -> z = (11 - 29/3) / 1.1547 = 1.1547 (hit at k=1)
    # day4: z = 4.3301 (as above); day5 missing
    # day6: [9, 11, 15, NaN] mean 35/3, SS 56/3, sd sqrt(28/3) -> z = (15 - 35/3) / 3.0551 = 1.0911
    # day7: [11, 15, NaN, 15] mean 41/3, SS 32/3, sd sqrt(16/3) -> z = (4/3) / 2.3094 = 0.5774
    x = [9.0, 11.0, 9.0, 11.0, 15.0, NAN, 15.0, 15.0]
    runs = excursions(x, k=1.0, window=4, min_count=3)
    assert [(r.start, r.end) for r in runs] == [(3, 4), (6, 6)]
    assert runs[0].peak_z == pytest.approx(Z4)
    assert runs[1].peak_z == pytest.approx((15 - 35 / 3) / math.sqrt(28 / 3))


@pytest.mark.parametrize("x", [[], [1.0], [NAN] * 10, [5.0] * 30])
def test_edge_cases_have_no_runs(x):
    # empty, one point, all missing, constant (zero SD -> undefined z)
    assert excursions(x, window=4, min_count=2) == ()
    assert excursion_count(x, window=4, min_count=2) == 0


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"k": 0.0}, "k must be"),
        ({"k": -1.0}, "k must be"),
        ({"direction": "up"}, "direction"),
        ({"min_run": 0}, "min_run"),
        ({"window": 2, "min_count": 3}, "min_count"),
    ],
)
def test_bad_parameters_raise(kwargs, message):
    with pytest.raises(ValueError, match=message):
        excursions([1.0, 2.0, 3.0], **kwargs)


@prop
@given(x=series, k=st.sampled_from([0.5, 1.0, 1.5]), direction=st.sampled_from(["above", "below"]))
def test_runs_match_python_reference(x, k, direction):
    z = zscore(x, window=5, min_count=3)
    sign = 1.0 if direction == "above" else -1.0
    expected, start = [], None
    for t, v in enumerate([*z, NAN]):
        hit = not math.isnan(v) and sign * v >= k
        if hit and start is None:
            start = t
        if not hit and start is not None:
            seg = z[start:t]
            expected.append((start, t - 1, t - start, float(max(seg) if sign > 0 else min(seg))))
            start = None
    got = excursions(x, k=k, direction=direction, window=5, min_count=3)
    assert [(r.start, r.end, r.length, r.peak_z) for r in got] == expected


# --- recovery_time -------------------------------------------------------------------------

# window 4, onset 4: baseline [10, 12, 10, 12] -> mean 11, sd sqrt(4/3) = 1.1547
# k_recover 0.5 -> band 0.5774: day5 16 (5 away) no, day6 13 (2) no, day7 11.5 (0.5) yes -> 3 days
REC = [10.0, 12.0, 10.0, 12.0, 20.0, 16.0, 13.0, 11.5]


def test_recovery_hand_computed():
    assert recovery_time(REC, onset=4, window=4, min_count=4) == 3.0
    # k_recover 2 -> band 2.3094: day6 13 (2 away) is inside -> 2 days
    assert recovery_time(REC, onset=4, k_recover=2.0, window=4, min_count=4) == 2.0


def test_recovery_baseline_frozen_at_onset():
    # the rolling baseline at day 7 (window [12, 20, 16, 13], mean 15.25) would judge day7 differently;
    # recovery must use the pre-onset window only: same answer as above with more data after.
    x = [*REC, 30.0, 30.0]
    assert recovery_time(x, onset=4, window=4, min_count=4) == 3.0


def test_recovery_missing_day_does_not_count():
    x = [10.0, 12.0, 10.0, 12.0, 20.0, 16.0, 13.0, NAN, 11.0]
    assert recovery_time(x, onset=4, window=4, min_count=4) == 4.0


def test_no_recovery_is_nan():
    assert np.isnan(recovery_time(REC[:7], onset=4, window=4, min_count=4))  # series ends first
    assert np.isnan(recovery_time(REC, onset=4, window=4, min_count=4, max_days=2))  # too slow


def test_undefined_baseline_is_nan():
    assert np.isnan(recovery_time(REC, onset=2, window=4, min_count=4))  # only 2 days before
    assert np.isnan(recovery_time([5.0, 5.0, 5.0, 5.0, 9.0, 5.0], onset=4, window=4, min_count=4))  # SD 0
    assert np.isnan(recovery_time([NAN] * 8, onset=4, window=4, min_count=1))
    assert np.isnan(recovery_time([1.0], onset=0, window=4, min_count=1))  # one point


def test_recovery_bad_onset_raises():
    with pytest.raises(ValueError, match="onset"):
        recovery_time(REC, onset=8)
    with pytest.raises(ValueError, match="onset"):
        recovery_time(REC, onset=-1)
    with pytest.raises(ValueError, match="non-empty"):
        recovery_time([], onset=0)
