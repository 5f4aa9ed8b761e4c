"""Forecasters (seasonal naive, lag-linear), the NaN fallback and per-participant forecast errors."""

from __future__ import annotations

import numpy as np
import pytest

from wearbench.tracks import (
    FORECASTERS,
    LagLinear,
    SeasonalNaive,
    carried_profile,
    make_forecaster,
    score_forecast,
    seasonal_naive,
    with_fallback,
)


def _hist(n: int = 2, length: int = 48) -> np.ndarray:
    """History whose value = hour index t (0..L-1) on every channel."""
    return np.broadcast_to(np.arange(length, dtype=np.float64)[None, :, None], (n, length, 19)).copy()


def test_seasonal_naive_is_the_last_day_repeated() -> None:
    h = _hist()
    f = seasonal_naive(h, 24)
    assert f.shape == (2, 24, 19)
    assert f[0, :, 0].tolist() == list(range(24, 48))
    f48 = seasonal_naive(h, 48)
    assert f48[1, :, 3].tolist() == list(range(24, 48)) * 2


def test_reference_carries_back_then_uses_the_training_mean() -> None:
    h = _hist(1, 72)
    h[0, 71, 0] = np.nan  # last day's hour 23 -> day before (hour 47)
    h[0, [23, 47, 71], 1] = np.nan  # hour 23 never observed -> training mean
    prof = carried_profile(h)
    assert prof[0, 23, 0] == 47.0
    assert np.isnan(prof[0, 23, 1])
    assert prof[0, 5, 1] == 53.0
    train = np.full((3, 72, 19), 2.0)
    train[0, :, 1] = 8.0  # channel 1 mean (8 + 2 + 2) / 3 = 4
    ref = SeasonalNaive().fit(train, train[:, :24]).predict(h, 48)
    assert ref[0, 23, 0] == 47.0
    assert ref[0, 47, 0] == 47.0
    assert ref[0, 23, 1] == pytest.approx(4.0)
    assert ref[0, 0, 1] == 48.0
    assert np.isfinite(ref).all()


def test_lag_linear_recovers_a_seasonal_series() -> None:
    rng = np.random.default_rng(0)
    n, length = 60, 336
    t = np.arange(length + 24)
    level = rng.normal(50, 10, size=(n, 1, 1))
    series = level + 5 * np.sin(2 * np.pi * t / 24)[None, :, None] + np.zeros((1, 1, 19))
    series[..., 7:] = (np.sin(2 * np.pi * t / 24) > 0)[None, :, None]
    hist, targ = series[:, :length], series[:, length:]
    model = LagLinear().fit(hist, targ)
    pred = model.predict(hist, 24)
    assert np.abs(pred[..., :7] - targ[..., :7]).max() < 0.05
    assert pred[..., 7:].min() >= 0.0
    assert pred[..., 7:].max() <= 1.0
    with pytest.raises(ValueError, match="horizon 24"):
        model.predict(hist, 48)


def test_lag_linear_is_nan_where_every_lag_is_missing_and_falls_back() -> None:
    hist = _hist(3, 336)
    targ = hist[:, -24:] + 24.0
    model = LagLinear().fit(hist, targ)
    probe = hist[:1].copy()
    probe[0, -24:, 2] = np.nan
    probe[0, 168:192, 2] = np.nan  # the weekly lags of the 24 target hours
    raw = model.predict(probe, 24)
    assert np.isnan(raw[0, :, 2]).all()
    assert np.isfinite(raw[0, :, [0, 1, 3]]).all()
    ref = np.full_like(raw, 7.0)
    scored = np.ones(raw.shape, dtype=bool)
    scored[0, :12, 2] = False
    filled, n_fb = with_fallback(raw, ref, scored)
    assert n_fb == 12
    assert (filled[0, :, 2] == 7.0).all()


def test_registry_and_protocol() -> None:
    assert list(FORECASTERS) == ["seasonal_naive", "linear", "autoets", "autoarima", "dlinear", "segrnn"]
    hist = _hist(2, 336)
    for name in ("seasonal_naive", "linear"):  # the others: tests/tracks/test_forecast_stats*.py
        model = make_forecaster(name)
        assert model.fit(hist, hist[:, -24:]) is model


def test_score_forecast_pools_windows_per_participant() -> None:
    y = np.full((3, 2, 19), np.nan)
    f = np.zeros((3, 2, 19))
    y[:, :, 0] = [[1.0, 2.0], [3.0, np.nan], [10.0, 10.0]]
    f[:, :, 0] = [[0.0, 0.0], [0.0, 99.0], [9.0, 9.0]]
    y[:, :, 8] = [[1, 0], [1, np.nan], [0, 0]]  # p "a": 1, 0, 1 ; p "b": single class
    f[:, :, 8] = [[0.9, 0.2], [0.1, 0.5], [0.3, 0.3]]
    rows = score_forecast(y, f, np.array(["a", "a", "b"]), method="m")
    got = {(r.participant, r.channel, r.kind): (r.value, r.n_hours) for r in rows}
    assert got[("a", 0, "mae")] == (pytest.approx(6.0 / 3), 3)  # |1| + |2| + |3| over 3 hours
    assert got[("b", 0, "mae")] == (1.0, 2)
    # AUROC for "a": positives 0.9, 0.1 vs negative 0.2 -> (1 + 0) / 2
    assert got[("a", 8, "auroc")] == (0.5, 3)
    assert ("b", 8, "auroc") not in got
    assert len(rows) == 3
    f[0, 0, 0] = np.nan
    with pytest.raises(ValueError, match="non-finite"):
        score_forecast(y, f, np.array(["a", "a", "b"]), method="m")
