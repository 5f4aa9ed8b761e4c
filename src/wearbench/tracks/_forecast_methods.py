"""The forecasting methods by name: the reference and linear baseline, statsforecast, PyPOTS.

A separate module so that the statsforecast and PyPOTS forecasters can build on
:mod:`wearbench.tracks._forecast_models` (the protocol, the seasonal-naive reference) without an
import cycle. statsforecast and PyPOTS themselves are imported only when such a method is fitted.
"""

from __future__ import annotations

from collections.abc import Callable

from wearbench.tracks._forecast_learned import LearnedForecaster
from wearbench.tracks._forecast_models import Forecaster, LagLinear, SeasonalNaive
from wearbench.tracks._forecast_stats import StatsForecaster

#: Forecasting methods by name: a factory of a fresh forecaster with default parameters.
FORECASTERS: dict[str, Callable[[], Forecaster]] = {
    "seasonal_naive": SeasonalNaive,
    "linear": LagLinear,
    "autoets": lambda: StatsForecaster("autoets"),
    "autoarima": lambda: StatsForecaster("autoarima"),
    "dlinear": lambda: LearnedForecaster("dlinear"),
    "segrnn": lambda: LearnedForecaster("segrnn"),
}


def make_forecaster(name: str) -> Forecaster:
    """A fresh forecaster of a registered name (default parameters).

    Raises:
        KeyError: For an unknown name.
    """
    return FORECASTERS[name]()
