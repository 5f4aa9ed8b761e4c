import json
from pathlib import Path

import pytest

from wearbench._catalogue import render_catalogue

DOCS = Path(__file__).resolve().parents[1] / "docs" / "primitives.md"


def test_docs_primitives_page_is_current() -> None:
    # Regenerate on purpose with: wearbench list primitive --format markdown > docs/primitives.md
    assert DOCS.read_text(encoding="utf-8") == render_catalogue("primitive", "markdown")


def test_json_catalogue_lists_every_primitive_with_defaults() -> None:
    rows = {r["name"]: r for r in json.loads(render_catalogue("primitive", "json"))}
    assert rows["lagged_correlation"]["parameters"] == {"max_lag": 3, "method": "pearson", "min_overlap": 14}
    assert rows["lagged_correlation"]["tags"]["inputs"] == ["x", "y"]
    assert {"rolling_baseline", "threshold_flags", "percentile_band", "theil_sen_slope"} <= set(rows)


def test_text_catalogue_has_two_lines_per_entry() -> None:
    text = render_catalogue("primitive", "text")
    n = len(json.loads(render_catalogue("primitive", "json")))
    assert len(text.splitlines()) == 2 * n
    assert all(line.strip() for line in text.splitlines())  # no blank or whitespace-only line
    assert "    (no parameters)" in text.splitlines()  # count_days takes none


def test_unknown_format() -> None:
    with pytest.raises(ValueError, match="unknown format"):
        render_catalogue("primitive", "yaml")


def test_question_catalogue_lists_sixteen_types_with_labels() -> None:
    rows = {r["name"]: r for r in json.loads(render_catalogue("question", "json"))}
    assert len(rows) == 16
    assert rows["trend"]["tags"]["reasoning"] == "data"
    assert rows["blood_state"]["tags"]["reasoning"] == "health"
    assert sum(r["tags"]["reasoning"] == "data" for r in rows.values()) == 8
    text = render_catalogue("question", "text")
    assert "data · single · definition" in text


def test_docs_questions_page_is_current() -> None:
    # Regenerate on purpose with: wearbench list question --format markdown > docs/questions.md
    page = DOCS.with_name("questions.md").read_text(encoding="utf-8")
    assert page == render_catalogue("question", "markdown")
