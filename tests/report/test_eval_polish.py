"""Eval report wording: p-values, baselines, and blood examples showing the blood values."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from tests.report.eval_fakes import fake_runs, oracle_subset

from wearbench.bench import load_context
from wearbench.questions import Item
from wearbench.report import _eval_html as H
from wearbench.report import write_eval_report
from wearbench.report._eval_plots import blood_markers, plot_blood
from wearbench.runner import ResultRow, RunInfo
from wearbench.scoring import score_run


@pytest.mark.parametrize(
    ("p", "text"),
    [(0.0, "p < 1e-6"), (3e-9, "p < 1e-6"), (1e-6, "p = 1e-06"), (0.0312, "p = 0.031"), (None, "p n/a")],
)
def test_p_values_are_never_zero(p: float | None, text: str) -> None:
    assert H.p_text(p) == text


def _board(runs: list[tuple[RunInfo, list[ResultRow]]], items: list[Item]) -> str:
    return H.leaderboard_table(
        [(f"R{n}", info, score_run(rows, items, n_boot=50)) for n, (info, rows) in enumerate(runs, 1)]
    )


def test_baselines_are_labelled_and_have_no_cost(eval_items: list[Item], eval_bench: Path) -> None:
    base = oracle_subset(eval_items, eval_bench, 10)
    only = _board([base], eval_items)
    assert "cost" not in only
    assert ">baseline (no prompt)</td>" in only
    assert "csv, direct" not in only
    assert H.run_label("R1", base[0]) == "R1 baseline:oracle (baseline)"
    mixed = _board([fake_runs(eval_items, eval_bench)[0], base], eval_items)
    assert "cost (USD)" in mixed
    assert mixed.count("<td>–</td>") >= 1  # the baseline's cost cell
    assert "unknown" not in mixed  # the data expert reports its cost; the baseline has none to know


def test_report_prints_no_p_equals_zero(eval_report: Path) -> None:
    text = eval_report.read_text(encoding="utf-8")
    for zero in ("p=0", "p = 0<", "p = 0)"):
        assert zero not in text
    assert "(p = " in text or "(p &lt; 1e-6)" in text


def _blood_item(items: list[Item]) -> Item:
    """A real item turned into one that reads the blood panel (as blood_state does), plus steps."""
    base = next(i for i in sorted(items, key=lambda i: i.id) if i.history_days >= 28)
    nodes = [
        {"id": "n0", "op": "blood", "marker": "fasting_glucose"},
        {"id": "n1", "op": "blood", "marker": "hba1c"},
        {"id": "n2", "op": "blood", "marker": "fasting_glucose"},
        {"id": "n3", "op": "series", "metric": "steps", "days": 28, "offset": 0},
    ]
    return replace(base, type="blood_state", metrics=("steps",), graph={**base.graph, "nodes": nodes})


def test_blood_item_plots_its_blood_values(eval_items: list[Item], eval_bench: Path) -> None:
    item = _blood_item(eval_items)
    assert blood_markers(item) == ["fasting_glucose", "hba1c"]
    ctx = load_context(eval_bench, item.user_id)
    fig = plot_blood(item, ctx)
    assert fig is not None
    axes = [ax for ax in fig.axes if ax.get_visible()]
    assert [ax.get_title() for ax in axes] == ["fasting glucose (mg/dL)", "hba1c (%)"]
    used = ctx.blood_at(ctx.index(item.end_date))
    assert used is not None
    for ax, name in zip(axes, ("fasting_glucose", "hba1c"), strict=True):
        latest = ax.get_lines()[1]  # the red point: the draw the question uses
        assert list(latest.get_ydata()) == [pytest.approx(float(used[name]))]
        assert ax.texts[0].get_text().startswith(f"{float(used[name]):.3g} ")


def test_blood_example_in_the_report(eval_items: list[Item], eval_bench: Path, tmp_path: Path) -> None:
    item = _blood_item(eval_items)
    items = [item if i.id == item.id else i for i in eval_items]
    runs = [oracle_subset(items, eval_bench, len(items))]
    out = write_eval_report(
        runs, tmp_path / "r.html", bench_dir=eval_bench, items=items, n_examples=20, n_boot=50
    )
    text = out.read_text(encoding="utf-8")
    assert f'alt="blood values of {item.id}"' in text
    assert f'alt="series of {item.id}"' in text


def test_blood_cutoffs_are_the_clinical_rules() -> None:
    from wearbench.report._eval_plots import _cutoffs

    assert _cutoffs("fasting_glucose", "M") == [(100.0, "prediabetes"), (126.0, "diabetes")]
    assert _cutoffs("hdl", "F") == [(50.0, "normal"), (60.0, "high")]  # sex-specific (ATP III)
    assert _cutoffs("hdl", "M") == [(40.0, "normal"), (60.0, "high")]
    assert _cutoffs("insulin", "F") == []  # no rule: no line


def test_datasheet_never_prints_p_zero() -> None:
    from wearbench.bench._datasheet import render_datasheet

    stats = {
        "n_items": 3,
        "n_users": 1,
        "by_label": {},
        "by_type": {"trend": 3},
        "answer_positions": {
            "all": {"counts": {"A": 30}, "chi2_p": 0.0},
            "trend": {"counts": {}, "chi2_p": 0.0412},
        },
        "drops": {},
        "null_fdr": {},
    }
    text = render_datasheet(stats, {"seed": 0, "cohort_hash": "h", "wearbench_version": "v"})
    assert "- all: A:30; p < 1e-6" in text
    assert "- trend: ; p = 0.0412" in text


def test_score_text_never_prints_p_zero(eval_items: list[Item], eval_bench: Path) -> None:
    from tests.report.eval_fakes import letter_a_fan

    _, rows = letter_a_fan(eval_items, eval_bench)
    score = score_run(rows, eval_items, n_boot=50)
    assert score.position.chi2_p is not None
    assert score.position.chi2_p < 1e-6  # about 60% of answers on A
    assert "chi-square vs uniform p < 1e-6" in score.to_text()
    assert "p=0" not in score.to_text()
