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
    Window,
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


def test_real_windows_are_the_densest_ending_on_a_complete_day(real: tuple[Path, Path]) -> None:
    """Up to 30 days ending on a day of >= 231 of 288 readings, the most readings of all such."""
    data, bench = real
    records = {r.subject: r for r in read_records(data)}
    for item in read_cgm_items(bench):
        record = records[item["patient"]]
        ctx = item["context"]
        w = record_window(record, complete_end=True)
        assert (ctx["first_day"], ctx["days"]) == (w.first_day, w.days)
        per_day = np.isfinite(record.bg).reshape(record.days, 288).sum(axis=1)
        assert per_day[w.last_day - 1] >= 231
        ends = [e for e in range(1, record.days + 1) if per_day[e - 1] >= 231]
        best = max(per_day[max(0, e - 30) : e].sum() for e in ends)
        assert per_day[w.first_day - 1 : w.last_day].sum() == best


def test_a_partial_last_day_is_not_held_out(real: tuple[Path, Path]) -> None:
    """2307 has 30 days; day 30 holds 183 readings, so days 1-29 are its window and day 29 is held out."""
    data, bench = real
    record = next(r for r in read_records(data) if r.subject == "2307")
    per_day = np.isfinite(record.bg).reshape(record.days, 288).sum(axis=1)
    assert (record.days, per_day[29], per_day[28]) == (30, 183, 288)
    assert record_window(record) == Window("2307", 1, 30)
    assert record_window(record, complete_end=True) == Window("2307", 1, 29)
    items = [i for i in read_cgm_items(bench) if i["patient"] == "2307"]
    assert items
    assert {(i["context"]["first_day"], i["context"]["days"]) for i in items} == {(1, 29)}
    m = json.loads((bench / "manifest.json").read_text(encoding="utf-8"))
    assert m["complete_day_readings"] == 231
    sheet = (bench / "datasheet.md").read_text(encoding="utf-8")
    why = "later day(s) partial or less dense: 30 (183)"
    row = f"| 2307 | 30 | 1–29 | {per_day[:29].sum():,} | 29 (288) | {why} |"
    assert row in sheet


def test_real_build_verifies(real: tuple[Path, Path]) -> None:
    report = verify_cgm_benchmark(real[1])
    assert report.ok
    assert report.n_verified == report.n_items > 0
