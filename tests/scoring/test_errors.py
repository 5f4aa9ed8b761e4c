"""Errored runs: never a 0.000 accuracy without answers; errors shown first; chi-square without scipy."""

import math

import pytest
from tests.scoring.conftest import ItemFactory, RowFactory

from wearbench.scoring import score_run
from wearbench.scoring._breakdown import chi2_sf


def test_run_without_a_single_answer_has_no_accuracy(make_item: ItemFactory, make_row: RowFactory) -> None:
    items = [make_item(f"i{k}", f"u{k}", "A") for k in range(3)]
    rows = [make_row(i, None, error="openai:m: HTTP 401: bad key") for i in items]
    score = score_run(rows, items, n_boot=50)
    assert score.overall.n == 0
    assert score.errors == 3
    assert score.to_dict()["accuracy"] is None
    assert (
        score.summary_line()
        == "accuracy n/a: no answers (3 item(s) errored, 0 missing); re-run eval to retry them"
    )
    assert "0.000" not in score.to_text()
    assert "  error ×3: openai:m: HTTP 401: bad key" in score.to_text().splitlines()
    assert score.to_dict()["error_messages"] == [{"message": "openai:m: HTTP 401: bad key", "count": 3}]


def test_partial_errors_lead_the_summary(make_item: ItemFactory, make_row: RowFactory) -> None:
    items = [make_item(f"i{k}", f"u{k}", "A") for k in range(4)]
    rows = [make_row(items[0], "A"), make_row(items[1], "B"), make_row(items[2], None, error="HTTP 500")]
    score = score_run(rows, items, n_boot=50)
    line = score.summary_line()
    assert line.startswith("INCOMPLETE: 1 item(s) errored (scored as wrong); accuracy 0.333")
    assert line.endswith("errors 1; missing 1")


@pytest.mark.parametrize(
    ("x", "df", "expected"),
    [
        (2.0, 2, math.exp(-1.0)),  # df 2: exp(-x/2)
        (1.0, 1, math.erfc(math.sqrt(0.5))),  # df 1: erfc(sqrt(x/2))
        (16.918977604620448, 9, 0.05),  # the 95th percentile of chi-square(9), table value 16.919
        (0.0, 9, 1.0),
    ],
)
def test_chi2_sf_matches_closed_forms(x: float, df: int, expected: float) -> None:
    assert chi2_sf(x, df) == pytest.approx(expected, rel=1e-9)
