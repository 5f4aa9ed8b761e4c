"""PyPOTS forecasters (DLinear, SegRNN): scaler by hand, shapes, ranges, determinism, errors."""

from __future__ import annotations

import numpy as np
import pytest

from wearbench._errors import WearbenchError
from wearbench.tracks import LearnedForecaster
from wearbench.tracks._forecast_learned import channel_scaler


def test_channel_scaler_by_hand() -> None:
    h = np.full((2, 3, 19), np.nan)
    h[:, :, 0] = [[1.0, 3.0, np.nan], [5.0, np.nan, np.nan]]  # mean 3, var (4 + 0 + 4) / 3
    h[:, :, 1] = 7.0  # constant: std 0 -> 1
    mean, std = channel_scaler(h)
    assert mean[0] == pytest.approx(3.0)
    assert std[0] == pytest.approx(np.sqrt(8.0 / 3.0))
    assert (mean[1], std[1]) == (7.0, 1.0)
    assert (mean[2], std[2]) == (0.0, 1.0)  # never observed


def _windows(n: int = 12, length: int = 48, horizon: int = 24) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    t = np.arange(length + horizon)
    x = np.zeros((n, length + horizon, 19))
    x[:, :, :7] = (
        60 + 10 * np.sin(2 * np.pi * t / 24)[None, :, None] + rng.normal(0, 1, (n, length + horizon, 7))
    )
    x[:, :, 7:] = (t % 24 < 8)[None, :, None]
    x[:, 5:9, 3] = np.nan
    return x[:, :length], x[:, length:]


@pytest.mark.parametrize("name", ["dlinear", "segrnn"])
def test_fit_predict_shapes_ranges_and_seed(name: str) -> None:
    hist, target = _windows()
    kw = {"lookback": 48, "epochs": 2, "batch_size": 4, "n_threads": 1}
    a = LearnedForecaster(name, **kw).fit(hist, target).predict(hist, 24)  # type: ignore[arg-type]
    b = LearnedForecaster(name, **kw).fit(hist, target).predict(hist, 24)  # type: ignore[arg-type]
    assert a.shape == (12, 24, 19)
    assert np.isfinite(a).all()
    assert (a[..., :7] >= 0).all()
    assert ((a[..., 7:] >= 0) & (a[..., 7:] <= 1)).all()
    np.testing.assert_array_equal(a, b)


def test_errors() -> None:
    hist, target = _windows()
    with pytest.raises(WearbenchError, match="336 history hours"):
        LearnedForecaster("dlinear").fit(hist, target)
    model = LearnedForecaster("dlinear", lookback=48, epochs=1, n_threads=1).fit(hist, target)
    with pytest.raises(ValueError, match="horizon 24"):
        model.predict(hist, 48)
