"""Learned forecasters through PyPOTS: DLinear and SegRNN (``pypots.forecasting``).

Both are global models trained on the training users' windows: input the last ``lookback`` hours
(default 336) of all 19 channels, output the ``H`` target hours of all 19 channels. Values are
standardised per channel with the training histories' observed mean and standard deviation
(StandardScaler on train, as the seed; std 0 -> 1). NaN stays NaN: PyPOTS fills it with 0 and
passes the observed mask to the model, and its training loss (masked MSE) uses only observed
target hours. Forecasts are de-standardised; continuous channels are clipped at 0 and binary
channels to [0, 1] (a score for AUROC). PyPOTS and torch are imported lazily and quietly (banner
to nowhere, log errors only), only when a learned forecaster is fitted.

- ``dlinear``: ``DLinear(moving_avg_window_size=301, d_model=64)`` (the seed's moving-average
  window; ``individual=False``, for which PyPOTS needs ``d_model``).
- ``segrnn``: ``SegRNN(seg_len=24, d_model=64, dropout=0.1)`` (one segment per day).
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from wearbench._errors import WearbenchError
from wearbench.minutes import BINARY, CONTINUOUS
from wearbench.tracks._forecast_models import FloatArray
from wearbench.tracks._pypots import import_pypots, seed_everything

LearnedForecastName = Literal["dlinear", "segrnn"]


def channel_scaler(history: FloatArray) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(mean, std)``, each ``(19,)``, over the observed hours of ``(N, L, 19)`` histories.

    A channel never observed gets 0 / 1; a standard deviation of 0 becomes 1.
    """
    h = np.asarray(history, dtype=np.float64).reshape(-1, history.shape[-1])
    ok = np.isfinite(h)
    n = ok.sum(axis=0)
    mean = np.where(n > 0, np.where(ok, h, 0.0).sum(axis=0) / np.maximum(n, 1), 0.0)
    var = np.where(n > 0, np.where(ok, (h - mean) ** 2, 0.0).sum(axis=0) / np.maximum(n, 1), 1.0)
    std = np.sqrt(var)
    return mean, np.where(std > 0, std, 1.0)


class LearnedForecaster:
    """DLinear or SegRNN (PyPOTS) behind the forecasters' fit/predict protocol.

    Args:
        name: ``"dlinear"`` or ``"segrnn"``.
        lookback: History hours fed to the model (at most the windows' history).
        epochs: Training epochs.
        batch_size: Windows per batch.
        seed: Seeds numpy, torch and PyPOTS before building and training.
        n_threads: torch threads (None: leave torch's setting).
    """

    def __init__(
        self, name: LearnedForecastName = "dlinear", lookback: int = 336, epochs: int = 10,
        batch_size: int = 64, seed: int = 0, n_threads: int | None = 2,
    ) -> None:  # fmt: skip
        self.name = name
        self.lookback = lookback
        self.epochs = epochs
        self.batch_size = batch_size
        self.seed = seed
        self.n_threads = n_threads

    def _scaled(self, x: FloatArray) -> NDArray[np.float32]:
        return ((np.asarray(x, dtype=np.float64) - self.mean_) / self.std_).astype(np.float32)

    def _build(self, forecasting: Any, horizon: int) -> Any:
        common = {
            "n_steps": self.lookback, "n_features": 19, "n_pred_steps": horizon, "n_pred_features": 19,
            "epochs": self.epochs, "batch_size": self.batch_size, "saving_path": None, "verbose": False,
        }  # fmt: skip
        if self.name == "dlinear":
            window = min(301, (self.lookback - 1) | 1)  # odd, at most the lookback
            return forecasting.DLinear(moving_avg_window_size=window, d_model=64, **common)
        return forecasting.SegRNN(seg_len=24, d_model=64, dropout=0.1, **common)

    def fit(self, history: FloatArray, target: FloatArray) -> LearnedForecaster:
        """Train on ``(N, L, 19)`` histories and ``(N, H, 19)`` targets; returns self.

        Raises:
            WearbenchError: Without PyPOTS, without training windows, or with ``L < lookback``.
        """
        forecasting = import_pypots("forecasting", f"learned forecaster {self.name!r}", self.n_threads)
        if history.shape[0] == 0 or history.shape[1] < self.lookback:
            raise WearbenchError(
                f"learned forecaster {self.name!r}: needs windows with >= {self.lookback} history hours; "
                f"got {history.shape}"
            )
        h = history[:, -self.lookback :, :]
        self.mean_, self.std_ = channel_scaler(h)
        self.horizon_ = int(target.shape[1])
        seed_everything(self.seed)
        self.model_ = self._build(forecasting, self.horizon_)
        self.model_.fit({"X": self._scaled(h), "X_pred": self._scaled(target)})
        return self

    def predict(self, history: FloatArray, horizon: int) -> NDArray[np.float64]:
        """``(N, horizon, 19)`` forecasts (continuous >= 0, binary in [0, 1])."""
        if horizon != self.horizon_:
            raise ValueError(f"{self.name}: trained for horizon {self.horizon_} h, asked for {horizon} h")
        if history.shape[0] == 0:
            return np.empty((0, horizon, 19))
        import_pypots("forecasting", f"learned forecaster {self.name!r}", self.n_threads)
        z = self.model_.predict({"X": self._scaled(history[:, -self.lookback :, :])})["forecasting"]
        out = np.asarray(z, dtype=np.float64) * self.std_ + self.mean_
        out[..., list(CONTINUOUS)] = np.maximum(out[..., list(CONTINUOUS)], 0.0)
        out[..., list(BINARY)] = np.clip(out[..., list(BINARY)], 0.0, 1.0)
        return out
