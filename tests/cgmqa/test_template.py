"""The template framework: registry, field checks, answer checks, instructions, params."""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

import numpy as np
import pytest
from tests.cgmqa._records import exercise_record, meals_record

from wearbench import UnknownNameError, WearbenchError, registry
from wearbench._catalogue import render_catalogue
from wearbench.cgmqa import PatientRecord, Template, check_answer, get_template, templates

# The spec's PM table: level initial and answer type of each id.
PM_SPEC = {
    **{f"pm_{i}": "D" for i in (0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 41, 42)},
    **{
        f"pm_{i}": "M"
        for i in (3, 14, 15, 16, 17, 18, 19, 21, 22, 23, 24, 25, 26, *range(28, 41), 43, 44, 45)
    },
}


def _truth(record: PatientRecord, params: Any) -> None:
    """A test truth function."""


def test_pm_ids_and_levels_follow_the_spec() -> None:
    got = {t.id: t.level[0].upper() for t in templates("pm")}
    assert got == PM_SPEC
    assert "pm_20" not in got
    assert "pm_27" not in got
    assert len(templates("pm", "descriptive")) == 15
    assert len(templates("pm", "memory")) == 29


def test_pm_answer_types_and_metrics() -> None:
    by = {t.id: (t.answer_type, t.metric) for t in templates("pm")}
    assert by["pm_9"] == ("number", "smape")
    assert by["pm_13"] == ("yes_no", "accuracy")
    assert by["pm_15"] == ("day_list", "f1")
    assert by["pm_37"] == ("day_list", "f1")
    assert by["pm_16"] == ("integer", "accuracy")
    assert by["pm_22"] == ("integer", "smape")
    assert by["pm_32"] == ("integer", "smape")
    assert by["pm_25"] == ("day_value_list", "f1")
    assert all(t.in_headline and t.context_days == 30 for t in templates("pm"))


def test_unknown_ids_fail_with_close_matches() -> None:
    with pytest.raises(UnknownNameError, match="did you mean 'pm_14'"):
        get_template("pm14")


def test_the_registry_lists_templates_with_json_tags() -> None:
    rows = registry.catalogue("cgm_template")
    assert {r["name"] for r in rows} >= {t.id for t in templates("pm")}
    json.dumps(rows)
    text = render_catalogue("cgm_template", "text")
    assert "pm_14" in text
    assert "family: pm · level: memory · answer_type: number · metric: smape" in text
    assert [e.name for e in registry.entries("cgm_template", family="pm", answer_type="category")] == [
        "pm_18",
        "pm_19",
        "pm_23",
        "pm_39",
        "pm_40",
    ]


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"id": "xx_1"}, "id must be"),
        ({"metric": "affiliation"}, "does not fit answer type"),
        ({"answer_type": "category", "metric": "accuracy"}, "categories are required"),
        ({"needs": ("labels",)}, "needs"),
        ({"context_days": 14}, "context_days 14"),
        ({"sampler": "hour"}, "unknown sampler 'hour'"),
        ({"question": "On day {day}?"}, r"placeholders \['day'\] != sampler keys \[\]"),
        ({"sampler": "week_day"}, r"placeholders \[\] != sampler keys \['day', 'week'\]"),
    ],
)
def test_template_fields_are_checked(fields: dict[str, Any], message: str) -> None:
    base: dict[str, Any] = {
        "id": "pm_99", "level": "memory", "abilities": ("QC",), "question": "How?", "answer_type": "number",
        "metric": "smape", "truth": _truth,
    }  # fmt: skip
    with pytest.raises(ValueError, match=message):
        Template(**{**base, **fields})


@pytest.mark.parametrize(
    ("tid", "good", "bad"),
    [
        ("pm_0", 100.5, float("nan")),
        ("pm_3", 55, 55.0),
        ("pm_13", "yes", "Yes"),
        ("pm_18", "equal in both", "evening"),
        ("pm_15", [1, 3], [3, 1]),
        ("pm_25", [[1, 80.0]], [[1.5, 80.0]]),
        ("ad_3", [{"start": 0, "end": 5}], []),  # an interval answer is never empty
    ],
)
def test_answers_are_checked_against_the_answer_type(tid: str, good: Any, bad: Any) -> None:
    t = get_template(tid)
    check_answer(t, good)
    with pytest.raises(WearbenchError, match=f"cgm_template '{tid}': answer"):
        check_answer(t, bad)


def test_instructions_fix_the_json_format() -> None:
    assert get_template("pm_0").answer_instruction() == 'Reply with JSON only: {"answer": <number in mg/dL>}.'
    assert get_template("pm_18").answer_instruction() == (
        'Reply with JSON only: {"answer": <one of "morning", "afternoon", "equal in both">}.'
    )
    assert (
        get_template("pm_13").answer_instruction()
        == 'Reply with JSON only: {"answer": "yes"} or {"answer": "no"}.'
    )
    for t in templates("pm"):
        assert '{"answer": ' in t.answer_instruction()


def test_params_are_drawn_among_candidates_with_an_answer() -> None:
    m, e = meals_record(), exercise_record()
    assert get_template("pm_24").candidates(m) == [{"day": 1}]  # the only morning snack
    assert get_template("pm_23").candidates(m) == [{"day": 1}, {"day": 2}]
    assert get_template("pm_21").candidates(m) == [{"week": 1, "day": 1}, {"week": 1, "day": 2}]
    assert get_template("pm_28").candidates(e) == [
        {"day": 1, "exercise": "cycling"},
        {"day": 1, "exercise": "running"},
        {"day": 2, "exercise": "running"},
    ]
    assert get_template("pm_0").candidates(m) == [{}]
    assert get_template("pm_24").draw(m, np.random.default_rng(0)) == ({"day": 1}, 0.6)
    drawn = {str(get_template("pm_23").draw(m, np.random.default_rng(s))) for s in range(20)}
    assert drawn == {str(({"day": 1}, "lunch")), str(({"day": 2}, "dinner"))}
    assert get_template("pm_24").draw(e, np.random.default_rng(0)) is None  # no meals table
    t = get_template("pm_21")
    assert t.text({"week": 1, "day": 2}).endswith("after lunch on week 1 day 2?")


def test_list_instructions_offer_an_empty_answer_only_where_it_can_be_the_truth() -> None:
    """Day lists say "[] if none" (they answer [] then); interval templates decline instead."""
    lists = [t for f in ("ad", "pm", "pd") for t in templates(f) if t.answer_type.endswith("list")]
    intervals = [t for f in ("ad", "pm", "pd") for t in templates(f) if t.answer_type == "intervals"]
    assert len(intervals) == 50
    assert all("[] if none" in t.answer_instruction() for t in lists)
    assert all("[]" not in t.answer_instruction() for t in intervals)
    full = PatientRecord("s", datetime(2024, 1, 1), np.full(288, 100.0))
    assert get_template("ad_3").answer(full, {}) is None  # no missing reading: dropped, not []
    gap = full.bg.copy()
    gap[12:14] = np.nan
    one = PatientRecord("s", datetime(2024, 1, 1), gap)
    assert get_template("ad_3").answer(one, {}) == [{"start": 60, "end": 65}]
