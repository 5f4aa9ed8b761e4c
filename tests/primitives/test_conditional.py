import math

import numpy as np
import pytest

from wearbench.primitives._conditional import conditional_mean_difference


def test_hand_computed_below_lag0() -> None:
    # driver quantile 0.2 of [1..10] = 2.8 -> condition days are driver 1, 2 (indices 0, 1)
    driver = np.arange(1.0, 11.0)
    response = np.array([10.0, 12.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0, 5.0])
    out = conditional_mean_difference(driver, response, quantile=0.2, min_days=2)
    assert out.threshold == pytest.approx(2.8)
    assert (out.n_condition, out.n_other) == (2, 8)
    assert out.mean_condition == pytest.approx(11.0)
    assert out.mean_other == pytest.approx(5.0)
    assert out.difference == pytest.approx(6.0)
    assert out.sd == pytest.approx(float(np.std(response, ddof=1)))
    assert out.effect == pytest.approx(6.0 / np.std(response, ddof=1))


def test_above_with_lag_reads_the_next_day() -> None:
    driver = np.array([0.0, 9.0, 0.0, 9.0, 0.0, 0.0])
    response = np.array([1.0, 1.0, 4.0, 1.0, 4.0, 1.0])
    # cut = quantile 0.5 of driver = 0 -> "above" means >= 0: everything; use 0.7 -> 6.3
    out = conditional_mean_difference(driver, response, quantile=0.7, side="above", lag=1, min_days=2)
    # condition anchors t=1,3 -> responses at 2,4 = 4,4; other anchors t=0,2,4 -> 1,1,1
    assert (out.n_condition, out.n_other) == (2, 3)
    assert out.difference == pytest.approx(3.0)
    assert out.sd == pytest.approx(float(np.std([1.0, 4.0, 1.0, 4.0, 1.0], ddof=1)))


def test_missing_pairs_are_skipped_and_small_groups_give_nan() -> None:
    driver = np.array([1.0, np.nan, 3.0, 4.0, 5.0])
    response = np.array([2.0, 2.0, np.nan, 4.0, 5.0])
    out = conditional_mean_difference(driver, response, quantile=0.3, min_days=2)
    assert out.n_condition + out.n_other == 3
    assert math.isnan(out.effect)


def test_all_nan_and_constant() -> None:
    nan = np.full(5, np.nan)
    assert math.isnan(conditional_mean_difference(nan, nan).effect)
    out = conditional_mean_difference(np.arange(30.0), np.ones(30))
    assert math.isnan(out.effect)
    assert out.n_condition == 6


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"quantile": 0.0}, "quantile"),
        ({"quantile": 1.0}, "quantile"),
        ({"side": "left"}, "side"),
        ({"lag": 9}, "lag"),
    ],
)
def test_bad_parameters(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        conditional_mean_difference(np.arange(20.0), np.arange(20.0), **kwargs)  # type: ignore[arg-type]


def test_length_mismatch() -> None:
    with pytest.raises(ValueError, match="same length"):
        conditional_mean_difference(np.arange(5.0), np.arange(6.0))
