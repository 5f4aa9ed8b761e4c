"""A real-data benchmark: T1D-UOM from the shared data folder, imported on the 5-minute grid.

Skips when the data folder is absent (``$WEARBENCH_SHARED_DATA`` or ``<repo>/../shared/data``, as
in ``tests/cgm/conftest.py``).
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from wearbench.cgm.sources import import_cgm
from wearbench.cgmqa import (
    build_cgm_benchmark,
    read_cgm_items,
    read_records,
    record_window,
    templates,
    verify_cgm_benchmark,
)

_DEFAULT = Path(__file__).resolve().parents[2].parent / "shared" / "data"


@pytest.fixture(scope="module")
def real(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """``(imported folder, seed-sampled benchmark)`` of T1D-UOM."""
    root = Path(os.environ.get("WEARBENCH_SHARED_DATA", _DEFAULT))
    if not (root / "t1d_uom").is_dir():
        pytest.skip(f"T1D-UOM not found under {root} (set WEARBENCH_SHARED_DATA)")
    tmp = tmp_path_factory.mktemp("real")
    import_cgm("t1d-uom", root / "t1d_uom", tmp / "data", grid=5)
    build_cgm_benchmark(tmp / "data", tmp / "bench", seed=42)
    return tmp / "data", tmp / "bench"


def test_real_build_has_pm_and_recorded_future_pd_and_draws_the_seed_counts(
    real: tuple[Path, Path],
) -> None:
    data, bench = real
    m = json.loads((bench / "manifest.json").read_text(encoding="utf-8"))
    assert m["data"]["kind"] == "real"
    assert m["families"] == ["pm", "pd"]
    items = read_cgm_items(bench)
    assert {i["family"] for i in items} == {"pm", "pd"}
    # real data cannot be re-simulated: only the recorded-future PD templates are asked
    whatif = {t.id for t in templates("pd") if "counterfactual" in t.needs}
    assert not {i["template"] for i in items} & whatif
    assert all(set(m["drops"][t]) == {"needs a counterfactual re-simulation"} for t in whatif)
    assert "counterfactuals" not in m
    assert len(read_records(data)) == 13
    assert len(m["draws"]["pm/descriptive"]["chosen"]) == 8
    assert len(m["draws"]["pm/memory"]["chosen"]) == 9
    # no exercise in T1D-UOM: those templates are dropped with the reason
    assert set(m["drops"]["pm_28"]) == {"needs exercise"}
    # insulin per sample exists for the pump users only (basal rates in U/h, cgmqa/_pump.py)
    records = read_records(data)
    pumps = sorted(r.subject for r in records if r.insulin is not None)
    assert pumps == ["2301", "2304", "2307", "2308", "2309", "2310"]
    assert m["counts"]["by_template"]["pd_2"] > 0
    assert m["drops"]["pm_41"]["needs insulin per sample"] == len(
        set(m["draws"]["pm/descriptive"]["chosen"]) - set(pumps)
    )
    sheet = (bench / "datasheet.md").read_text(encoding="utf-8")
    assert "- AD left out: real data has no fault labels." in sheet
    assert "| 472 |" in sheet


def test_long_real_records_are_cut_to_the_30_densest_days(real: tuple[Path, Path]) -> None:
    data, bench = real
    records = {r.subject: r for r in read_records(data)}
    for item in read_cgm_items(bench):
        record = records[item["patient"]]
        ctx = item["context"]
        assert ctx["days"] == min(30, record.days)
        w = record_window(record)
        assert (ctx["first_day"], ctx["days"]) == (w.first_day, w.days)
        per_day = np.isfinite(record.bg).reshape(record.days, 288).sum(axis=1)
        best = max(per_day[i : i + w.days].sum() for i in range(record.days - w.days + 1))
        assert per_day[w.first_day - 1 : w.last_day].sum() == best


def test_real_build_verifies(real: tuple[Path, Path]) -> None:
    report = verify_cgm_benchmark(real[1])
    assert report.ok
    assert report.n_verified == report.n_items > 0
