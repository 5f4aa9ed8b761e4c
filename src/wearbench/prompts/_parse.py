"""Reading an option letter (and a multiview representation choice) back from a reply."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

_OPEN = r"(?P<open>\*\*|\*|__|\(|\[|`|\"|')?"
_CLOSE = r"(?P<close>\*\*|\*|__|\)|\]|`|\"|')?"
_VERB = r"(?:i\s+(?:would\s+|will\s+|'ll\s+|’ll\s+)?|i['’]d\s+)(?:choose|select|pick|go\s+with)"
_TAIL = r"(?:\s+(?:is|would\s+be|will\s+be|should\s+be)\b)?[\s:=*_#>\-—–]*(?:(?:option|choice|letter)\s+)?"
#: Single letters that are also English words: they need decoration or an answer position.
_WORDS = frozenset("aAiI")


@dataclass(frozen=True)
class _Hit:
    letter: str
    start: int
    line: int


@functools.cache
def _patterns(letters: str) -> tuple[re.Pattern[str], ...]:
    cls = "[" + re.escape(letters.upper() + letters.lower()) + "]"
    tok = _OPEN + f"(?P<L>{cls})" + _CLOSE + r"(?![A-Za-z0-9])"
    flags = re.IGNORECASE | re.MULTILINE
    return (
        re.compile(r"\bfinal\s+answer\b" + _TAIL + tok, flags),
        re.compile(
            r"^[\s*_#>]*answer[\s*_]*[:=\-—–][\s*_]*" + r"(?:(?:option|choice|letter)\s+)?" + tok, flags
        ),
        re.compile(
            r"(?:\banswer\b|\b(?:correct|best|right)\s+(?:option|choice)\b|\b" + _VERB + r"\b)" + _TAIL + tok,
            flags,
        ),
        re.compile(r"^[\s*_#>]*" + tok + r"[\s.:)*_]*$", flags),
        re.compile(r"\A[\s*_#>]*" + tok + r"(?!\.[A-Za-z])", flags),
        re.compile(r"\b(?:option|choice)\s+" + tok, flags),
    )


def _accept(m: re.Match[str], text: str, tier: int) -> bool:
    """Whether a matched letter is really an answer here (not "a"/"I" prose or "e.g.")."""
    letter, decorated = m.group("L"), bool(m.group("open") or m.group("close"))
    rest = text[m.end() : m.end() + 40]  # enough to see what follows the letter
    if re.match(r"\.[A-Za-z]", rest):
        return False  # "e.g.", "i.e."
    if tier == 3 or decorated:
        return True  # a line that is only a letter, or "(c)" / "**C**"
    connector = re.match(r"\s+(?:because|since|as|is\s+correct)\b", rest, re.IGNORECASE) is not None
    if tier == 4:  # leading letter: "C) …", "C. …", "C — …", "C because …"
        if re.match(r"\s*[.:)—–\-,]", rest) or not rest.strip():
            return True
        return connector or not (letter in _WORDS or letter.islower())
    if letter.islower() and letter in _WORDS:  # "answer is a rise …", "option a bit …"
        return connector or re.match(r"\s*[A-Za-z0-9]", rest) is None
    if letter in _WORDS and tier < 5:  # "Answer: I think …", "answer: A rise …"
        return connector or re.match(r"\s+[a-z]", rest) is None
    return True


def _ambiguous(m: re.Match[str], text: str, cls: str) -> bool:
    """``Answer: B or C`` / ``B/C`` / ``B and C``: more than one letter given."""
    rest = text[m.end() :]
    pat = r"\s*(?:or|and|/|,|&)\s*[(\[*]*" + cls + r"[)\]*]*\s*(?:$|[.,;)\n])"
    return re.match(pat, rest) is not None


def _hits(pattern: re.Pattern[str], text: str, tier: int) -> list[_Hit]:
    return [
        _Hit(m.group("L").upper(), m.start(), text.count("\n", 0, m.start()))
        for m in pattern.finditer(text)
        if _accept(m, text, tier)
    ]


def parse_letter(text: str, letters: str = "ABCDEFGHIJ") -> str | None:
    """The option letter a reply settles on, or None.

    Precedence (the first tier with any match decides):

    1. ``final answer`` markers: "Final answer: C", "final answer is (c)".
    2. A line starting with ``Answer:`` (or ``Answer -``): "Answer: (C)", "**Answer:** C".
    3. Other answer phrases: "the answer is C", "correct option is C", "I choose C".
    4. A line that is only a letter: "C", "(c)", "**C**", "C.".
    5. A leading letter: "C) because …", "C. …", "C — since …", "D because …".
    6. Mentions "option C" / "choice C", only if they all name the same letter.

    Within tiers 1–5 the last match wins (a chain of thought may mention other letters or
    change its mind before its final answer), but a different letter from the same tier on the
    same line (tiers 2 and 3 count as one here: "Answer: B. Answer: C") or a multi-letter
    answer ("Answer: B or C", "B/C") gives None. Letters are
    case-insensitive; the words "a"/"A"/"I" ("I think …", "a rise of …") count only when
    decorated (``(a)``, ``**A**``), alone on a line, after an answer marker (upper case, or
    followed by punctuation), or leading with punctuation ("A." / "A)") or "because".

    Args:
        text: The reply.
        letters: Valid letters (upper case), default A–J.

    Returns:
        The upper-case letter, or None when the text is empty, has no answer, or is ambiguous.
    """
    letters = letters.upper()
    if not text or not text.strip() or not letters:
        return None
    cls = "[" + re.escape(letters + letters.lower()) + "]"
    patterns = _patterns(letters)
    for tier, pattern in enumerate(patterns):
        hits = _hits(pattern, text, tier)
        if not hits:
            continue
        if tier == 5:
            found = {h.letter for h in hits}
            return found.pop() if len(found) == 1 else None
        last = hits[-1]
        # tiers 1 and 2 ("Answer: X" lines and other answer phrases) tie with each other
        peers = hits + (_hits(patterns[3 - tier], text, 3 - tier) if tier in (1, 2) else [])
        same_line = {h.letter for h in peers if h.line == last.line}
        match = pattern.match(text, last.start)
        if len(same_line) > 1 or (match is not None and _ambiguous(match, text, cls)):
            return None
        return last.letter
    return None


def parse_representation_choice(text: str, available: Sequence[str]) -> str | None:
    """The representation a multiview reply picked, or None.

    A reply naming exactly one available representation picks it. Matching is
    case-insensitive on the name's alphanumeric words, with any punctuation or spaces between
    them (``Markdown stats`` matches ``markdown+stats``, ```csv``` matches ``csv``); longer
    names are matched first and removed, so ``csv+stats`` is not also read as ``csv``. A reply
    naming several different ones, or none, gives None.

    Args:
        text: The model's reply.
        available: The names offered.
    """
    rest = text.lower()
    found: list[str] = []
    for name in sorted(available, key=lambda n: (-len(n), n)):
        words = re.findall(r"[a-z0-9]+", name.lower())
        if not words:
            continue
        pat = re.compile(r"(?<![a-z0-9])" + r"[^a-z0-9\n]{0,3}".join(words) + r"(?![a-z0-9])")
        if pat.search(rest):
            found.append(name)
            rest = pat.sub(" ", rest)
    return found[0] if len(found) == 1 else None
