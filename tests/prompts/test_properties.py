"""Property tests: tables round-trip their values, missing values are never dropped."""

import io
import math

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.prompts.conftest import make_item

from wearbench._registry import registry
from wearbench.prompts import data_view, summary_stats
from wearbench.questions import UserContext

_VALUE = st.one_of(st.just(math.nan), st.floats(0, 5000, allow_nan=False).map(lambda x: round(x, 1)))


def _ctx(hr: list[float], hrv: list[float]) -> UserContext:
    n = len(hr)
    dates = np.datetime64("2024-01-01", "D") + np.arange(n).astype("timedelta64[D]")
    metrics = {"resting_hr": np.array(hr, dtype=float), "hrv": np.array(hrv, dtype=float)}
    return UserContext("u1", dates, metrics, {"age": 40.0, "sex": "M", "bmi": 24.0, "ethnicity": "x"}, (), {})


_SERIES = st.integers(1, 12).flatmap(
    lambda n: st.tuples(st.lists(_VALUE, min_size=n, max_size=n), st.lists(_VALUE, min_size=n, max_size=n))
)


def _text(name: str, ctx: UserContext, n: int) -> str:
    view = data_view(make_item(end=str(ctx.dates[-1]), window=1, history=n), ctx)
    return registry.get("representation", name).obj(view)[0].text


@settings(max_examples=60)
@given(_SERIES)
def test_csv_round_trips_values(series):
    hr, hrv = series
    ctx = _ctx(hr, hrv)
    text = _text("csv", ctx, len(hr))
    if "```csv" not in text:  # both series empty: nothing to show
        assert all(math.isnan(v) for v in hr + hrv)
        return
    block = text.split("```csv\n", 1)[1].split("\n```", 1)[0]
    df = pd.read_csv(io.StringIO(block))
    for name, values in (("resting_hr [bpm]", hr), ("hrv [ms]", hrv)):
        if all(math.isnan(v) for v in values):
            assert name not in df.columns
            continue
        np.testing.assert_allclose(df[name].to_numpy(dtype=float), values, rtol=0, atol=1e-9)


@settings(max_examples=60)
@given(_SERIES)
def test_missing_values_are_shown_not_dropped(series):
    hr, hrv = series
    ctx = _ctx(hr, hrv)
    view = data_view(make_item(end=str(ctx.dates[-1]), window=1, history=len(hr)), ctx)
    missing = sum(s.n_missing for s in view.series)
    if not view.series:
        return
    for name in ("row", "column", "markdown"):
        body = _text(name, ctx, len(hr)).split("## Daily records", 1)[1]
        assert body.count("NA") == missing + 1  # + the header's "Missing values: NA."
    for st_ in summary_stats(view.series):
        assert st_.n + st_.missing == len(hr)
