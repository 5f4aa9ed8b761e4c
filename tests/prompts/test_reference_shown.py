"""The prompt shows exactly the reference cell an item compares against, with its kind and size."""

from __future__ import annotations

import dataclasses

from wearbench.cohort import ReferenceCell
from wearbench.prompts import context_text, data_view

from .conftest import make_ctx, make_item

CELL = ReferenceCell(
    "steps",
    "cohort",
    "30-39",
    "F",
    {10: 3100.0, 50: 6900.5, 90: 11000.0, 95: 12000.0},
    mean=7000.0,
    sd=2500.25,
    n_users=31,
    source="per-user medians of days on or before 2024-03-05",
)


def _item(part: str, cuts: list[int] | None) -> object:
    node = {"id": "n0", "op": "reference", "metric": "steps", "part": part, "cell": CELL.to_json()}
    if cuts is not None:
        node["cuts"] = cuts
    graph = {"end_date": "2024-03-05", "nodes": [node], "outputs": {}}
    return dataclasses.replace(make_item(), graph=graph)


def test_percentile_node_shows_the_cuts_used_with_kind_and_size() -> None:
    view = data_view(_item("percentiles", [10, 50, 90]), make_ctx())
    assert set(view.reference_cells) == {"steps"}
    assert "steps" not in view.reference  # the static context no longer repeats the metric
    text = context_text(view)
    assert (
        "Reference this question compares steps against (leave-this-user-out reference of other cohort "
        "users, age band 30-39, sex F, n = 31 users, per-user medians of days on or before 2024-03-05):"
    ) in text
    assert "- steps (steps): P10=3100, P50=6900.5, P90=11000\n" in text
    assert "- resting_hr (bpm): P5=50" in text  # other metrics: the static independent reference


def test_cell_node_shows_mean_and_sd() -> None:
    text = context_text(data_view(_item("cell", None), make_ctx()))
    assert "- steps (steps): mean=7000.00, SD=2500.25, P10=3100, P50=6900.5, P90=11000, P95=12000" in text


def test_no_cohort_ablation_hides_the_item_reference() -> None:
    view = data_view(_item("cell", None), make_ctx(), ["no_cohort"])
    assert view.reference_cells == {}
    assert "Reference this question" not in context_text(view)
