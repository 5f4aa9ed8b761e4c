"""Wilson score interval: hand-computed cases and input checks."""

import math

import pytest

from wearbench.scoring import accuracy, wilson_interval


def test_half_of_ten_by_hand() -> None:
    # p = 0.5, z^2 = 3.8416: centre 0.5, half = 1.96 * sqrt(0.025 + 0.009604) / 1.38416
    lo, hi = wilson_interval(5, 10)
    half = 1.96 * math.sqrt(0.025 + 0.009604) / 1.38416
    assert lo == pytest.approx(0.5 - half, abs=1e-12)
    assert hi == pytest.approx(0.5 + half, abs=1e-12)
    assert (round(lo, 4), round(hi, 4)) == (0.2366, 0.7634)


def test_zero_and_all_successes() -> None:
    # k = 0: hi = z^2 / (n + z^2); k = n: lo = n / (n + z^2)
    assert wilson_interval(0, 10) == (0.0, pytest.approx(3.8416 / 13.8416))
    assert wilson_interval(10, 10) == (pytest.approx(10 / 13.8416), 1.0)


def test_one_of_four_by_hand() -> None:
    # p = 0.25, n = 4: denom = 1.9604, centre = (0.25 + 0.4802) / 1.9604
    lo, hi = wilson_interval(1, 4)
    centre = 0.7302 / 1.9604
    half = 1.96 * math.sqrt(0.25 * 0.75 / 4 + 3.8416 / 64) / 1.9604
    assert (lo, hi) == (pytest.approx(centre - half), pytest.approx(centre + half))
    assert (round(lo, 4), round(hi, 4)) == (0.0456, 0.6994)


def test_other_z_and_empty() -> None:
    assert wilson_interval(0, 0) == (0.0, 1.0)
    lo99, hi99 = wilson_interval(5, 10, z=2.576)
    lo95, hi95 = wilson_interval(5, 10)
    assert lo99 < lo95
    assert hi99 > hi95


@pytest.mark.parametrize(("k", "n", "z"), [(-1, 5, 1.96), (6, 5, 1.96), (1, -1, 1.96), (1, 5, 0.0)])
def test_bad_input_raises(k: int, n: int, z: float) -> None:
    with pytest.raises(ValueError, match=r"must be|need"):
        wilson_interval(k, n, z)


def test_accuracy_formats_value_and_interval() -> None:
    a = accuracy(5, 10)
    assert a.value == 0.5
    assert str(a).startswith("0.500 [95% CI 0.237-0.763] (5/10)")
    assert a.to_dict()["accuracy"] == 0.5
    assert "n/a" in str(accuracy(0, 0))
