import pytest
from hypothesis import given
from hypothesis import strategies as st

from wearbench.prompts import parse_letter, parse_representation_choice

CASES = [
    # explicit markers
    ("Answer: (C)", "C"),
    ("Answer: C", "C"),
    ("answer: c", "C"),
    ("**Answer:** D", "D"),
    ("**Answer: E**", "E"),
    ("The answer is C.", "C"),
    ("The correct answer is option (b).", "B"),
    ("The correct option is J", "J"),
    ("Final answer: C — since the slope is negative", "C"),
    ("Final Answer: **G**", "G"),
    ("I choose F.", "F"),
    ("I'd go with option H", "H"),
    ("### Answer\nB", "B"),
    ("Answer: I", "I"),
    ("Answer: A", "A"),
    # bare letters
    ("C", "C"),
    ("(c)", "C"),
    ("**C**", "C"),
    ("C.", "C"),
    ("  j  ", "J"),
    ("C) because the mean rose", "C"),
    ("C. The trend is rising.", "C"),
    ("D because resting HR went up", "D"),
    ("A) the first option", "A"),
    ("B — the second", "B"),
    ("option c", "C"),
    ("Based on the data, option E fits best.", "E"),
    # chains of thought: the last explicit marker wins
    ("Option A is wrong since the slope is positive. B is too high. C fits.\nAnswer: D", "D"),
    ("I first thought the answer is B, but rechecking the window...\n\nFinal answer: H", "H"),
    ("Answer: C\n\nWait, recomputing the mean over 28 days gives 61.\n\nAnswer: D", "D"),
    ("Let me compute.\nThe mean is 61 bpm.\n\n**F**", "F"),
    ("The final answer is C, not B.", "C"),
    # no false positives from prose
    ("I think the resting heart rate rose.", None),
    ("A rise of 5 bpm was seen over the window.", None),
    ("The answer is a rise in stress.", None),
    ("I am not sure.", None),
    ("e.g. the trend is flat", None),
    ("Answer: I think the mean rose.", None),
    ("Answer: A rise of 3 bpm.", None),
    ("Answer: A because the slope is positive", "A"),
    ("The answer is e.g. unclear", None),
    ("", None),
    ("   \n ", None),
    ("No idea, sorry.", None),
    # ambiguous: equal claims
    ("Answer: B or C", None),
    ("Answer: B/C", None),
    ("Answer: B. Answer: C", None),
    ("Both option B and option D fit the data.", None),
    ("Final answer: B and C", None),
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_parse_letter_cases(text, expected):
    assert parse_letter(text) == expected


def test_case_table_is_large_enough():
    assert len(CASES) >= 30


def test_restricted_letters():
    assert parse_letter("Answer: E", letters="ABCD") is None
    assert parse_letter("Answer: d", letters="ABCD") == "D"


_PROSE = st.text(alphabet="abcdefghijklmnopqrstuvwxyz0123456789 .,\n", max_size=200).filter(
    lambda s: all(w not in s for w in ("answer", "option", "choice", "choose", "select", "pick", "go with"))
)


@given(prose=_PROSE, letter=st.sampled_from("ABCDEFGHIJ"))
def test_answer_line_after_prose(prose, letter):
    assert parse_letter(f"{prose}\nAnswer: {letter}") == letter


@given(prose=_PROSE, first=st.sampled_from("ABCDEFGHIJ"), last=st.sampled_from("ABCDEFGHIJ"))
def test_last_marker_wins(prose, first, last):
    assert parse_letter(f"Answer: {first}\n{prose}\nAnswer: {last}") == last


@given(
    letter=st.sampled_from("ABCDEFGHIJ"),
    form=st.sampled_from(["{}", "({})", "**{}**", "{}.", "{})", "Answer: {}", "**Answer:** ({})", "[{}]"]),
    lower=st.booleans(),
)
def test_decorated_letters(letter, form, lower):
    shown = letter.lower() if lower else letter
    assert parse_letter(form.format(shown)) == letter


def test_long_reply_is_fast():
    import time

    text = "Option A looks plausible but I think a rise of B-level is unclear. " * 800 + "\nAnswer: G"
    start = time.perf_counter()
    assert parse_letter(text) == "G"
    assert time.perf_counter() - start < 1.0


@given(st.text(max_size=300))
def test_never_crashes_and_returns_a_valid_letter(text):
    out = parse_letter(text)
    assert out is None or out in "ABCDEFGHIJ"


NAMES = ["row", "column", "csv", "markdown", "csv+stats", "markdown+stats"]


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("csv", "csv"),
        ("`csv+stats`", "csv+stats"),
        ("Markdown stats", "markdown+stats"),
        ("I'd like the markdown table, please.", "markdown"),
        ("row", "row"),
        ("CSV", "csv"),
        ("csv or markdown", None),
        ("a bar chart", None),
        ("", None),
    ],
)
def test_parse_representation_choice(reply, expected):
    assert parse_representation_choice(reply, NAMES) == expected
