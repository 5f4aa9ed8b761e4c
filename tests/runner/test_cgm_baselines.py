"""HealthLoopQA naive baselines for (day, value) lists, and ``benchmarks/cgm_baselines.py``.

The per-template table of the script is checked on a small benchmark (3 patients x 3 days,
full sampling) against values worked out here from ``items.jsonl`` with the metric formulas
written out, not with the scoring code; the committed ``docs/cgm-baselines.md`` must have the
layout the script writes.
"""

from __future__ import annotations

import asyncio
import importlib.util
import json
import sys
from collections import defaultdict
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from wearbench.cli import main
from wearbench.runner import CGMItem, cgm_baseline_solver

ROOT = Path(__file__).resolve().parents[2]
PATIENTS = ("adolescent#002", "adult#003", "child#001")


def _script() -> ModuleType:
    name = "cgm_baselines_script"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / "cgm_baselines.py")
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def _item(n: int, answer: Any, first_day: int = 1, days: int = 3) -> CGMItem:
    data = {
        "id": f"pm_25-p#{n}", "patient": f"p#{n}", "template": "pm_25", "family": "pm", "level": "memory",
        "abilities": ["ER"], "answer_type": "day_value_list", "metric": "f1", "unit": "mg/dL",
        "answer": answer,
        "context": {"readings": "r.csv", "events": "e.csv", "first_day": first_day, "days": days},
    }  # fmt: skip
    return CGMItem.from_dict(data, Path("."))


def _answer(name: str, items: list[CGMItem], item: CGMItem) -> Any:
    solver = cgm_baseline_solver(name, items)
    assert solver.covers(item)
    return json.loads(asyncio.run(solver.solve(item)).response)["answer"]


def test_day_value_lists_get_every_day_with_the_template_mean() -> None:
    # values 10, 20 (patient 1), 60 (patient 2), none (patient 3): mean 30 over all three pairs
    items = [_item(1, [[1, 10.0], [3, 20.0]]), _item(2, [[2, 60.0]]), _item(3, [], first_day=5, days=2)]
    assert _answer("naive-mean", items, items[0]) == [[1, 30.0], [2, 30.0], [3, 30.0]]
    assert _answer("naive-mean", items, items[2]) == [[5, 30.0], [6, 30.0]]  # the item's own window
    assert _answer("naive-empty", items, items[1]) == []
    assert not cgm_baseline_solver("naive-majority", items).covers(items[0])
    assert not cgm_baseline_solver("naive-allday", items).covers(items[0])
    only_empty = [_item(1, [])]
    assert _answer("naive-mean", only_empty, only_empty[0]) == []  # no pair to average


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A full-sampling HealthLoopQA benchmark of a 3-patient x 3-day profile run (~10 s)."""
    pytest.importorskip("simglucose")
    root = tmp_path_factory.mktemp("cgmbase")
    main(
        ["cgm", "simulate", "--profile", "healthloopqa", "--days", "3", "--patients", ",".join(PATIENTS),
         "--controller", "hcl-mpc", "--faults", "random", "--seed", "7", "--out", str(root / "run")]
    )  # fmt: skip
    main(["cgm", "build", "--data", str(root / "run"), "--out", str(root / "bench"), "--seed", "5",
          "--sampling", "full", "-q"])  # fmt: skip
    return root / "bench"


def _smape_score(p: float, e: float) -> float:
    return 100.0 if p == e == 0 else 100 * (1 - abs(p - e) / (abs(p) + abs(e)))


def _f1(p: set[Any], e: set[Any]) -> float:
    if not p and not e:
        return 1.0
    hits = len(p & e)
    return 0.0 if not hits else 2 * hits / (len(p) + len(e))


def test_the_per_template_table_matches_hand_computed_scores(bench: Path, tmp_path: Path) -> None:
    script = _script()
    rows = {r.template: r for r in script.template_rows(bench, tmp_path / "runs", n_boot=20)}
    items: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for line in (bench / "items.jsonl").read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        items[item["template"]].append(item)
    assert set(rows) == set(items)
    assert all(r.scores["oracle"] == 100.0 for r in rows.values())
    assert rows["ad_3"].scores["naive-empty"] == 0.0  # every ad_3 truth holds a missing-data run
    assert all(i["answer"] for i in items["ad_3"])
    assert "naive-majority" not in rows["ad_3"].scores  # blank: not covered
    pm0 = [float(i["answer"]) for i in items["pm_0"]]  # mean glucose: the mean of the three truths
    guess = sum(pm0) / len(pm0)
    assert rows["pm_0"].scores["naive-mean"] == pytest.approx(sum(_smape_score(guess, e) for e in pm0) / 3)
    assert rows["pm_0"].n == 3
    assert rows["pm_0"].distinct == len(set(pm0))
    pairs = [[tuple(p) for p in i["answer"]] for i in items["pm_25"]]
    values = [v for ps in pairs for _, v in ps]
    mean = round(sum(values) / len(values), 6)
    want = [100 * _f1({(d, mean) for d in (1, 2, 3)}, set(ps)) for ps in pairs]
    assert rows["pm_25"].scores["naive-mean"] == pytest.approx(sum(want) / len(want))
    assert rows["pm_25"].scores["naive-empty"] == pytest.approx(
        100 * sum(not ps for ps in pairs) / len(pairs)
    )
    for r in rows.values():
        priors = [r.scores[b] for b in script.PRIORS if b in r.scores]
        assert r.best_prior == (max(priors) if priors else None)


def test_the_committed_doc_has_the_layout_the_script_writes(bench: Path, tmp_path: Path) -> None:
    script = _script()
    rows = script.template_rows(bench, tmp_path / "runs", n_boot=20)
    text = script.render([("fixture", bench, rows)], "fixture=BENCH")
    lines = text.splitlines()
    assert lines[0] == "# HealthLoopQA baselines per template, and a validity pass"
    assert lines.count(script.SUMMARY_HEADER[0]) == 1
    start = lines.index(script.TEMPLATE_HEADER[0])
    assert lines[start + 2 : start + 2 + len(rows)] == script.template_lines(rows)[2:]
    doc = (ROOT / "docs" / "cgm-baselines.md").read_text(encoding="utf-8").splitlines()
    intro = script.INTRO.format(args="X").splitlines()
    assert doc[0] == lines[0]
    assert doc[3 : len(intro)] == intro[3:]  # the fixed text under the command line
    assert doc.count(script.SUMMARY_HEADER[0]) == doc.count(script.TEMPLATE_HEADER[0]) >= 2  # full and seed
    assert "## Validity: templates with the same answer for (nearly) everyone" in doc
    for tid in ("ad_1", "ad_2", "pm_2", "pm_13"):
        assert any(x.startswith(f"| {tid} |") and script.CAUSES[tid] in x for x in doc)
