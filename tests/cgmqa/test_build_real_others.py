"""Real-data benchmarks from the other public CGM datasets: ShanghaiT1DM, D1NAMO and Hall 2018.

Each is imported on the 5-minute grid from the shared data folder and built with the seed
sampling: PM and the PD templates whose truth is the recorded future, never AD (no fault labels)
or a counterfactual template (real data cannot be re-simulated), every drop with its reason; the
benchmark verifies. Skips when a dataset is absent (``$WEARBENCH_SHARED_DATA`` or
``<repo>/../shared/data``). T1D-UOM has its own file (``test_build_real.py``).
"""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path

import pytest

from wearbench.cgm.sources import import_cgm
from wearbench.cgmqa import build_cgm_benchmark, read_cgm_items, templates, verify_cgm_benchmark

_DEFAULT = Path(__file__).resolve().parents[2].parent / "shared" / "data"

#: loader, path under the data folder, patients with items, items per recorded-future PD
#: template (pd_0, pd_4, pd_12) — one per patient whose last complete day can be held out.
CASES = {
    "shanghai": ("shanghai", 12, (12, 12, 12)),
    "d1namo": ("cgm_d1namo/diabetes_subset", 6, (6, 6, 6)),
    "hall2018": ("cgm_hall2018/example_data_hall.csv", 18, (16, 16, 14)),
}


@pytest.fixture(scope="module", params=sorted(CASES))
def built(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> tuple[str, Path]:
    name = str(request.param)
    root = Path(os.environ.get("WEARBENCH_SHARED_DATA", _DEFAULT))
    path = root / CASES[name][0]
    if not path.exists():
        pytest.skip(f"{path} not found (set WEARBENCH_SHARED_DATA)")
    tmp = tmp_path_factory.mktemp(name)
    import_cgm(name, path, tmp / "data", grid=5)
    build_cgm_benchmark(tmp / "data", tmp / "bench", seed=0)
    return name, tmp / "bench"


def test_pm_and_recorded_future_pd_only(built: tuple[str, Path]) -> None:
    name, bench = built
    _, patients, pd_counts = CASES[name]
    m = json.loads((bench / "manifest.json").read_text(encoding="utf-8"))
    items = read_cgm_items(bench)
    assert m["data"]["kind"] == "real"
    assert {i["family"] for i in items} == {"pm", "pd"}
    whatif = {t.id for t in templates("pd") if "counterfactual" in t.needs}
    assert not {i["template"] for i in items} & whatif
    assert all(set(m["drops"][t]) == {"needs a counterfactual re-simulation"} for t in whatif)
    assert set(m["drops"]["pm_28"]) == {"needs exercise"}  # none of the three records exercise
    per_template = Counter(i["template"] for i in items)
    assert (per_template["pd_0"], per_template["pd_4"], per_template["pd_12"]) == pd_counts
    assert len({i["id"].split("-", 1)[1] for i in items}) == patients
    sheet = (bench / "datasheet.md").read_text(encoding="utf-8")
    assert "- AD left out: real data has no fault labels." in sheet


def test_verifies(built: tuple[str, Path]) -> None:
    report = verify_cgm_benchmark(built[1])
    assert report.ok
    assert report.n_verified == report.n_items > 100
