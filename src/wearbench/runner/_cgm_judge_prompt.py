"""The HealthLoopQA judge's prompt and the reader of its replies (``wearbench cgm judge``).

The rubric is written for this project (``docs/cgm-judge.md``); the grades and failure types
are the seed's. A reply is valid only when every field is: nothing is clamped or guessed.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from wearbench.models import Message
from wearbench.runner._cgm import CGMItem

#: Version of the judge prompt and reply format; part of every judgement's key (bump on a change).
JUDGE_PROMPT_VERSION = "cgm-judge-1"
#: The three 1-5 grades, as named in the reply and in the ``judgements`` table.
JUDGE_SCORES = ("instruction_following", "reasoning_quality", "format_compliance")
#: The seed's failure types (its judge's labels, written as identifiers).
FAILURE_TYPES = (
    "reluctance_to_calculate",
    "temporal_misalignment",
    "unsupported_assumption",
    "guessing_over_uncertainty",
    "formatting",
    "other",
)
#: Other spellings of a failure type: the seed's long names and Table 6's abbreviations.
_ALIASES = {"formatting_misalignment": "formatting", "format": "formatting", "others": "other",
            "rc": "reluctance_to_calculate", "tm": "temporal_misalignment",
            "ua": "unsupported_assumption", "gu": "guessing_over_uncertainty"}  # fmt: skip
#: Most characters of a response shown to the judge (head and tail kept, the middle cut).
MAX_RESPONSE_CHARS = 6000

_RUBRIC = """\
You grade one reply that an AI assistant wrote to a question about a person's diabetes \
monitoring record (continuous glucose readings every 5 minutes, meals, insulin, exercise). \
You do not see the record. You see the question, the instruction on how to answer, the \
correct answer, and the assistant's whole reply.

Give three whole-number grades, 1 (very poor) to 5 (excellent):
- instruction_following: the reply does what was asked: the quantity, time span, unit and \
kind of answer the question and instruction name.
- reasoning_quality: the way the reply reaches its answer is sound: worked out from the \
record, on the right days and times, with no invented facts. With no working shown, grade \
the answer itself against the correct answer.
- format_compliance: the final answer is written exactly as the instruction requires.

Then name every failure that applies (none, one or several):
- reluctance_to_calculate: avoids a calculation the question needs (estimates or skips it).
- temporal_misalignment: uses the wrong day, week, time window or reading position.
- unsupported_assumption: relies on something neither the record nor the question states.
- guessing_over_uncertainty: commits to a value it admits it cannot determine.
- formatting: the final answer departs from the required format.
- other: any other failure."""
_REPLY = """\
Reply with one JSON object and nothing else:
{"instruction_following": 1-5, "reasoning_quality": 1-5, "format_compliance": 1-5, \
"failure_types": [names from the list, or empty], "rationale": "one sentence"}"""


@dataclass(frozen=True)
class ParsedJudgement:
    """A judge's reply, read.

    Attributes:
        scores: The three grades (1-5), or None when the reply is not a valid judgement.
        failure_types: The failure types named (canonical names; empty: none).
        rationale: The rationale ("" if none was given).
        error: Why the reply is not a valid judgement, or None.
    """

    scores: dict[str, int] | None
    failure_types: tuple[str, ...] = ()
    rationale: str = ""
    error: str | None = None


def _json_object(text: str) -> dict[str, Any] | None:
    """The first JSON object in ``text`` that names a grade, else the first object, else None."""
    decoder = json.JSONDecoder()
    found: list[dict[str, Any]] = []
    for match in re.finditer(r"\{", text):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except ValueError:
            continue
        if isinstance(value, dict):
            if any(k in value for k in JUDGE_SCORES):
                return value
            found.append(value)
    return found[0] if found else None


def _grade(key: str, value: Any) -> int:
    """A 1-5 grade: an int, a whole float or a digit string; anything else raises ValueError."""
    number = value.strip() if isinstance(value, str) else value
    if isinstance(number, str) and re.fullmatch(r"[+-]?\d+", number):
        number = int(number)
    if isinstance(number, bool) or not isinstance(number, int | float):
        raise ValueError(f"{key} {value!r} is not a number")
    if isinstance(number, float) and not number.is_integer():
        raise ValueError(f"{key} {value!r} is not a whole number")
    if not 1 <= number <= 5:
        raise ValueError(f"{key} {value!r} outside 1-5")
    return int(number)


def _failure_types(value: Any) -> tuple[str, ...]:
    """Canonical failure types from a name or a list of names; ``none``/``[]`` is none."""
    names = [value] if isinstance(value, str) else value
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ValueError(f"failure_types {value!r} is not a name or a list of names")
    out: list[str] = []
    for raw in names:
        name = re.sub(r"[^a-z0-9]+", "_", raw.lower()).strip("_")
        name = _ALIASES.get(name, name)
        if name in ("none", ""):
            continue
        if name not in FAILURE_TYPES:
            raise ValueError(f"unknown failure type {raw!r}")
        if name not in out:
            out.append(name)
    return tuple(sorted(out, key=FAILURE_TYPES.index))


def parse_judgement(text: str) -> ParsedJudgement:
    """Read a judge's reply: the JSON object with three 1-5 grades, failure types and rationale.

    ``failure_type`` (one name) is read like ``failure_types``. Nothing is clamped: a grade of 7
    or 3.5, an unknown failure type or a missing field makes the whole reply invalid.

    Returns:
        The judgement, or one with ``scores`` None and ``error`` saying why.
    """
    obj = _json_object(text)
    if obj is None:
        return ParsedJudgement(None, error="no JSON object in the reply")
    try:
        scores = {}
        for key in JUDGE_SCORES:
            if key not in obj:
                raise ValueError(f"{key} missing")
            scores[key] = _grade(key, obj[key])
        named = next((k for k in ("failure_types", "failure_type") if k in obj), None)
        if named is None:
            raise ValueError("failure_types missing")
        failures = _failure_types(obj[named])
    except ValueError as e:
        return ParsedJudgement(None, error=str(e))
    rationale = obj.get("rationale", "")
    return ParsedJudgement(
        scores, failures, rationale if isinstance(rationale, str) else json.dumps(rationale)
    )


def _clip(text: str, limit: int) -> str:
    """``text``, or its head and tail around a note of how many characters were cut."""
    if len(text) <= limit:
        return text
    head, tail = limit * 2 // 3, limit // 3
    return f"{text[:head]}\n[... {len(text) - head - tail} characters cut ...]\n{text[-tail:]}"


def judge_messages(
    item: CGMItem, response: str, max_response_chars: int = MAX_RESPONSE_CHARS
) -> list[Message]:
    """The judge prompt for one answer: one user message (rubric, the case, the reply format).

    One user message and no system message, so that models whose chat template has no system
    role (Gemma) see the rubric too.

    Args:
        item: The answered item.
        response: The model's stored response text.
        max_response_chars: Most characters of the response shown (head and tail kept).
    """
    unit = f" ({item.unit})" if item.unit else ""
    case = (
        f"Question: {item.data.get('question', '')}\n"
        f"Instruction: {item.data.get('instruction', '')}\n"
        f"Correct answer: {json.dumps(item.answer, ensure_ascii=False)}{unit}\n\n"
        f"Assistant's reply:\n<<<\n{_clip(response, max_response_chars)}\n>>>"
    )
    return [Message("user", f"{_RUBRIC}\n\n{case}\n\n{_REPLY}")]
