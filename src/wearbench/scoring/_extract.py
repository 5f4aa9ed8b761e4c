"""Free-form answer extraction for HealthLoopQA: find the answer in a response, then read it by type.

Finding, in order (the first that yields a value wins):

1. a JSON object with an ``answer`` key: the whole response, the inside of a fenced block
   (```json … ```), or an object embedded in prose (the last one in the text); Python dict
   syntax (single quotes) is accepted too;
2. a literal: the whole response (or fenced block) read with ``json.loads`` then
   ``ast.literal_eval`` (``42``, ``[1, 3]``, ``[[0, 30]]``, ``{"3": 45.2}``);
3. a loose ``answer: …`` (also ``Answer = …``, ``**Answer:** …``); the last one wins;
4. a one-line response as it stands (``yes``, ``12.5 mg/dL``).

An answer that is itself a string holding a literal (``{"answer": "[1, 2]"}``, which a JSON
``{"answer": str}`` response format forces) is read once more as a literal. Then the value is
read as its answer type (see :data:`ANSWER_TYPES`); anything that does not fit is a parse
failure with a reason, never a guess.
"""

from __future__ import annotations

import ast
import json
import math
import re
from dataclasses import dataclass
from typing import Any, Literal, get_args

#: Answer types of HealthLoopQA items (names shared with the templates in ``cgmqa``).
AnswerType = Literal["number", "integer", "yes_no", "category", "day_list", "day_value_list", "intervals"]
ANSWER_TYPES: tuple[str, ...] = get_args(AnswerType)

#: Longest text handed to ``ast.literal_eval`` (characters), to bound the work per response.
_MAX_LITERAL = 100_000
#: Most opening braces (the last ones) tried when looking for an embedded answer object.
_MAX_BRACES = 200
_NAN_WORDS = frozenset({"nan", "none", "null"})
_EMPTY_WORDS = frozenset({"", "none", "null", "nan", "no", "n/a", "na", "empty", "[]"})
_YES = frozenset({"yes", "y", "true"})
_NO = frozenset({"no", "n", "false"})
_FENCE = re.compile(r"```[ \t]*(?:json|python|py)?[ \t]*\n?(.*?)```", re.DOTALL | re.IGNORECASE)
_LOOSE = re.compile(r"""["']?\banswer\b["']?\**\s*(?:\bis\b\s*[:=]?|[:=])\s*\**\s*""", re.IGNORECASE)
_ARABIC_DIGITS = {ord(c): str(i) for i, c in enumerate("٠١٢٣٤٥٦٧٨٩")}
_ARABIC_DIGITS |= {ord(c): str(i) for i, c in enumerate("۰۱۲۳۴۵۶۷۸۹")}
_ARABIC_DIGITS |= {ord("٫"): ".", ord("٬"): ",", ord("،"): ","}
_NUMBER = re.compile(r"[+-]?(?:\d[\d,]*)?(?:\.\d+)?(?:[eE][+-]?\d+)?")
_THOUSANDS = re.compile(r"[+-]?\d{1,3}(?:,\d{3})+(?:\.\d+)?")
_NOT_FOUND = object()


@dataclass(frozen=True)
class Parsed:
    """An extracted answer, or why there is none.

    Attributes:
        value: The normalised answer (None on failure): ``float`` for ``number``, ``int`` (or a
            non-integral ``float``) for ``integer``, ``"yes"``/``"no"``, a lower-cased string,
            a sorted list of days, a sorted list of ``(day, value)`` tuples, or a list of
            ``(start, end)`` tuples in minutes sorted by start. Missing numbers are NaN.
        failure: Reason the answer could not be read; None when it was.
        source: Where it was found: ``json``, ``literal``, ``loose``, ``text`` (empty on failure
            to find any).
    """

    value: Any = None
    failure: str | None = None
    source: str = ""

    @property
    def ok(self) -> bool:
        """True when a value was read."""
        return self.failure is None


def extract_answer(text: str | None, answer_type: str) -> Parsed:
    """Find the answer in a model response and read it as ``answer_type``.

    Args:
        text: The response (None counts as empty).
        answer_type: One of :data:`ANSWER_TYPES`.

    Returns:
        The parsed answer or a failure with its reason.

    Raises:
        ValueError: On an unknown answer type.
    """
    if answer_type not in ANSWER_TYPES:
        raise ValueError(f"unknown answer type {answer_type!r}; expected one of {', '.join(ANSWER_TYPES)}")
    raw, source = find_answer(text or "")
    if raw is _NOT_FOUND:
        return Parsed(failure="no answer found in the response")
    value, failure = normalize_answer(raw, answer_type)
    return Parsed(value=value if failure is None else None, failure=failure, source=source)


def find_answer(text: str) -> tuple[Any, str]:
    """The raw answer value and where it was found; ``(<not found>, "")`` when there is none."""
    blocks = [m.group(1).strip() for m in _FENCE.finditer(text)]
    candidates = [*blocks, text.strip()]
    for candidate in candidates:
        obj = _literal(candidate)
        if isinstance(obj, dict) and (key := _answer_key(obj)) is not None:
            return _reread(obj[key]), "json"
    embedded = _embedded_answer(text)
    if embedded is not _NOT_FOUND:
        return _reread(embedded), "json"
    for candidate in candidates:
        obj = _literal(candidate)
        if obj is not _NOT_FOUND:
            return _reread(obj), "literal"
    loose = _loose_answer(text)
    if loose is not _NOT_FOUND:
        return loose, "loose"
    stripped = text.strip()
    if stripped and "\n" not in stripped and len(stripped) <= 200:
        return stripped, "text"
    return _NOT_FOUND, ""


def _answer_key(obj: dict[Any, Any]) -> Any:
    for key in obj:
        if isinstance(key, str) and key.strip().lower() == "answer":
            return key
    return None


def _literal(text: str) -> Any:
    """``json.loads``, then ``ast.literal_eval``; the not-found marker when neither reads it.

    ``ast.literal_eval`` only sees bracketed text and Python's constants, so that ``12,5`` or
    ``1,234`` never turn into tuples.
    """
    if not text or len(text) > _MAX_LITERAL:
        return _NOT_FOUND
    try:
        return json.loads(text)
    except ValueError:
        pass
    if text[0] not in "[{(" and text not in ("True", "False", "None"):
        return _NOT_FOUND
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return _NOT_FOUND


def _reread(value: Any) -> Any:
    """A string answer that holds a list, dict or number literal is read as that literal."""
    if isinstance(value, str):
        inner = _literal(value.strip())
        if inner is not _NOT_FOUND and not isinstance(inner, str):
            return inner
    return value


def _balanced(text: str, start: int) -> str | None:
    """The bracketed text opening at ``text[start]`` up to its matching close (quotes respected)."""
    pairs = {"{": "}", "[": "]", "(": ")"}
    stack: list[str] = []
    quote: str | None = None
    i = start
    while i < len(text):
        c = text[i]
        if quote:
            if c == "\\":
                i += 1
            elif c == quote:
                quote = None
        elif c in "\"'":
            quote = c
        elif c in pairs:
            stack.append(pairs[c])
        elif stack and c == stack[-1]:
            stack.pop()
            if not stack:
                return text[start : i + 1]
        i += 1
    return None


def _embedded_answer(text: str) -> Any:
    """The answer of the last ``{…}`` object in the text that has an ``answer`` key.

    Opening braces are tried from the end, at most :data:`_MAX_BRACES` of them, so a long
    response with many braces costs bounded work.
    """
    starts = [m.start() for m in re.finditer(r"\{", text)][-_MAX_BRACES:]
    for i in reversed(starts):
        chunk = _balanced(text, i)
        obj = _literal(chunk) if chunk else _NOT_FOUND
        if isinstance(obj, dict) and (key := _answer_key(obj)) is not None:
            return obj[key]
    return _NOT_FOUND


def _loose_answer(text: str) -> Any:
    """The value after the last ``answer:`` (a bracketed literal may span lines)."""
    matches = list(_LOOSE.finditer(text))
    if not matches:
        return _NOT_FOUND
    rest = text[matches[-1].end() :]
    if rest[:1] in "[{(":
        chunk = _balanced(rest, 0)
        if chunk is not None:
            obj = _literal(chunk)
            return obj if obj is not _NOT_FOUND else chunk
    line = rest.split("\n", 1)[0].strip().rstrip("}").strip()
    line = line.strip("*`").strip()
    if line.endswith(".") and not re.search(r"\d\.$", line):
        line = line[:-1]
    line = line.strip().strip("\"'")
    return _reread(line) if line else _NOT_FOUND


def parse_number(raw: Any) -> float | None:
    """A number from a value or text; None when it is not one.

    Text is normalised: Arabic-Indic digits and separators, a leading ``:``, ``~`` or ``≈``,
    thousands separators (``1,234.5``, ``1 234``), a decimal comma (``12,5``), and trailing
    units without digits (``120 mg/dL``, ``35 %``). ``nan``/``none``/``null`` and JSON null
    are NaN. A one-element list is read as its element.
    """
    if raw is None:
        return math.nan
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int | float):
        return float(raw)
    if isinstance(raw, list | tuple) and len(raw) == 1:
        return parse_number(raw[0])
    if not isinstance(raw, str):
        return None
    text = raw.translate(_ARABIC_DIGITS).strip().lstrip(":~≈").strip()
    if text.lower() in _NAN_WORDS:
        return math.nan
    text = re.sub(r"(?<=\d)[ \u00a0\u202f_'](?=\d{3}\b)", "", text)
    match = _NUMBER.match(text)
    if not match or not re.search(r"\d", match.group()):
        return None
    number, rest = match.group(), text[match.end() :]
    if re.search(r"\d", rest):
        return None
    if "," in number:
        if _THOUSANDS.fullmatch(number):
            number = number.replace(",", "")
        elif number.count(",") == 1 and "." not in number:
            number = number.replace(",", ".")
        else:
            return None
    try:
        return float(number)
    except ValueError:
        return None


def _tidy(x: float) -> float | int:
    """Integral finite floats as ``int`` (days, minutes), others unchanged."""
    return int(x) if math.isfinite(x) and x.is_integer() else x


def _words(raw: Any) -> str | None:
    """Text lower-cased, stripped of quotes, a final full stop and extra spaces."""
    if isinstance(raw, list | tuple) and len(raw) == 1:
        raw = raw[0]
    if isinstance(raw, bool) or raw is None:
        return None
    if isinstance(raw, int | float):
        return str(_tidy(float(raw)))
    if not isinstance(raw, str):
        return None
    text = " ".join(raw.strip().strip("\"'`*").split()).lower()
    return text[:-1].rstrip() if text.endswith(".") else text


def _yes_no(raw: Any) -> tuple[Any, str | None]:
    if isinstance(raw, bool):
        return ("yes" if raw else "no"), None
    text = _words(raw)
    first = re.split(r"[\s,.;:!]+", text, maxsplit=1)[0] if text else ""
    if first in _YES:
        return "yes", None
    if first in _NO:
        return "no", None
    return None, f"not yes or no: {raw!r}"


def _numbers_of(raw: Any) -> list[Any]:
    """Elements of a day list: a list as it is, a scalar as one day, text split on separators."""
    if isinstance(raw, list | tuple):
        return list(raw)
    if isinstance(raw, str):
        text = raw.strip().strip("[]()").strip()
        if text.lower() in _EMPTY_WORDS:
            return []
        return [t for t in re.split(r"\s*(?:,|;|\band\b|\s)\s*", text) if t]
    return [] if raw is None else [raw]


def _day_list(raw: Any) -> tuple[Any, str | None]:
    days: list[float | int] = []
    for item in _numbers_of(raw):
        x = parse_number(item)
        if x is None or not math.isfinite(x):
            return None, f"not a day number: {item!r}"
        days.append(_tidy(x))
    return sorted(days), None


def _pair_of(item: Any) -> tuple[Any, Any] | None:
    """``[day, value]`` or ``{"day": d, <one other key>: v}``; None when neither."""
    if isinstance(item, list | tuple) and len(item) == 2:
        return item[0], item[1]
    if isinstance(item, dict) and len(item) == 2:
        keys = {str(k).strip().lower(): k for k in item}
        if "day" in keys:
            other = next(k for k in item if k != keys["day"])
            return item[keys["day"]], item[other]
    return None


def _day_value_list(raw: Any) -> tuple[Any, str | None]:
    if isinstance(raw, dict) and _pair_of(raw) is None:
        items: list[Any] = list(raw.items())  # {"3": 45.2, "5": 60}
    elif isinstance(raw, dict):
        items = [raw]
    elif isinstance(raw, list | tuple):
        items = list(raw)
    elif raw is None or (isinstance(raw, str) and raw.strip().lower() in _EMPTY_WORDS):
        items = []
    else:
        return None, f"not a list of (day, value) pairs: {raw!r}"
    pairs: list[tuple[float | int, float | int]] = []
    for item in items:
        pair = _pair_of(item)
        day, value = (None, None) if pair is None else (parse_number(pair[0]), parse_number(pair[1]))
        if day is None or value is None or not math.isfinite(day):
            return None, f"not a (day, value) pair: {item!r}"
        pairs.append((_tidy(day), _tidy(value)))
    return sorted(pairs, key=lambda p: (p[0], p[1] if math.isfinite(p[1]) else math.inf)), None


def _intervals(raw: Any) -> tuple[Any, str | None]:
    if isinstance(raw, dict):
        raw = [raw]  # one interval given bare
    elif raw is None or (isinstance(raw, str) and raw.strip().lower() in _EMPTY_WORDS):
        raw = []  # an explicit "none": no intervals
    elif not isinstance(raw, list | tuple):
        # The upstream evaluator reads any non-list as [], which hides format failures.
        return None, f"not a list of intervals: {raw!r}"
    out: list[tuple[float | int, float | int]] = []
    for item in raw:
        if isinstance(item, dict):
            keys = {str(k).strip().lower(): v for k, v in item.items()}
            pair: Any = (keys.get("start"), keys.get("end")) if {"start", "end"} <= keys.keys() else None
        else:
            pair = item if isinstance(item, list | tuple) and len(item) == 2 else None
        ends = None if pair is None else (parse_number(pair[0]), parse_number(pair[1]))
        if ends is None or ends[0] is None or ends[1] is None:
            return None, f"not an interval: {item!r}"
        out.append((_tidy(ends[0]), _tidy(ends[1])))
    return sorted(out, key=lambda p: (p[0], p[1])), None


def normalize_answer(raw: Any, answer_type: str) -> tuple[Any, str | None]:
    """Read a raw answer value as ``answer_type``.

    Args:
        raw: The value found in the response (or a ground truth, normalised the same way).
        answer_type: One of :data:`ANSWER_TYPES`.

    Returns:
        ``(value, None)``, or ``(None, reason)`` when the value does not fit the type.

    Raises:
        ValueError: On an unknown answer type.
    """
    if answer_type in ("number", "integer"):
        x = parse_number(raw)
        if x is None:
            return None, f"not a number: {raw!r}"
        return (_tidy(x) if answer_type == "integer" else x), None
    if answer_type == "yes_no":
        return _yes_no(raw)
    if answer_type == "category":
        text = _words(raw)
        return (text, None) if text else (None, f"not a category: {raw!r}")
    if answer_type == "day_list":
        return _day_list(raw)
    if answer_type == "day_value_list":
        return _day_value_list(raw)
    if answer_type == "intervals":
        return _intervals(raw)
    raise ValueError(f"unknown answer type {answer_type!r}; expected one of {', '.join(ANSWER_TYPES)}")
