"""Record-and-replay of computation graphs, on hand-built contexts."""

import json
import math

import numpy as np
import pytest

from wearbench import WearbenchError
from wearbench.questions import Graph, UserContext, jsonable, run_graph


def make_ctx(n: int = 10) -> UserContext:
    dates = np.datetime64("2024-01-01") + np.arange(n).astype("timedelta64[D]")
    hr = np.arange(n, dtype=float) + 60.0  # 60, 61, ..., a clean ramp of +1 bpm/day
    hr[3] = np.nan
    hrv = 100.0 - 2.0 * np.arange(n, dtype=float)
    blood = ({"draw_date": "2024-01-05", "hba1c": 5.4}, {"draw_date": "2024-01-09", "hba1c": 6.1})
    return UserContext(
        "u1",
        dates,
        {"resting_hr": hr, "hrv": hrv},
        {"age": 40.0, "sex": "F"},
        blood,
        {"hrv": {5: 20.0, 95: 80.0}},
    )


def test_series_spans_end_at_the_end_date_and_pad_before_the_record() -> None:
    ctx = make_ctx()
    g = Graph(ctx, "2024-01-05")
    s = g.series("resting_hr", 3)
    assert s.value.tolist() == [62.0, pytest.approx(np.nan, nan_ok=True), 64.0]
    early = g.series("hrv", 7, offset=2)  # 7 days ending 2024-01-03: 4 padded days then 100, 98, 96
    assert np.isnan(early.value[:4]).all()
    assert early.value[4:].tolist() == [100.0, 98.0, 96.0]
    assert [str(d) for d in g.dates(2).value] == ["2024-01-04", "2024-01-05"]


def test_blood_is_the_latest_draw_on_or_before_the_end_date() -> None:
    ctx = make_ctx()
    assert math.isnan(Graph(ctx, "2024-01-04").blood("hba1c").value)  # no draw yet
    assert Graph(ctx, "2024-01-05").blood("hba1c").value == 5.4
    assert Graph(ctx, "2024-01-10").blood("hba1c").value == 6.1


def test_recorded_graph_replays_to_the_same_evidence() -> None:
    ctx = make_ctx()
    g = Graph(ctx, "2024-01-10")
    fit = g.call("ols_slope", g.series("resting_hr", 10))
    lc = g.call(
        "lagged_correlation", g.series("resting_hr", 10), g.series("hrv", 10), max_lag=1, min_overlap=5
    )
    win = g.call("argmax_pair", {"hr~hrv": lc["best_r"], "const": 0.1}, margin=0.15)
    g.output("slope", fit["slope"])
    g.output("winner", win["winner"])
    g.output("ref", g.reference("hrv"))
    evidence = g.evidence()
    assert evidence["slope"] == pytest.approx(1.0)  # the ramp, with one day missing
    assert evidence["winner"] == "hr~hrv"
    assert evidence["ref"] == {"5": 20.0, "95": 80.0}
    serialised = json.loads(json.dumps(g.to_json()))
    assert run_graph(serialised, ctx) == evidence
    assert [n["op"] for n in serialised["nodes"]] == [
        "series",
        "call",
        "series",
        "series",
        "call",
        "call",
        "reference",
    ]
    assert serialised["nodes"][5]["inputs"] == [{"const": 0.1, "hr~hrv": {"$ref": "n4", "path": ["best_r"]}}]


def test_replay_on_changed_data_changes_the_evidence() -> None:
    ctx = make_ctx()
    g = Graph(ctx, "2024-01-10")
    g.output("mean", g.call("nan_stat", g.series("hrv", 4), stat="mean"))
    other = make_ctx()
    other.metrics["hrv"][-1] = 0.0  # type: ignore[index]
    assert run_graph(g.to_json(), ctx) == {"mean": 85.0}  # (88 + 86 + 84 + 82) / 4
    assert run_graph(g.to_json(), other) == {"mean": pytest.approx((88 + 86 + 84 + 0) / 4)}


def test_unknown_primitive_and_bad_arguments_fail_clearly() -> None:
    g = Graph(make_ctx(), "2024-01-10")
    with pytest.raises(WearbenchError, match="did you mean 'ols_slope'"):
        g.call("ols_slop", g.series("hrv", 3))
    with pytest.raises(WearbenchError, match="no parameter"):
        g.call("ols_slope", g.series("hrv", 3), alpah=0.1)
    with pytest.raises(WearbenchError, match="outside the record"):
        Graph(make_ctx(), "2023-12-31")


def test_jsonable_converts_nan_arrays_and_dataclasses() -> None:
    from wearbench.primitives import Slope

    assert jsonable(np.array([1.0, np.nan])) == [1.0, None]
    assert jsonable(Slope(1.0, float("nan"), 2.0, 3, 0.5)) == {
        "slope": 1.0,
        "lo": None,
        "hi": 2.0,
        "n": 3,
        "intercept": 0.5,
    }
    assert jsonable({1: np.float64(2.5)}) == {"1": 2.5}


def test_context_round_trips_through_json_and_gzip() -> None:
    ctx = make_ctx()
    again = UserContext.load(ctx.dump())
    assert ctx.dump() == again.dump()
    assert np.array_equal(again.metrics["resting_hr"], ctx.metrics["resting_hr"], equal_nan=True)
    assert again.reference == {"hrv": {5: 20.0, 95: 80.0}}
    assert again.blood_at(8)["hba1c"] == 6.1  # type: ignore[index]


def test_weighted_sample_is_seeded_distinct_and_follows_weights() -> None:
    from wearbench.questions._helpers import weighted_sample

    items = list("abcd")
    draw = weighted_sample(items, [1.0, 1.0, 1.0, 0.0], 3, np.random.default_rng(0))
    assert sorted(draw) == ["a", "b", "c"]  # zero weight is never drawn; no repeats
    assert draw == weighted_sample(items, [1.0, 1.0, 1.0, 0.0], 3, np.random.default_rng(0))
