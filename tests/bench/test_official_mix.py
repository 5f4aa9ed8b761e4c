"""`build --match-official`: seeded subsampling to the official label proportions."""

import itertools
from pathlib import Path

import pytest

from wearbench._errors import WearbenchError
from wearbench.bench import build_benchmark, read_items, read_manifest
from wearbench.bench._datasheet import OFFICIAL_COUNTS
from wearbench.bench._generate import Pending
from wearbench.bench._official_mix import match_official, official_cell

#: Targets 2:1 data:health, 1:2 single:cross, 1:3 literature:population.
TARGETS = {
    "reasoning": {"data": 2, "health": 1},
    "signals": {"single": 1, "cross": 2},
    "grounding": {"literature": 1, "population": 3},
}


def _pending(n: int, reasoning: str, signals: str, grounding: str) -> list[Pending]:
    labels = {"reasoning": reasoning, "signals": signals, "grounding": grounding, "dependency": "window"}
    return [
        Pending(
            id=f"q-{reasoning}-{signals}-{grounding}-{i:02d}",
            type="t",
            type_version=1,
            labels=labels,
            user_id=f"u{i % 5}",
            end_date="2025-01-01",
            history_days=0,
            window_days=28,
            metrics=(),
            question="?",
            correct=("a", {}),
            distractors=(),
            graph={},
            evidence={},
            grounding_ref=None,
            pair_kind=None,
            gates=None,
        )
        for i in range(n)
    ]


def _grid(n: int) -> list[Pending]:
    cells = itertools.product(("data", "health"), ("single", "cross"), ("literature", "population"))
    return [p for cell in cells for p in _pending(n, *cell)]


def test_equal_cells_keep_the_product_of_the_target_shares() -> None:
    # 12 items in each of the 8 cells. Equal cells are independent, so raking gives cell sizes
    # proportional to p(reasoning) p(signals) p(grounding); the largest, data·cross·population
    # (2/3 · 2/3 · 3/4 = 1/3), keeps all 12 and the others scale with it:
    # data·cross·lit 12/3 = 4, data·single·pop 12/2 = 6, data·single·lit 2,
    # health·cross·pop 6, health·cross·lit 2, health·single·pop 3, health·single·lit 1: 36 kept.
    kept, report = match_official(_grid(12), seed=0, counts=TARGETS)
    assert report["cells"] == {
        "data|cross|literature": [12, 4],
        "data|cross|population": [12, 12],
        "data|single|literature": [12, 2],
        "data|single|population": [12, 6],
        "health|cross|literature": [12, 2],
        "health|cross|population": [12, 6],
        "health|single|literature": [12, 1],
        "health|single|population": [12, 3],
    }
    assert (report["n_before"], report["n_after"], len(kept)) == (96, 36, 36)
    assert report["achieved"] == {
        "grounding": {"literature": 9 / 36, "population": 27 / 36},
        "reasoning": {"data": 24 / 36, "health": 12 / 36},
        "signals": {"cross": 24 / 36, "single": 12 / 36},
    }


def test_definition_items_fill_the_official_population_share() -> None:
    # Only grounding varies: 10 literature, 20 population, 20 definition; target 1:3 keeps
    # every one of the 40 non-literature items and 40 / 3 → 13 literature ones.
    items = [
        *_pending(10, "data", "single", "literature"),
        *_pending(20, "data", "single", "population"),
        *_pending(20, "data", "single", "definition"),
    ]
    counts = {"reasoning": {"data": 1}, "signals": {"single": 1}, "grounding": TARGETS["grounding"]}
    kept, report = match_official(items, seed=0, counts=counts)
    assert report["cells"] == {"data|single|literature": [10, 10], "data|single|population": [40, 30]}
    assert len(kept) == 40
    assert report["achieved_labels"]["grounding"]["literature"] == 10 / 40
    assert official_cell({"reasoning": "data", "signals": "cross", "grounding": "definition"}) == (
        "data",
        "cross",
        "population",
    )


def test_selection_is_seeded_and_order_independent() -> None:
    items = _grid(12)
    a, _ = match_official(items, seed=3, counts=TARGETS)
    b, _ = match_official(list(reversed(items)), seed=3, counts=TARGETS)
    c, _ = match_official(items, seed=4, counts=TARGETS)
    assert {p.id for p in a} == {p.id for p in b}
    assert {p.id for p in a} != {p.id for p in c}
    assert len(a) == len(c)


def test_a_missing_axis_value_is_an_error() -> None:
    with pytest.raises(WearbenchError, match="no reasoning=health items"):
        match_official(_pending(5, "data", "single", "population"), seed=0)


def test_build_reports_the_achieved_shares(trend_cohort: Path, tmp_path: Path) -> None:
    # trend (data · single · definition) and blood_state (health · cross · literature) only:
    # the official shares then need data = single = population(+definition) and
    # health = cross = literature, which only fits the official 2724/1360 reasoning split.
    # Achieved shares follow the reasoning split up to rounding.
    result = build_benchmark(
        trend_cohort, tmp_path / "b", types=["trend", "blood_state"], seed=2, match_official=True
    )
    mix = result.stats["match_official"]
    items = read_items(tmp_path / "b")
    assert mix["n_after"] == len(items) == result.n_items
    data = sum(i.reasoning == "data" for i in items)
    assert mix["achieved"]["reasoning"]["data"] == data / len(items)
    assert abs(data / len(items) - 2724 / 4084) < 2 / len(items)
    assert read_manifest(tmp_path / "b")["match_official"]["n_after"] == len(items)
    datasheet = (tmp_path / "b" / "datasheet.md").read_text(encoding="utf-8")
    assert "Matched to the official label proportions" in datasheet
    assert OFFICIAL_COUNTS["grounding"] == {"literature": 930, "population": 3154}
