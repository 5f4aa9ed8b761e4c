import math

import numpy as np
import pytest

from wearbench.primitives import count_days, count_valid, nan_argext, nan_stat

NAN = float("nan")


def test_counts_hand_computed() -> None:
    x = np.array([1.0, NAN, 3.0, NAN])
    assert count_days(x) == 4
    assert count_valid(x) == 2
    assert count_days(np.array([])) == 0
    assert count_valid(np.full(3, NAN)) == 0


@pytest.mark.parametrize(
    ("stat", "expected"),
    # present values 2, 4, 9: mean 5, median 4, sd sqrt(((−3)²+(−1)²+4²)/2) = sqrt(13), min 2, max 9, sum 15
    [("mean", 5.0), ("median", 4.0), ("sd", math.sqrt(13.0)), ("min", 2.0), ("max", 9.0), ("sum", 15.0)],
)
def test_nan_stat_hand_computed(stat: str, expected: float) -> None:
    assert nan_stat(np.array([2.0, NAN, 4.0, 9.0]), stat=stat) == pytest.approx(expected)  # type: ignore[arg-type]


def test_nan_stat_min_count_and_degenerate() -> None:
    x = np.array([2.0, NAN, 4.0])
    assert math.isnan(nan_stat(x, min_count=3))
    assert nan_stat(x, min_count=2) == 3.0
    assert nan_stat(np.array([7.0])) == 7.0  # a mean of one day is defined
    assert math.isnan(nan_stat(np.array([7.0]), stat="sd"))  # an SD is not
    assert math.isnan(nan_stat(np.array([])))
    assert math.isnan(nan_stat(np.full(5, NAN), stat="max"))


def test_nan_argext_first_on_ties_and_all_missing() -> None:
    x = np.array([NAN, 5.0, 1.0, 5.0, 1.0])
    assert nan_argext(x) == 1
    assert nan_argext(x, which="min") == 2
    assert nan_argext(np.full(3, NAN)) is None
    assert nan_argext(np.array([])) is None


def test_bad_parameters() -> None:
    with pytest.raises(ValueError, match="stat"):
        nan_stat(np.array([1.0]), stat="mode")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="min_count"):
        nan_stat(np.array([1.0]), min_count=0)
