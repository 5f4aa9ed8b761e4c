"""concordance: same-day Pearson r of each listed pair, signed by health polarity, graded by |r|."""

from __future__ import annotations

import re

from tests.validity.prompt import Prompt
from tests.validity.solvers._common import Unsolvable, at_least, dates_in, lag_r, number, pick

#: Names the options use for the signals.
NAMES = {
    "resting HR": "resting_hr",
    "HRV": "hrv",
    "sleep": "sleep_minutes",
    "sleep efficiency": "sleep_efficiency",
    "stress": "stress",
}
#: +1 when higher is better, as the stem defines "poorer".
POLARITY = {"resting_hr": -1, "stress": -1, "hrv": 1, "sleep_minutes": 1, "sleep_efficiency": 1}


def grades(stem: str) -> dict[str, tuple[float, float]]:
    """Grade letter → |r| interval, from the stem (the last grade closed at 1)."""
    found = re.findall(r"([A-E]) ([\d.]+)–([\d.]+)", stem)
    return {g: (float(lo), float(hi)) for g, lo, hi in found}


def reading(text: str) -> tuple[str, str, str, str, str]:
    """(grade, direction, a, b, verb) of an option ``Grade C, concordant: as a increased, b fell``."""
    m = re.match(r"Grade ([A-E]), (concordant|discordant): as (.+) increased, (.+) (rose|fell)$", text)
    if m is None:
        raise Unsolvable(f"unreadable option {text!r}")
    g, d, a, b, verb = m.groups()
    return g, d, NAMES[a], NAMES[b], verb


def holds(text: str, r: float, bins: dict[str, tuple[float, float]]) -> bool:
    """Whether the reading ``text`` is true for a raw same-day ``r`` of its pair."""
    grade, direction, a, b, verb = reading(text)
    signed = POLARITY[a] * POLARITY[b] * r
    lo, hi = bins[grade]
    in_bin = lo <= abs(signed) < hi or (hi == 1.0 and abs(signed) == 1.0)
    concordant = signed > 0
    return in_bin and concordant == (direction == "concordant") and (r > 0) == (verb == "rose")


def solve(p: Prompt) -> str:
    """Letter of the one reading that the data make true."""
    days = int(number(re.search(r"Over the (\d+) days ending", p.question).group(1)))  # type: ignore[union-attr]
    if dates_in(p.question)[0] != str(p.dates[-1]):
        raise Unsolvable("window end is not the last shown day")
    bins = grades(p.question)
    overlap = at_least(p.question, "defined only")

    def true(text: str) -> bool:
        _, _, a, b, _ = reading(text)
        return holds(text, lag_r(p.span(a, days), p.span(b, days), 0, overlap), bins)

    return pick(p.options, true)
