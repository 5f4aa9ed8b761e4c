"""Answer extraction for free-form HealthLoopQA answers: one table row per case."""

from __future__ import annotations

import math
from typing import Any

import pytest

from wearbench.scoring import ANSWER_TYPES, extract_answer, normalize_answer, parse_number

NAN = math.nan
IV = [(5, 9), (60, 65)]

# (response, answer type, value, source)
FOUND: list[tuple[str, str, Any, str]] = [
    # 1. JSON object with "answer": whole text, fenced, in prose, Python dict syntax
    ('{"answer": 12.5}', "number", 12.5, "json"),
    ('{"Answer": "12.5"}', "number", 12.5, "json"),
    ('Sure!\n```json\n{"answer": [3, 1, 2]}\n```\nHope it helps.', "day_list", [1, 2, 3], "json"),
    ('I looked at the data. {"answer": "yes"} That is all.', "yes_no", "yes", "json"),
    ('Format: {"answer": 0}. My result: {"answer": 7}', "integer", 7, "json"),  # the last one wins
    ("{'answer': True}", "yes_no", "yes", "json"),
    ('{"answer": "[[60, 90], [0, 30]]"}', "intervals", [(0, 30), (60, 90)], "json"),  # string re-read
    ('{"answer": [{"start": 60, "end": 65}, {"start": 5, "end": 9}]}', "intervals", IV, "json"),
    ('{"answer": {"start": 5, "end": 10}}', "intervals", [(5, 10)], "json"),
    ('{"answer": null}', "integer", NAN, "json"),
    ('{"reasoning": "see {x}", "answer": [{"start": 1, "end": 2}]}', "intervals", [(1, 2)], "json"),
    ("{" * 5000 + ' {"answer": 3}', "integer", 3, "json"),  # bounded search from the end
    ('{"answer": "None"}', "intervals", [], "json"),
    ('{"answer": []}', "intervals", [], "json"),  # an explicit empty list is a valid answer
    ('{"answer": "[]"}', "intervals", [], "json"),
    ('{"answer": null}', "intervals", [], "json"),
    ("answer: none", "intervals", [], "loose"),
    ('{"answer": {"3": 45.25, "1": 30}}', "day_value_list", [(1, 30), (3, 45.25)], "json"),
    ('{"answer": [{"day": 5, "rise": 80}, [2, 61.5]]}', "day_value_list", [(2, 61.5), (5, 80)], "json"),
    ('{"answer": "1, 3 and 5"}', "day_list", [1, 3, 5], "json"),
    ('{"answer": 5}', "day_list", [5], "json"),
    ('{"answer": []}', "day_list", [], "json"),
    ('{"answer": " Morning "}', "category", "morning", "json"),
    ('{"answer": "Equal in both."}', "category", "equal in both", "json"),
    ('{"answer": "7.0"}', "integer", 7, "json"),
    ('{"answer": 7.5}', "integer", 7.5, "json"),  # not rounded: scored as it is
    # 2. a literal
    ("42", "integer", 42, "literal"),
    ("[5, 2, 9]", "day_list", [2, 5, 9], "literal"),
    ("```\n[[10, 20]]\n```", "intervals", [(10, 20)], "literal"),
    ("true", "yes_no", "yes", "literal"),
    ('{"start": 5, "end": 9}', "intervals", [(5, 9)], "literal"),  # a dict without "answer"
    ('{"2": 10, "1": 0.5}', "day_value_list", [(1, 0.5), (2, 10)], "literal"),
    # 3. a loose "answer: ..."
    ("Answer: 1,234.5 mg/dL", "number", 1234.5, "loose"),
    ("answer = yes.", "yes_no", "yes", "loose"),
    ("The mean is high.\nFinal **Answer:** [1, 2]", "day_list", [1, 2], "loose"),
    ("Reasoning...\nThe answer is 42.", "integer", 42, "loose"),
    ("My answer is: afternoon.", "category", "afternoon", "loose"),
    ("{answer: 3.25}", "number", 3.25, "loose"),
    ("answer: [\n  [30, 45],\n  [0, 5]\n]", "intervals", [(0, 5), (30, 45)], "loose"),
    # 4. a one-line reply as it stands
    ("No, it does not.", "yes_no", "no", "text"),
    ("٣٫٥", "number", 3.5, "text"),  # Arabic-Indic digits and decimal separator
    (": 12", "number", 12.0, "text"),
    ("nan", "number", NAN, "text"),
    ("1,234", "number", 1234.0, "text"),
]


@pytest.mark.parametrize(("text", "answer_type", "value", "source"), FOUND)
def test_found(text, answer_type, value, source):
    got = extract_answer(text, answer_type)
    assert got.ok, got.failure
    assert got.source == source
    if isinstance(value, float) and math.isnan(value):
        assert math.isnan(got.value)
    else:
        assert got.value == value
        assert type(got.value) is type(value)


# (response, answer type, start of the failure reason)
FAILED: list[tuple[str | None, str, str]] = [
    ("", "number", "no answer found"),
    (None, "number", "no answer found"),
    ("I cannot tell.\nThe data is too noisy.", "number", "no answer found"),
    ('{"answer": "2 or 3"}', "number", "not a number"),
    ('{"answer": "about a dozen"}', "integer", "not a number"),
    ('{"answer": true}', "number", "not a number"),
    ('{"answer": "maybe"}', "yes_no", "not yes or no"),
    ('{"answer": null}', "category", "not a category"),
    ('{"answer": [1, "x"]}', "day_list", "not a day number"),
    ('{"answer": [1, null]}', "day_list", "not a day number"),
    ('{"answer": [[1, 2, 3]]}', "day_value_list", "not a (day, value) pair"),
    ('{"answer": "lots"}', "day_value_list", "not a list of (day, value) pairs"),
    ('{"answer": [{"start": 5, "end": 0}, {"start": 1}]}', "intervals", "not an interval"),
    ('{"answer": [[1, "later"]]}', "intervals", "not an interval"),
    # Interval answers that are not a list are failures, not [] (the upstream evaluator's [] hides them)
    ('{"answer": "no intervals found"}', "intervals", "not a list of intervals"),
    ('{"answer": 42}', "intervals", "not a list of intervals"),
    ('{"answer": "from 10 to 20"}', "intervals", "not a list of intervals"),
    ("The glucose dropped out twice.", "intervals", "not a list of intervals"),
]


@pytest.mark.parametrize(("text", "answer_type", "reason"), FAILED)
def test_failed(text, answer_type, reason):
    got = extract_answer(text, answer_type)
    assert not got.ok
    assert got.value is None
    assert got.failure.startswith(reason)


@pytest.mark.parametrize(
    ("raw", "want"),
    [
        ("1,234,567.5", 1234567.5),
        ("12,5", 12.5),  # a lone comma without a dot is a decimal comma
        ("1 234", 1234.0),
        ("1\u202f234.5", 1234.5),  # narrow no-break space as thousands separator
        ("١٬٢٣٤٫٥", 1234.5),  # Arabic thousands and decimal separators
        ("1،5", 1.5),  # Arabic comma read as a decimal comma
        ("~ 120 mg/dL", 120.0),
        ("-3.5e2", -350.0),
        ("35 %", 35.0),
        ("NaN", NAN),
        ("null", NAN),
        (None, NAN),
        ([4], 4.0),
        ("12,34,5", None),
        ("1.2.3", None),
        ("abc", None),
        ("3 to 4", None),
        (True, None),
        ({"x": 1}, None),
    ],
)
def test_parse_number(raw, want):
    got = parse_number(raw)
    if want is None:
        assert got is None
    elif math.isnan(want):
        assert math.isnan(got)
    else:
        assert got == want


def test_unknown_answer_type_raises():
    with pytest.raises(ValueError, match="unknown answer type 'float'"):
        extract_answer("1", "float")
    with pytest.raises(ValueError, match="unknown answer type"):
        normalize_answer(1, "list")
    assert ANSWER_TYPES == (
        "number",
        "integer",
        "yes_no",
        "category",
        "day_list",
        "day_value_list",
        "intervals",
    )
