"""Strain kernels: hand-computed sustained levels and focus shifts."""

from __future__ import annotations

import math

import numpy as np
import pytest

from wearbench.primitives._strain import focus_shift, sustained_level

NAN = float("nan")


def test_sustained_level_hand_computed() -> None:
    x = np.array([9.0, 0.5, 2.0, 1.6])  # last 3: pairs (0.5, 2.0) and (2.0, 1.6)
    assert sustained_level(x) == 1.6  # max(min(0.5, 2.0), min(2.0, 1.6))
    assert sustained_level(x, direction="below") == 2.0  # min(max(0.5, 2), max(2, 1.6))
    assert sustained_level(x, tail=4) == 1.6
    assert sustained_level(x, run_days=1) == 2.0
    assert sustained_level(np.array([2.0, -1.0, 2.0])) == -1.0  # one elevated day is not two


def test_sustained_level_skips_runs_with_a_gap() -> None:
    assert math.isnan(sustained_level(np.array([3.0, NAN, 3.0])))
    assert sustained_level(np.array([1.0, 3.0, NAN])) == 1.0


@pytest.mark.parametrize("x", [np.array([]), np.array([1.0]), np.full(5, NAN)])
def test_sustained_level_degenerate(x: np.ndarray) -> None:
    assert math.isnan(sustained_level(x))


def test_sustained_level_rejects_bad_parameters() -> None:
    with pytest.raises(ValueError, match="tail"):
        sustained_level(np.ones(5), run_days=3, tail=2)
    with pytest.raises(ValueError, match="direction"):
        sustained_level(np.ones(5), direction="up")  # type: ignore[arg-type]


def test_focus_shift_hand_computed() -> None:
    # baseline 1, 2, 3 (mean 2, SD 1); focus 5, 6 (mean 5.5) → z 3.5
    s = focus_shift(
        np.array([1.0, 2.0, 3.0, 5.0, 6.0]), focus_days=2, baseline_days=3, min_focus=1, min_baseline=2
    )
    assert (s.z, s.focus_mean, s.baseline_mean, s.baseline_sd) == (3.5, 5.5, 2.0, 1.0)


def test_focus_shift_uses_only_the_days_before_the_focus() -> None:
    x = np.array([100.0, 1.0, 3.0, 2.0])  # 100 lies outside a 2-day baseline
    s = focus_shift(x, focus_days=1, baseline_days=2, min_focus=1, min_baseline=2)
    assert s.baseline_mean == 2.0
    assert s.z == pytest.approx(0.0)


def test_focus_shift_constant_baseline_and_missing_days() -> None:
    flat = np.array([4.0, 4.0, 4.0, 4.0])
    assert focus_shift(flat, focus_days=1, baseline_days=3, min_focus=1, min_baseline=2).z == 0.0
    moved = np.array([4.0, 4.0, 4.0, 5.0])
    assert math.isnan(focus_shift(moved, focus_days=1, baseline_days=3, min_focus=1, min_baseline=2).z)
    gappy = np.array([1.0, NAN, 3.0, NAN])
    s = focus_shift(gappy, focus_days=1, baseline_days=3, min_focus=1, min_baseline=2)
    assert math.isnan(s.z)
    assert math.isnan(s.focus_mean)


@pytest.mark.parametrize("x", [np.array([]), np.array([1.0]), np.full(40, NAN)])
def test_focus_shift_degenerate(x: np.ndarray) -> None:
    s = focus_shift(x)
    assert all(math.isnan(v) for v in (s.z, s.focus_mean, s.baseline_mean, s.baseline_sd))
