"""Contract suites over every registered loader, CGM loader, fault, adapter, baseline and controller.

As ``tests/primitives/test_registry_contract.py`` does for primitives: a new plugin of any kind
is checked by these tests without a line added here.
"""

from __future__ import annotations

import inspect
from pathlib import Path

import numpy as np
import pytest

from wearbench import WearbenchError, registry
from wearbench._catalogue import render_catalogue
from wearbench._registry import KINDS
from wearbench.models import ModelError, load_model
from wearbench.runner import spec_forms
from wearbench.sim.faults import STREAMS, FaultWindow
from wearbench.sources import import_source
from wearbench.sources._loader import run_loader

LOADERS = registry.names("loader")
CGM_LOADERS = registry.names("cgm_loader")
FAULTS = registry.names("fault")
ADAPTERS = registry.names("adapter")
BASELINES = registry.names("baseline")
ALL_LOADERS = [("loader", n) for n in LOADERS] + [("cgm_loader", n) for n in CGM_LOADERS]


def _summary(kind: str, name: str) -> str:
    return (inspect.getdoc(registry.get(kind, name).obj) or "").strip()  # type: ignore[arg-type]


def test_every_kind_has_entries_and_a_catalogue() -> None:
    for kind in KINDS:
        rows = registry.catalogue(kind)
        assert rows, kind
        assert all(r["summary"] for r in rows), kind
        assert render_catalogue(kind, "text").count("\n") >= len(rows)


def test_kinds_are_separate_baselines_are_not_adapters() -> None:
    assert set(BASELINES) == {"majority-position", "oracle", "prior", "random", "text-only", "naive-allday",
                              "naive-empty", "naive-last", "naive-majority", "naive-mean"}  # fmt: skip
    assert {e.name for e in registry.entries("baseline", benchmark="healthloopqa")} == {
        n for n in BASELINES if n.startswith("naive-")
    }
    assert set(ADAPTERS) == {"anthropic", "gguf", "openai"}
    assert set(registry.names("controller")) == {"basal-bolus", "hcl-mpc", "mdi", "openaps", "pid", "sap"}


# --- loaders: (path, log) -> what the loader reads; garbage refused with a one-line error ----


@pytest.mark.parametrize(
    ("kind", "name"), [("loader", n) for n in LOADERS] + [("cgm_loader", n) for n in CGM_LOADERS]
)
def test_loader_declares_its_formats_and_takes_path_and_log(kind: str, name: str) -> None:
    entry = registry.get(kind, name)  # type: ignore[arg-type]
    assert str(entry.tags.get("formats", "")).strip(), f"{kind} {name}: no formats tag"
    if kind == "cgm_loader":
        assert "mg/dL" in entry.tags["units"] or "mmol/L" in entry.tags["units"]
    assert list(inspect.signature(entry.obj).parameters)[:2] == ["path", "log"]
    assert _summary(kind, name)


@pytest.mark.parametrize(
    ("kind", "name"), [("loader", n) for n in LOADERS] + [("cgm_loader", n) for n in CGM_LOADERS]
)
def test_loader_refuses_a_missing_path_naming_it(kind: str, name: str, tmp_path: Path) -> None:
    missing = tmp_path / "absent.csv"
    with pytest.raises(WearbenchError, match=r"absent\.csv: no such file or folder"):
        run_loader(kind, name, missing)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("kind", "name"), [("loader", n) for n in LOADERS] + [("cgm_loader", n) for n in CGM_LOADERS]
)
def test_loader_refuses_an_empty_folder_with_a_wearbench_error(kind: str, name: str, tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(WearbenchError):
        run_loader(kind, name, empty)  # type: ignore[arg-type]


def test_import_source_suggests_a_close_loader_name(tmp_path: Path) -> None:
    with pytest.raises(WearbenchError, match="did you mean 'fitabase'"):
        import_source("fitabse", tmp_path)


# --- faults: one FaultWindow -> the stream's values: same shape, non-negative, pure ---------


def _window(values: list[float], low: float, high: float) -> FaultWindow:
    return FaultWindow(np.array(values), np.array([100.0, 110.0, 120.0]), 30, 0.5, low, high)


@pytest.mark.parametrize("name", FAULTS)
def test_fault_declares_target_stream_and_category(name: str) -> None:
    tags = registry.get("fault", name).tags
    assert tags["target"] in {"cgm", "meal", "delivery", "pump_display"}
    assert tags["category"] in {"malfunction", "attack"}
    if "stream" in tags:
        assert tags["stream"] in STREAMS or tags["stream"] == "total"
    assert list(inspect.signature(registry.get("fault", name).obj).parameters) == ["w"]
    assert _summary("fault", name)


@pytest.mark.parametrize("name", FAULTS)
def test_fault_returns_the_window_shape_non_negative_and_is_pure(name: str) -> None:
    fn = registry.get("fault", name).obj
    low, high = (40.0, 400.0) if registry.get("fault", name).tags["target"] == "cgm" else (0.0, 0.5)
    scale = 1.0 if low == 40.0 else 0.001
    window = _window([scale * v for v in (120.0, 125.0, 130.0, 128.0)], low, high)
    before = window.values.copy()
    out = fn(window)
    again = fn(_window(list(before), low, high))
    assert out.shape == before.shape
    np.testing.assert_array_equal(window.values, before)  # the input is not modified
    np.testing.assert_array_equal(out, again)  # deterministic
    shown = out[~np.isnan(out)]
    assert np.all(np.isfinite(shown) & (shown >= 0.0)), out  # mg/dL, g and U/min are never negative


# --- adapters and baselines: each declares its spec form; the grammar is generated ----------


@pytest.mark.parametrize("name", ADAPTERS)
def test_adapter_declares_its_spec_form_and_takes_the_rest(name: str) -> None:
    entry = registry.get("adapter", name)
    assert str(entry.tags["form"]).startswith(f"{name}:")
    assert next(iter(inspect.signature(entry.obj).parameters)) == "rest"
    assert entry.tags["form"] in spec_forms()
    assert _summary("adapter", name)


@pytest.mark.parametrize("name", ADAPTERS)
def test_adapter_refuses_an_empty_spec_listing_every_form(name: str) -> None:
    with pytest.raises(ModelError) as info:
        load_model(f"{name}:")
    for entry in registry.entries("adapter"):
        assert str(entry.tags["form"]) in str(info.value)


@pytest.mark.parametrize("name", BASELINES)
def test_baseline_takes_items_and_seed_and_is_in_the_grammar(name: str) -> None:
    assert list(inspect.signature(registry.get("baseline", name).obj).parameters) == ["items", "seed"]
    assert name in spec_forms()[0]
    assert _summary("baseline", name)
