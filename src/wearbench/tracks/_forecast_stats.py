"""Statistical forecasters through statsforecast: AutoETS and AutoARIMA, batched over all series.

Every continuous channel (0-6) of every window is one series; all of them go to ONE
``StatsForecast(models=[model], freq=1, n_jobs=n_jobs).forecast(df=..., h=H)`` call (that batching
is statsforecast's speed: one process, numba-compiled kernels, no per-series Python set-up).

- **History**: the last ``history_hours`` (336) hours before the origin, starting at midnight of
  the first history day with an observed hour (leading unobserved days, e.g. before the
  trajectory, are dropped, so the seasonal phase stays aligned to the origin).
- **NaN fill** (statsforecast takes no NaN): an unobserved hour gets the value of the same hour on
  the nearest history day that has it (ties: the earlier day); an hour of day that is never observed
  is linearly interpolated in time (constant beyond the ends). A series with fewer than
  ``min_observed`` observed hours is not fitted: its forecast is NaN, so the track's fallback (the
  seasonal-naive reference) fills it and counts it.
- **Outputs**: continuous forecasts are clipped at 0 (every continuous channel is a non-negative
  count, sum or bpm). Binary channels (7-18) are not modelled: they get the seasonal-naive value
  (:class:`~wearbench.tracks.SeasonalNaive`, lag 24 h carried back, else the training share), so
  binary skill against the reference is exactly 0 and the fallback rate counts only continuous
  failures.
- **Models**: ``autoets`` = ``AutoETS(season_length=24, model="ZNA")`` (error type chosen by AICc,
  no trend, additive daily season); ``autoarima`` = ``AutoARIMA(season_length=24)`` with every
  order at most 1 (``p, q, P, Q, d, D <= 1``), stepwise with the CSS approximation. Both are
  restrictions chosen for time (measured in ``docs/openmhc-forecasting.md``).
"""

from __future__ import annotations

import importlib
import warnings
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from wearbench._errors import WearbenchError
from wearbench.minutes import CONTINUOUS, HOURS_PER_DAY
from wearbench.tracks._forecast_models import FloatArray, SeasonalNaive

StatsModelName = Literal["autoets", "autoarima"]

#: Fewest observed history hours for a series to be fitted (else NaN -> the reference).
MIN_OBSERVED = 48


def seasonal_fill(series: FloatArray) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Fill NaN in ``(S, L)`` hourly series (``L`` a multiple of 24, ending at an origin).

    Args:
        series: ``(S, L)`` values, NaN = unobserved.

    Returns:
        ``(filled, start)``: ``(S, L)`` with every hour from ``start[s]`` on finite (earlier hours
        NaN), and ``(S,)`` the first kept hour (midnight of the first day with an observed hour;
        ``L`` for a series with none).
    """
    x = np.asarray(series, dtype=np.float64)
    n, length = x.shape
    if length % HOURS_PER_DAY:
        raise ValueError(f"series length must be a multiple of 24 hours; got {length}")
    days = length // HOURS_PER_DAY
    by_day = x.reshape(n, days, HOURS_PER_DAY)
    obs = np.isfinite(by_day)
    day = np.arange(days)[None, :, None]
    prev = np.maximum.accumulate(np.where(obs, day, -1), axis=1)
    nxt = np.flip(np.minimum.accumulate(np.flip(np.where(obs, day, days), axis=1), axis=1), axis=1)
    use_prev = (prev >= 0) & ((nxt >= days) | (day - prev <= nxt - day))
    src = np.where(use_prev, prev, nxt)
    have = src < days
    src = np.clip(src, 0, days - 1)
    picked = np.take_along_axis(by_day, src, axis=1)
    out = np.where(have, picked, np.nan).reshape(n, length)
    any_obs = np.isfinite(x)
    first = np.where(any_obs.any(axis=1), any_obs.argmax(axis=1), length)
    start = (first // HOURS_PER_DAY) * HOURS_PER_DAY
    t = np.arange(length)
    for s in np.flatnonzero(np.isnan(out).any(axis=1) & (first < length)):
        ok = np.isfinite(out[s])
        out[s] = np.interp(t, t[ok], out[s, ok])
    out[t[None, :] < start[:, None]] = np.nan
    return out, start.astype(np.int64)


def _statsforecast(name: StatsModelName, season: int) -> tuple[Any, Any]:
    """``(StatsForecast class, model instance)``, imported lazily."""
    try:
        core = importlib.import_module("statsforecast")
        models = importlib.import_module("statsforecast.models")
    except ImportError as e:
        raise WearbenchError(
            f'forecaster {name!r} needs statsforecast ({e}); install it with: pip install -e ".[tracks]"'
        ) from e
    if name == "autoets":
        return core.StatsForecast, models.AutoETS(season_length=season, model="ZNA")
    small = {"max_p": 1, "max_q": 1, "max_P": 1, "max_Q": 1, "max_d": 1, "max_D": 1}
    return core.StatsForecast, models.AutoARIMA(season_length=season, approximation=True, **small)


def batch_forecast(
    series: list[NDArray[np.float64]],
    horizon: int,
    name: StatsModelName,
    season: int = HOURS_PER_DAY,
    n_jobs: int = 1,
) -> NDArray[np.float64]:
    """Forecast every series in ONE ``StatsForecast(...).forecast`` call.

    Args:
        series: ``S`` finite 1-D hourly series (lengths may differ; each ends at its origin).
        horizon: ``H`` hours.
        name: ``"autoets"`` or ``"autoarima"``.
        season: Season length in hours.
        n_jobs: statsforecast processes.

    Returns:
        ``(S, H)`` point forecasts (NaN where the model returned none).
    """
    if not series:
        return np.empty((0, horizon))
    pd = importlib.import_module("pandas")
    sf_class, model = _statsforecast(name, season)
    lengths = np.array([len(s) for s in series])
    df = pd.DataFrame(
        {
            "unique_id": np.repeat(np.arange(len(series)), lengths),
            "ds": np.concatenate([np.arange(k) for k in lengths]),
            "y": np.concatenate(series),
        }
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # ARIMA convergence notes, one per series
        fc = sf_class(models=[model], freq=1, n_jobs=n_jobs).forecast(df=df, h=horizon)
    fc = fc.sort_values(["unique_id", "ds"])
    col = next(c for c in fc.columns if c not in ("unique_id", "ds"))
    return np.asarray(fc[col].to_numpy(dtype=np.float64)).reshape(len(series), horizon)


class StatsForecaster:
    """AutoETS or AutoARIMA (statsforecast) on the continuous channels; seasonal naive on binary ones.

    Args:
        model: ``"autoets"`` or ``"autoarima"``.
        history_hours: Most history hours a series uses (the seed: 336).
        min_observed: Fewest observed hours to fit a series (else NaN -> fallback).
        n_jobs: statsforecast processes (1: the batching alone).
    """

    def __init__(
        self, model: StatsModelName = "autoets", history_hours: int = 336, min_observed: int = MIN_OBSERVED,
        n_jobs: int = 1,
    ) -> None:  # fmt: skip
        self.model = model
        self.history_hours = history_hours
        self.min_observed = min_observed
        self.n_jobs = n_jobs

    def fit(self, history: FloatArray, target: FloatArray) -> StatsForecaster:
        """Local models: only the binary channels' seasonal-naive reference is fitted; returns self."""
        self.reference_ = SeasonalNaive().fit(history, target)
        return self

    def predict(self, history: FloatArray, horizon: int) -> NDArray[np.float64]:
        """``(N, horizon, 19)``: fitted continuous channels, seasonal naive on binary ones."""
        out = self.reference_.predict(history, horizon)
        keep = (self.history_hours // HOURS_PER_DAY) * HOURS_PER_DAY
        h = np.asarray(history, dtype=np.float64)[:, -keep:, :]
        cont = list(CONTINUOUS)
        n, length, _ = h.shape
        flat = h[:, :, cont].transpose(0, 2, 1).reshape(-1, length)  # (N * 7, L), window-major
        filled, start = seasonal_fill(flat)
        fit = np.flatnonzero(np.isfinite(flat).sum(axis=1) >= self.min_observed)
        fc = batch_forecast([filled[s, start[s] :] for s in fit], horizon, self.model, n_jobs=self.n_jobs)
        res = np.full((flat.shape[0], horizon), np.nan)
        res[fit] = np.maximum(fc, 0.0)
        out[:, :, cont] = res.reshape(n, len(cont), horizon).transpose(0, 2, 1)
        return out
