"""Learned imputers (PyPOTS): patch folding, standardisation, and tiny fits on synthetic days."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from wearbench import WearbenchError
from wearbench.tracks._learned import (
    LEARNED_IMPUTERS,
    LearnedImputer,
    _channel_range,
    fold_patches,
    standardisation,
    unfold_patches,
)


def test_fold_puts_patch_minutes_of_each_channel_side_by_side() -> None:
    x = np.arange(12, dtype=np.float32).reshape(1, 2, 6)  # channel 0: 0..5, channel 1: 6..11
    z = fold_patches(x, 3)
    assert z.shape == (1, 2, 6)
    assert z[0].tolist() == [[0, 1, 2, 6, 7, 8], [3, 4, 5, 9, 10, 11]]
    np.testing.assert_array_equal(unfold_patches(z, 2), x)


def test_fold_unfold_round_trip_is_exact_with_nans() -> None:
    x = np.random.default_rng(1).normal(size=(3, 19, 1440)).astype(np.float32)
    x[x > 1.0] = np.nan
    back = unfold_patches(fold_patches(x, 10), 19)
    np.testing.assert_array_equal(back, x)
    assert fold_patches(x, 10).shape == (3, 144, 190)


def test_fold_rejects_a_patch_that_does_not_divide() -> None:
    with pytest.raises(ValueError, match="patch must divide"):
        fold_patches(np.zeros((1, 2, 7)), 3)


def test_standardisation_uses_observed_minutes_and_guards_zero_std() -> None:
    x = np.full((2, 3, 4), np.nan)
    x[0, 0] = [1.0, 3.0, np.nan, np.nan]  # mean 2, population std 1
    x[1, 0, 0] = 5.0  # -> values 1, 3, 5: mean 3, std sqrt(8/3)
    x[:, 1, :] = 7.0  # constant -> std 1
    mean, std = standardisation(x)
    assert mean.tolist() == [3.0, 7.0, 0.0]
    np.testing.assert_allclose(std, [np.sqrt(8 / 3), 1.0, 1.0])


def _tiny_days(n: int = 12, seed: int = 0) -> np.ndarray:
    """``n`` days with a daily sine on every channel plus noise; 10% of minutes unobserved."""
    rng = np.random.default_rng(seed)
    t = np.arange(1440) / 1440
    base = 60 + 20 * np.sin(2 * np.pi * t)[None, None, :] * (1 + np.arange(19))[None, :, None] / 19
    x = (base + rng.normal(size=(n, 19, 1440))).astype(np.float32)
    x[rng.random(x.shape) < 0.1] = np.nan
    return x


def _masked(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    a = np.zeros(x.shape, dtype=bool)
    a[:, :, 600:660] = True
    a &= ~np.isnan(x)
    return np.where(a, np.nan, x), a


@pytest.mark.parametrize("name", ["dlinear", "dlinear_7d"])
def test_learned_imputer_fills_every_gap_and_keeps_observed_cells(name: str) -> None:
    x = _tiny_days()
    xm, _a = _masked(x)
    imp = LearnedImputer(name, epochs=1, n_threads=1, seed=3).fit(x[:8])
    out = imp.impute(xm[8:])
    assert out.shape == (4, 19, 1440)
    assert np.isfinite(out).all()
    obs = ~np.isnan(xm[8:])
    np.testing.assert_array_equal(out[obs], xm[8:][obs].astype(np.float64))
    assert imp.settings()["train_days"] == 8
    assert imp.settings()["train_samples"] == (8 if name == "dlinear" else 2)


def test_learned_imputer_is_reproducible_for_a_seed() -> None:
    x = _tiny_days()
    xm, _a = _masked(x)
    one = LearnedImputer("saits", epochs=1, n_threads=1, seed=0).fit(x[:8]).impute(xm[8:])
    two = LearnedImputer("saits", epochs=1, n_threads=1, seed=0).fit(x[:8]).impute(xm[8:])
    assert one.tobytes() == two.tobytes()


def test_max_train_days_subsamples_a_seeded_choice() -> None:
    imp = LearnedImputer("dlinear", epochs=1, n_threads=1, max_train_days=3).fit(_tiny_days())
    assert imp.settings()["train_samples"] == 3


def test_unknown_name_and_unfitted_use_are_errors() -> None:
    with pytest.raises(ValueError, match="unknown learned imputation model 'sait'"):
        LearnedImputer("sait")
    with pytest.raises(ValueError, match="not fitted"):
        LearnedImputer("saits").impute(_tiny_days(1))
    assert set(LEARNED_IMPUTERS) == {"brits", "saits", "dlinear", "timesnet", "dlinear_7d"}


def test_missing_pypots_says_how_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pypots", None)
    monkeypatch.setitem(sys.modules, "pypots.imputation", None)
    with pytest.raises(WearbenchError, match=r'pip install -e "\.\[learn\]"'):
        LearnedImputer("dlinear").fit(_tiny_days(2))


def test_channel_range_is_the_observed_min_and_max_per_channel() -> None:
    x = np.full((2, 3, 4), np.nan)
    x[0, 0] = [1.0, -2.0, np.nan, 4.0]
    x[1, 0, 3] = 9.0
    x[:, 1, :] = 0.5
    lo, hi = _channel_range(x)
    assert lo[:2].tolist() == [-2.0, 0.5]
    assert hi[:2].tolist() == [9.0, 0.5]
    assert np.isnan(lo[2])
    assert np.isnan(hi[2])


def test_predictions_stay_inside_the_training_range_unless_clip_is_off() -> None:
    x = _tiny_days()
    xm, _a = _masked(x)
    clipped = LearnedImputer("dlinear", epochs=1, n_threads=1, seed=3).fit(x[:8])
    lo, hi = clipped.range_
    out = clipped.impute(xm[8:])
    filled = np.isnan(xm[8:])  # observed cells are kept as they are, inside the range or not
    low, high = np.broadcast_to(lo[None, :, None], out.shape), np.broadcast_to(hi[None, :, None], out.shape)
    assert (out[filled] >= low[filled]).all()
    assert (out[filled] <= high[filled]).all()
    free = LearnedImputer("dlinear", epochs=1, n_threads=1, seed=3, clip=False).fit(x[:8]).impute(xm[8:])
    inside = (free >= lo[None, :, None]) & (free <= hi[None, :, None])
    np.testing.assert_array_equal(out[inside], free[inside])
    assert clipped.settings()["clip"] is True


def test_a_trained_model_learns_the_daily_shape_better_than_the_channel_mean() -> None:
    x = _tiny_days(24, seed=5)
    a = np.zeros(x.shape, dtype=bool)
    a[:, :, 300:360] = True  # 05:00-06:00, the sine's crest: far from the channel mean
    a &= ~np.isnan(x)
    xm = np.where(a, np.nan, x)
    # DLinear's weights run along time, so MCAR training (PyPOTS's MIT: single cells) teaches it the
    # daily shape; SAITS trained the same way stays near the channel mean on whole-hour gaps
    # (measured: 9.9 vs 10.4; docs/openmhc-imputation.md)
    imp = LearnedImputer("dlinear", epochs=30, batch_size=4, n_threads=1, seed=0).fit(x[:16])
    out = imp.impute(xm[16:])
    truth, hit = x[16:], a[16:]
    learned_mae = np.abs(out[hit] - truth[hit]).mean()
    mean_fill = np.nanmean(x[:16], axis=(0, 2))[None, :, None]
    mean_mae = np.abs(np.broadcast_to(mean_fill, truth.shape)[hit] - truth[hit]).mean()
    assert learned_mae < 0.5 * mean_mae, (learned_mae, mean_mae)
