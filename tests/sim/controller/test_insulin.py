"""Insulin/carb curves and dose histories, against pure-Python references and hand values."""

from __future__ import annotations

import math

import numpy as np
import pytest

from wearbench.sim.controller import (
    DoseHistory,
    erlang_remaining,
    exponential_activity,
    exponential_iob,
    long_acting_rate,
    rule_1800_isf,
)


def _activity_ref(t: float, dia: float, peak: float) -> float:
    tau = peak * (1 - peak / dia) / (1 - 2 * peak / dia)
    a = 2 * tau / dia
    s = 1 / (1 - a + (1 + a) * math.exp(-dia / tau))
    return s / tau**2 * t * (1 - t / dia) * math.exp(-t / tau) if 0 <= t < dia else 0.0


def _iob_ref(t: float, dia: float, peak: float, n: int = 20000) -> float:
    """1 - integral of the activity from 0 to t (trapezoid, pure Python)."""
    h = t / n
    total = sum(_activity_ref(i * h, dia, peak) for i in range(1, n)) + _activity_ref(t, dia, peak) / 2
    return 1 - h * total


@pytest.mark.parametrize(("dia", "peak"), [(300.0, 75.0), (360.0, 55.0)])
def test_exponential_curve_matches_reference(dia: float, peak: float) -> None:
    t = np.array([0.0, 30.0, 75.0, 150.0, 240.0, dia - 1])
    np.testing.assert_allclose(exponential_activity(t, dia, peak), [_activity_ref(x, dia, peak) for x in t])
    np.testing.assert_allclose(exponential_iob(t, dia, peak), [_iob_ref(x, dia, peak) for x in t], atol=1e-7)
    grid = np.arange(0.0, dia, 1.0)
    assert grid[np.argmax(exponential_activity(grid, dia, peak))] == peak
    np.testing.assert_array_equal(
        exponential_iob(np.array([-5.0, dia, dia + 10]), dia, peak), [1.0, 0.0, 0.0]
    )


def test_exponential_curve_rejects_bad_shape() -> None:
    with pytest.raises(ValueError, match="2\\*peak < dia"):
        exponential_iob(np.array([1.0]), dia=100.0, peak=60.0)


def test_erlang_remaining_hand_values() -> None:
    np.testing.assert_allclose(
        erlang_remaining(np.array([-3.0, 0.0, 45.0, 90.0]), 45.0),
        [1.0, 1.0, 2 * math.exp(-1), 3 * math.exp(-2)],
    )


def test_long_acting_profile_is_flat_and_starts_like_glargine() -> None:
    t = np.arange(-10.0, 3000.0)
    rate = long_acting_rate(t)
    assert rate.sum() == pytest.approx(1.0, abs=1e-9)  # one unit absorbed
    plateau = 1 / 1440
    # half the plateau at ~1.5 h (Lepore et al. 2000: onset 1.5 h), no peak above the plateau
    assert long_acting_rate(np.array([90.0]))[0] / plateau == pytest.approx(0.5, abs=0.01)
    assert rate.max() <= plateau * (1 + 1e-9)
    # once-daily doses of 1440 U/day tile to exactly 1 U/min at steady state
    minutes = np.arange(0.0, 1440.0, 7.0)
    steady = sum(long_acting_rate(minutes + 1440 * k) for k in range(4))
    np.testing.assert_allclose(1440 * steady, np.full(minutes.size, 1.0), rtol=1e-9)


def test_rule_1800_isf() -> None:
    # 1 U/h basal -> TDI 48 U/day -> 1800 / 48 = 37.5 mg/dL per U
    np.testing.assert_allclose(rule_1800_isf(np.array([1 / 60, 0.5 / 60])), [37.5, 75.0])


def test_dose_history_sums_the_curve_over_past_doses() -> None:
    curve = exponential_iob(np.arange(301.0))
    hist = DoseHistory(2, curve)
    for minute in range(61):
        hist.record(
            minute, np.array([2.0, 0.0]) if minute == 0 else np.array([0.0, 1.0 if minute == 30 else 0.0])
        )
    # at minute 61: 2 U given 61 min ago, 1 U given 31 min ago
    np.testing.assert_allclose(hist.on_board(61), [2 * curve[61], curve[31]])
    fut = hist.future(61, 2, step=5)
    np.testing.assert_allclose(fut[0], 2 * curve[[61, 66, 71]])
    np.testing.assert_allclose(fut[1], curve[[31, 36, 41]])
    for minute in range(61, 301):  # the 2 U dose leaves the ring after 300 minutes
        hist.record(minute, np.zeros(2))
    np.testing.assert_allclose(hist.on_board(301), [0.0, curve[271]])


def test_dose_history_rejects_a_curve_that_does_not_end_at_zero() -> None:
    with pytest.raises(ValueError, match="ending at 0"):
        DoseHistory(1, np.array([1.0, 0.5]))
