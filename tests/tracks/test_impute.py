"""The statistical imputation baselines (seed 004, F.2) on tiny hand-computed days."""

from __future__ import annotations

import numpy as np
import pytest

from wearbench.tracks._impute import (
    BASELINE_IMPUTERS,
    BaselineImputer,
    channel_means,
    channel_modes,
    fill_linear,
    fill_locf,
    fill_personal,
    temporal_profile,
)

C, T = 19, 1440
nan = np.nan


def _days(n: int = 1, fill: float = nan) -> np.ndarray:
    return np.full((n, C, T), fill, dtype=np.float32)


def test_locf_carries_forward_leading_gap_takes_next_observation() -> None:
    x = _days()
    x[0, 5, :6] = [nan, nan, 60.0, nan, nan, 80.0]
    out = fill_locf(x, fallback=np.arange(C, dtype=float))
    assert out[0, 5, :8].tolist() == [60.0, 60.0, 60.0, 60.0, 60.0, 80.0, 80.0, 80.0]
    assert (out[0, 5, 6:] == 80.0).all()
    assert (out[0, 3] == 3.0).all()  # empty channel: fallback
    assert np.isnan(fill_locf(x)[0, 3]).all()  # no fallback: left for the scorer


def test_locf_does_not_carry_across_days() -> None:
    x = _days(2)
    x[0, 0, 10] = 7.0
    x[1, 0, 1000] = 3.0
    out = fill_locf(x)
    assert out[1, 0, 0] == 3.0  # day 2's leading gap: its own next observation, not day 1's 7
    assert out[0, 0, 1439] == 7.0


def test_linear_interpolates_and_holds_the_edges() -> None:
    x = _days()
    x[0, 6, 2] = 10.0
    x[0, 6, 6] = 30.0
    out = fill_linear(x, fallback=np.zeros(C))
    assert out[0, 6, :8].tolist() == [10.0, 10.0, 10.0, 15.0, 20.0, 25.0, 30.0, 30.0]
    assert out[0, 6, -1] == 30.0
    assert (out[0, 0] == 0.0).all()


def test_channel_means_and_modes() -> None:
    x = _days(2)
    x[0, 0, :3] = [1.0, 2.0, 2.0]
    x[1, 0, :2] = [3.0, 3.0]
    x[0, 7, :4] = [0.0, 1.0, 1.0, 0.0]  # tie 0/1: smallest value
    assert channel_means(x)[0] == pytest.approx(11 / 5)
    modes = channel_modes(x)
    assert modes[0] == 2.0  # 2 and 3 tie (twice each): smallest
    assert modes[7] == 0.0
    assert np.isnan(modes[1])
    assert channel_modes(np.round(x + 0.4, 0))[0] == 2.0  # rounded values (1.4 -> 1, 2.4 -> 2 ...)


def test_temporal_mean_falls_back_to_the_channel_mean() -> None:
    x = _days(2)
    x[0, 5, 0], x[1, 5, 0] = 60.0, 70.0  # minute 0: 65
    x[0, 5, 1] = 90.0  # minute 1: 90
    prof = temporal_profile(x)
    assert prof[5, 0] == 65.0
    assert prof[5, 1] == 90.0
    assert prof[5, 2] == pytest.approx(220 / 3)  # no observation at minute 2: channel mean
    assert np.isnan(prof[0]).all()  # empty channel stays NaN


def test_temporal_mode_per_minute() -> None:
    x = _days(3)
    x[:, 8, 0] = [1.0, 1.0, 0.0]
    x[:, 8, 1] = [0.0, nan, nan]
    prof = temporal_profile(x, stat="mode")
    assert prof[8, 0] == 1.0
    assert prof[8, 1] == 0.0
    assert prof[8, 2] == 0.0  # channel fallback: 1 twice, 0 twice, tie -> smallest


def test_personal_temporal_mean_three_level_fallback() -> None:
    x = _days(3)
    x[0, 5, 0] = 60.0  # user a: minute 0 observed
    x[1, 5, 0] = 80.0  # user a, second day: user minute mean 70; user channel mean 70
    x[0, 5, 10] = 100.0  # user a: minute 10 -> channel mean (60 + 80 + 100) / 3 = 80
    population = np.full((C, T), 50.0)
    out = fill_personal(x, np.array(["a", "a", "b"]), population, stat="temporal_mean")
    assert out[1, 5, 0] == 80.0  # observed cells unchanged
    assert out[0, 5, 10] == 100.0
    assert out[1, 5, 10] == 100.0  # user minute mean
    assert out[0, 5, 5] == pytest.approx(80.0)  # user channel mean
    assert (out[2] == 50.0).all()  # user b has nothing: population temporal mean
    assert (out[0, 0] == 50.0).all()


def test_personal_mean_uses_each_users_own_days() -> None:
    x = _days(2)
    x[0, 0, :2] = [2.0, 4.0]
    x[1, 0, :2] = [10.0, 20.0]
    out = fill_personal(x, np.array([1, 2]), np.full(C, -1.0), stat="mean")
    assert out[0, 0, 5] == 3.0
    assert out[1, 0, 5] == 15.0
    assert out[0, 1, 0] == -1.0
    with pytest.raises(ValueError, match="one id per day"):
        fill_personal(x, np.array([1]), np.zeros(C))


def test_classes_fit_then_impute_and_leave_observed_cells() -> None:
    train = _days(2, fill=1.0)
    train[1] = 3.0
    x = _days(1, fill=5.0)
    x[0, :, 100:110] = nan
    for name in BASELINE_IMPUTERS:
        imp = BaselineImputer(name)
        assert not hasattr(imp, "stat_"), name  # constructor stores parameters only
        out = imp.fit(train).impute(x, users=np.array([0]))
        assert np.isfinite(out).all(), name
        assert (out[0, :, :100] == 5.0).all(), name
    assert (BaselineImputer("mean").fit(train).impute(x)[0, :, 100:110] == 2.0).all()
    assert (BaselineImputer("locf").fit(train).impute(x)[0, :, 100:110] == 5.0).all()
    # the user's own minutes are all 5: the user channel mean comes before the population
    assert (BaselineImputer("personal_temporal_mean").fit(train).impute(x)[0, :, 100:110] == 5.0).all()
    with pytest.raises(ValueError, match="not fitted"):
        BaselineImputer("mean").impute(x)
    with pytest.raises(ValueError, match="unknown imputation baseline 'median'"):
        BaselineImputer("median")
