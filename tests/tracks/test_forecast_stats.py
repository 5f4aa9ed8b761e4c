"""statsforecast forecasters: NaN fill, periodic series, fallback, binary channels, one batched call."""

from __future__ import annotations

import numpy as np
import pytest

from wearbench.tracks import (
    SeasonalNaive,
    StatsForecaster,
    batch_forecast,
    seasonal_fill,
    with_fallback,
)
from wearbench.tracks._forecast_stats import StatsModelName

L = 336
PROFILE = 70.0 + 10.0 * np.sin(2 * np.pi * np.arange(L + 48) / 24)  # HR-like, period 24 h


def _periodic(n: int = 2) -> np.ndarray:
    h = np.full((n, L, 19), np.nan)
    h[:, :, 5] = PROFILE[:L]
    h[:, :, 7] = (np.arange(L) % 24 < 8).astype(float)  # binary: asleep 0-7 h
    return h


def test_seasonal_fill_nearest_day_then_interpolation() -> None:
    day0 = [np.nan] * 24
    day1 = [1.0, np.nan] + [0.0] * 22
    day2 = [2.0, 3.0] + [np.nan] * 22
    filled, start = seasonal_fill(np.array([day0 + day1 + day2, [np.nan] * 72]))
    assert start.tolist() == [24, 72]  # midnight of the first day with an observation; none -> L
    assert np.isnan(filled[0, :24]).all()
    assert np.isnan(filled[1]).all()
    assert filled[0, 24:28].tolist() == [1.0, 3.0, 0.0, 0.0]  # hour 1 from the next day
    assert filled[0, 48:52].tolist() == [2.0, 3.0, 0.0, 0.0]  # hours 2.. from the previous day
    # an hour of day never observed is interpolated in time
    x = np.tile(np.arange(24.0), 2)
    x[[5, 29]] = np.nan
    got, _ = seasonal_fill(x[None])
    assert got[0, 5] == pytest.approx(5.0)
    assert got[0, 29] == pytest.approx(5.0)


@pytest.mark.parametrize(("name", "tol"), [("autoets", 1e-6), ("autoarima", 1e-3)])
def test_periodic_series_reproduced_with_and_without_gaps(name: StatsModelName, tol: float) -> None:
    h = _periodic(2)
    h[1, 100:110, 5] = np.nan  # a gap: filled from the same hours of the nearest day
    h[1, 200:224, 5] = np.nan  # a whole day
    model = StatsForecaster(name).fit(h, h[:, -24:])
    out = model.predict(h, 48)
    assert out.shape == (2, 48, 19)
    np.testing.assert_allclose(out[:, :, 5], np.broadcast_to(PROFILE[L : L + 48], (2, 48)), atol=tol)
    # binary channels: exactly the seasonal-naive reference
    np.testing.assert_array_equal(out[:, :, 7:], SeasonalNaive().fit(h, h[:, -24:]).predict(h, 48)[:, :, 7:])


def test_too_few_observed_hours_fall_back_and_are_counted() -> None:
    h = _periodic(2)
    h[1, : L - 47, 5] = np.nan  # 47 observed hours < 48: not fitted
    out = StatsForecaster("autoets").fit(h, h[:, -24:]).predict(h, 24)
    assert np.isfinite(out[0, :, 5]).all()
    assert np.isnan(out[1, :, 5]).all()
    assert np.isnan(out[:, :, [0, 1, 2, 3, 4, 6]]).all()  # channels never observed
    ref = SeasonalNaive().fit(h, h[:, -24:]).predict(h, 24)
    scored = np.zeros(out.shape, dtype=bool)
    scored[:, :, 5] = True
    filled, n_fb = with_fallback(out, ref, scored)
    assert n_fb == 24
    np.testing.assert_array_equal(filled[1, :, 5], ref[1, :, 5])


def test_one_batched_call_equals_per_series_calls(monkeypatch: pytest.MonkeyPatch) -> None:
    rng = np.random.default_rng(0)
    series = [PROFILE[:k] + rng.normal(0, 2, k) for k in (336, 240, 120)]
    batched = batch_forecast(series, 24, "autoets")
    single = np.vstack([batch_forecast([s], 24, "autoets") for s in series])
    np.testing.assert_allclose(batched, single, rtol=1e-9)
    import statsforecast

    calls: list[int] = []
    original = statsforecast.StatsForecast.forecast

    def counting(self: object, *args: object, **kwargs: object) -> object:
        calls.append(kwargs["df"].unique_id.nunique())  # type: ignore[attr-defined]
        return original(self, *args, **kwargs)

    monkeypatch.setattr(statsforecast.StatsForecast, "forecast", counting)
    h = _periodic(3)
    h[:, :, 0] = rng.uniform(0, 50, (3, L))
    StatsForecaster("autoets").fit(h, h[:, -24:]).predict(h, 24)
    assert calls == [6]  # 3 windows x 2 observed continuous channels, one call
