"""Forecasting baselines: Seasonal Naive (the reference) and a ridge model over lagged hours.

Protocol (like the imputers'): the constructor stores parameters, ``fit(history, target)`` on the
training users' windows returns ``self``, ``predict(history, horizon)`` returns ``(N, H, 19)``
point forecasts (binary channels: a score in [0, 1]) and may leave NaN where it has nothing to
go on; the track replaces those by the reference (:func:`with_fallback`) and records the rate.

- ``seasonal_naive``: hour ``h`` of the forecast is the value 24 h earlier, the last day repeated
  for ``H = 48`` (``y[t + h - 24 (1 + h // 24)]``). Where that hour is unobserved it carries back
  to the same hour of the most recent earlier day in the history that has it (lag 48, 72, …), and
  where the history never has it, the training users' channel mean (binary: share of ones). So the
  reference is always finite; the share of cells that needed a carry-back or the mean is reported.
- ``linear``: per channel ``c`` and horizon step ``h`` a ridge regression of ``y[t + h, c]`` on the
  24 hours before the origin (``y[t-24 … t-1, c]``, holding the seasonal-naive value of every
  step), the same hour one week before the target (``y[t + h - 168, c]``) and an intercept.
  Missing lags are filled with the channel's training mean; a window whose 25 lags are all missing
  gets NaN (→ the reference). Fitted on every training window with an observed target, penalty
  ``alpha`` × the mean diagonal of ``XᵀX`` (intercept not penalised), solved with numpy.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from wearbench.minutes import BINARY, HOURS_PER_DAY, N_CHANNELS

FloatArray = NDArray[np.floating[Any]]

#: Lag (hours) of the weekly feature of the linear model.
WEEK_HOURS = 168


class Forecaster(Protocol):
    """What the forecasting track calls: ``fit`` on training windows, ``predict`` on test windows."""

    def fit(self, history: FloatArray, target: FloatArray) -> Forecaster:
        """Learn from ``(N, L, 19)`` histories and their ``(N, H, 19)`` targets; returns self."""
        ...

    def predict(self, history: FloatArray, horizon: int) -> NDArray[np.float64]:
        """``(N, horizon, 19)`` point forecasts from ``(N, L, 19)`` histories (NaN allowed)."""
        ...


def _check_history(history: FloatArray, need: int) -> NDArray[np.float64]:
    h = np.asarray(history, dtype=np.float64)
    if h.ndim != 3 or h.shape[2] != N_CHANNELS or h.shape[1] < need:
        raise ValueError(f"history must be (N, L >= {need}, {N_CHANNELS}); got {h.shape}")
    return h


def train_means(history: FloatArray) -> NDArray[np.float64]:
    """``(19,)`` mean of the observed hours of training histories (0.0 for a channel never observed)."""
    h = np.asarray(history, dtype=np.float64).reshape(-1, N_CHANNELS)
    ok = np.isfinite(h)
    n = ok.sum(axis=0)
    total = np.where(ok, h, 0.0).sum(axis=0)
    return np.where(n > 0, total / np.maximum(n, 1), 0.0)


def seasonal_naive(history: FloatArray, horizon: int) -> NDArray[np.float64]:
    """Plain lag-24 forecast: ``y[t + h - 24 (1 + h // 24)]``, NaN where that hour is NaN.

    Args:
        history: ``(N, L, 19)``, ``L >= 24``.
        horizon: ``H`` hours.

    Returns:
        ``(N, H, 19)``.
    """
    h = _check_history(history, HOURS_PER_DAY)
    last_day = h[:, -HOURS_PER_DAY:, :]
    reps = -(-horizon // HOURS_PER_DAY)
    return np.tile(last_day, (1, reps, 1))[:, :horizon, :]


def carried_profile(history: FloatArray) -> NDArray[np.float64]:
    """``(N, 24, 19)``: per hour of day, the value on the latest history day that has it (NaN if none)."""
    h = _check_history(history, HOURS_PER_DAY)
    n, length, c = h.shape
    days = length // HOURS_PER_DAY
    by_day = h[:, length - days * HOURS_PER_DAY :, :].reshape(n, days, HOURS_PER_DAY, c)
    out = np.full((n, HOURS_PER_DAY, c), np.nan)
    for d in range(days - 1, -1, -1):  # most recent day first
        gap = np.isnan(out)
        out[gap] = by_day[:, d][gap]
    return out


class SeasonalNaive:
    """The reference: lag 24 h, carried back to earlier days, then the training channel mean."""

    def __init__(self) -> None:
        pass

    def fit(self, history: FloatArray, target: FloatArray) -> SeasonalNaive:
        """Store the training channel means (the last-resort value); returns self."""
        self.means_ = train_means(history)
        return self

    def predict(self, history: FloatArray, horizon: int) -> NDArray[np.float64]:
        """``(N, horizon, 19)`` finite forecasts (see the module docstring)."""
        prof = carried_profile(history)
        reps = -(-horizon // HOURS_PER_DAY)
        out = np.tile(prof, (1, reps, 1))[:, :horizon, :]
        return np.where(np.isnan(out), self.means_[None, None, :], out)


class LagLinear:
    """Ridge per channel and horizon step over the 24 h before the origin and the weekly lag.

    Args:
        alpha: Relative ridge penalty (× mean diagonal of ``XᵀX`` over the lag features).
    """

    def __init__(self, alpha: float = 1e-3) -> None:
        self.alpha = alpha

    def _features(self, history: NDArray[np.float64], horizon: int) -> NDArray[np.float64]:
        """``(N, H, 19, 26)``: 24 recent lags, the weekly lag of each step, and 1."""
        n, length, c = history.shape
        recent = history[:, -HOURS_PER_DAY:, :].transpose(0, 2, 1)  # (N, 19, 24)
        week_idx = length - WEEK_HOURS + np.arange(horizon)
        week = history[:, week_idx, :]  # (N, H, 19)
        x = np.empty((n, horizon, c, HOURS_PER_DAY + 2))
        x[..., :HOURS_PER_DAY] = recent[:, None, :, :]
        x[..., HOURS_PER_DAY] = week
        x[..., HOURS_PER_DAY + 1] = 1.0
        return x

    def _filled(self, history: FloatArray, horizon: int) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
        """Features with missing lags filled by the channel mean, and ``(N, H, 19)`` "all lags missing"."""
        h = _check_history(history, WEEK_HOURS)
        if horizon > WEEK_HOURS:
            raise ValueError(f"the linear model forecasts at most {WEEK_HOURS} hours; got {horizon}")
        x = self._features(h, horizon)
        lags = x[..., :-1]
        empty: NDArray[np.bool_] = np.asarray(np.isnan(lags).all(axis=-1), dtype=bool)
        x[..., :-1] = np.where(np.isnan(lags), self.means_[None, None, :, None], lags)
        return x, empty

    def fit(self, history: FloatArray, target: FloatArray) -> LagLinear:
        """Fit ``(H, 19, 26)`` coefficients on the windows with an observed target; returns self."""
        self.means_ = train_means(history)
        y = np.asarray(target, dtype=np.float64)
        horizon = y.shape[1]
        x, empty = self._filled(history, horizon)
        ok = np.isfinite(y) & ~empty
        xw = np.where(ok[..., None], x, 0.0)
        xtx = np.einsum("nhcp,nhcq->hcpq", xw, xw)
        xty = np.einsum("nhcp,nhc->hcp", xw, np.where(ok, y, 0.0))
        p = x.shape[-1]
        diag = np.einsum("hcpp->hcp", xtx)[..., :-1].mean(axis=-1)
        pen = np.eye(p)[None, None] * (self.alpha * diag + 1e-9)[..., None, None]
        pen[..., -1, -1] = 1e-9
        self.coef_ = np.linalg.solve(xtx + pen, xty[..., None])[..., 0]
        self.horizon_ = horizon
        return self

    def predict(self, history: FloatArray, horizon: int) -> NDArray[np.float64]:
        """``(N, horizon, 19)``; binary channels clipped to [0, 1]; NaN where all lags are missing."""
        if horizon != self.horizon_:
            raise ValueError(f"fitted for horizon {self.horizon_} h, asked for {horizon} h")
        x, empty = self._filled(history, horizon)
        out = np.einsum("nhcp,hcp->nhc", x, self.coef_)
        b = list(BINARY)
        out[..., b] = np.clip(out[..., b], 0.0, 1.0)
        return np.where(empty, np.nan, out)


def with_fallback(
    forecast: FloatArray, reference: FloatArray, scored: NDArray[np.bool_]
) -> tuple[NDArray[np.float64], int]:
    """Replace non-finite forecasts by the reference's; count the replaced scored cells.

    Args:
        forecast: ``(N, H, 19)`` a method's forecasts.
        reference: ``(N, H, 19)`` finite seasonal-naive forecasts.
        scored: ``(N, H, 19)`` bool, the observed target hours.

    Returns:
        ``(filled, n_fallback)`` with ``n_fallback`` the replaced cells inside ``scored``.
    """
    f = np.asarray(forecast, dtype=np.float64)
    bad = ~np.isfinite(f)
    return np.where(bad, reference, f), int((bad & scored).sum())
