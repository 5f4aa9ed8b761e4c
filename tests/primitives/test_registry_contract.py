"""One contract suite over every registered primitive (statsforecast/tsfresh style)."""

from __future__ import annotations

import dataclasses
import inspect
import json
import math
import warnings
from typing import Any

import numpy as np
import pytest

import wearbench.primitives as prim
from wearbench import UnknownNameError, registry
from wearbench._registry import Spec

ENTRIES = list(registry.entries("primitive"))
IDS = [e.name for e in ENTRIES]
COSTS = {"cheap", "moderate", "expensive"}
NOT_PRIMITIVES = {"bootstrap_days", "bootstrap_indices", "cutoff_tables", "leave_one_day_out", "primitive"}

#: Required keyword parameters (no default) per primitive; a new one must be added here.
REQUIRED = {"recovery_time": {"onset": 60}}


def make_inputs(seed: int = 2024) -> dict[str, Any]:
    """One fixed random value per input name used in ``inputs`` tags (90 days with gaps)."""
    rng = np.random.default_rng(seed)
    n = 90
    values = 60 + 5 * rng.standard_normal(n)
    values[rng.choice(n, 9, replace=False)] = np.nan
    y = np.roll(values, 2) + rng.standard_normal(n)
    return {
        "values": values,
        "x": values.copy(),
        "y": y,
        "dates": np.arange(np.datetime64("2024-01-01"), np.datetime64("2024-01-01") + n),
        "scores": {"hrv~rhr": -0.62, "sleep~rhr": 0.41, "steps~rhr": math.nan},
        "panel": {
            "fasting_glucose": 104.0,
            "insulin": 9.0,
            "hba1c": 5.8,
            "triglycerides": 160.0,
            "hdl": 44.0,
            "ldl": 128.0,
            "total_cholesterol": 205.0,
        },
        "value": 57.0,
        "percentiles": {5: 48.0, 10: 51.0, 25: 55.0, 50: 60.0, 75: 64.0, 90: 69.0, 95: 72.0},
        "fasting_glucose_mg_dl": 95.0,
        "insulin_uiu_ml": 8.0,
    }


def assert_same(a: Any, b: Any) -> None:
    """Exact equality that treats NaN == NaN and recurses through dataclasses and containers."""
    assert type(a) is type(b)
    if dataclasses.is_dataclass(a) and not isinstance(a, type):
        for f in dataclasses.fields(a):
            assert_same(getattr(a, f.name), getattr(b, f.name))
    elif isinstance(a, np.ndarray):
        assert a.dtype == b.dtype
        np.testing.assert_array_equal(a, b, strict=True)
    elif isinstance(a, tuple | list):
        assert len(a) == len(b)
        for u, v in zip(a, b, strict=True):
            assert_same(u, v)
    elif isinstance(a, dict):
        assert list(a) == list(b)
        for k in a:
            assert_same(a[k], b[k])
    elif isinstance(a, float):
        assert a == b or (math.isnan(a) and math.isnan(b))
    else:
        assert a == b


def keyword_defaults(fn: Any) -> dict[str, Any]:
    params = inspect.signature(fn).parameters.values()
    return {p.name: p.default for p in params if p.kind is p.KEYWORD_ONLY and p.default is not p.empty}


def call(entry: Any, inputs: dict[str, Any]) -> Any:
    args = [inputs[name] for name in entry.tags["inputs"]]
    return entry.obj(*args, **REQUIRED.get(entry.name, {}))


def test_everything_public_is_registered():
    public = {n for n in prim.__all__ if inspect.isfunction(getattr(prim, n))} - NOT_PRIMITIVES
    assert public == set(IDS)
    assert len(IDS) >= 17


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_tags(entry):
    assert isinstance(entry.tags["inputs"], tuple)
    assert entry.tags["inputs"]
    assert entry.tags["cost"] in COSTS
    assert isinstance(entry.tags["units"], str)
    assert entry.tags["units"]
    assert isinstance(entry.tags["output"], str)
    assert set(entry.tags["inputs"]) <= set(make_inputs())


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_signature_matches_inputs_tag(entry):
    params = list(inspect.signature(entry.obj).parameters.values())
    positional = [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    assert tuple(positional) == entry.tags["inputs"]
    keyword = [p for p in params if p.kind is p.KEYWORD_ONLY]
    assert len(keyword) == len(params) - len(positional)  # no *args / **kwargs
    required = {p.name for p in keyword if p.default is p.empty}
    assert required == set(REQUIRED.get(entry.name, {}))


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_docstring(entry):
    doc = inspect.getdoc(entry.obj)
    assert doc
    assert "Returns:" in doc
    assert "Args:" in doc


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_parameters_are_json_and_round_trip(entry):
    args = keyword_defaults(entry.obj) | REQUIRED.get(entry.name, {})
    for value in args.values():
        assert value is None or isinstance(value, bool | int | float | str)
    spec = entry.spec(**args)
    again = Spec.from_dict(json.loads(spec.to_json()))
    assert again == spec
    inputs = make_inputs()
    direct = call(entry, inputs)
    via_spec = registry.call(again, *[inputs[name] for name in entry.tags["inputs"]])
    assert_same(direct, via_spec)


@pytest.mark.parametrize("entry", ENTRIES, ids=IDS)
def test_deterministic_and_pure(entry):
    inputs = make_inputs()
    first = call(entry, inputs)
    second = call(entry, make_inputs())
    assert_same(first, second)
    assert_same(inputs, make_inputs())  # inputs are not modified


def float_leaves(obj: Any) -> list[float]:
    """Every float in a result (dataclass fields, arrays, containers), flattened."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return [v for f in dataclasses.fields(obj) for v in float_leaves(getattr(obj, f.name))]
    if isinstance(obj, np.ndarray):
        return obj.ravel().tolist() if obj.dtype.kind == "f" else []
    if isinstance(obj, tuple | list):
        return [v for item in obj for v in float_leaves(item)]
    return [obj] if isinstance(obj, float) else []


SERIES_ONLY = [
    e
    for e in ENTRIES
    if e.tags["inputs"] == ("values",) and e.name not in REQUIRED and e.tags.get("estimates", True)
]


@pytest.mark.parametrize("entry", SERIES_ONLY, ids=[e.name for e in SERIES_ONLY])
@pytest.mark.parametrize(
    "values", [np.array([]), np.array([1.0]), np.full(40, np.nan)], ids=["empty", "one", "nan"]
)
def test_degenerate_series_are_undefined_without_warnings(entry, values):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = entry.obj(values)
    assert all(math.isnan(v) for v in float_leaves(out))  # nothing is estimable from <= 1 day
    if isinstance(out, int | tuple):
        assert not out  # no excursions


def test_unknown_name_suggests_close_match():
    with pytest.raises(UnknownNameError) as info:
        registry.get("primitive", "lagged_corelation")
    assert info.value.suggestions[0] == "lagged_correlation"
    assert "did you mean 'lagged_correlation'" in str(info.value)


def test_query_by_tag():
    pairwise = {e.name for e in registry.entries("primitive", inputs="x")}
    assert pairwise == {"lagged_correlation"}
    assert "rolling_baseline" in {e.name for e in registry.entries("primitive", cost="cheap")}
