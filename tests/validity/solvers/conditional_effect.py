"""conditional_effect: mean response after the driver's personal lows/highs minus after other days, in SD.

The stem defines every condition (``short-sleep nights: sleep minutes at or below the user's own
20th percentile over these days, response read on the same date; ...``); each option is a
reading ``After <condition>, <response>: lo to hi SD (higher|lower)`` of one condition and
response, and exactly one reading is true.
"""

from __future__ import annotations

import re

import numpy as np
from tests.validity.prompt import Prompt
from tests.validity.solvers._common import Unsolvable, dates_in, number, pick

#: Response names in the options → column names.
RESPONSES = {
    "resting HR": "resting_hr",
    "HRV": "hrv",
    "stress": "stress",
    "sleep minutes": "sleep_minutes",
    "sleep efficiency": "sleep_efficiency",
}
_DEF = re.compile(
    r"([a-z-]+ (?:nights|days)): ([a-z ]+?) at or (below|above) the user's own (\d+)th percentile "
    r"over these days, response read on (the same date|the next day)"
)
_READING = re.compile(r"After (.+?), (.+): ([+−-][\d.]+) to ([+−-][\d.]+) SD \((higher|lower)\)$")


def conditions(stem: str) -> dict[str, tuple[str, bool, float, int]]:
    """Condition name → (driver column, below?, quantile, lag in days), from the stem."""
    out = {}
    for name, driver, side, q, read in _DEF.findall(stem):
        out[name] = (
            driver.replace(" ", "_"),
            side == "below",
            int(q) / 100,
            0 if read == "the same date" else 1,
        )
    if not out:
        raise Unsolvable("the stem defines no condition")
    return out


def effect_sd(x: np.ndarray, y: np.ndarray, below: bool, quantile: float, lag: int) -> tuple[float, float]:
    """(effect in SD, SD) of the response ``lag`` days after driver days beyond its own quantile."""
    cut = float(np.quantile(x[np.isfinite(x)], quantile))
    xs, ys = x[: len(x) - lag], y[lag:]
    used = np.isfinite(xs) & np.isfinite(ys)
    cond = used & ((xs <= cut) if below else (xs >= cut))
    other = used & ~cond
    sd = float(np.std(ys[used], ddof=1))
    return (float(ys[cond].mean()) - float(ys[other].mean())) / sd, sd


def reading(text: str) -> tuple[str, str, float, float, str]:
    """(condition, response column, lo, hi, direction) of an option."""
    m = _READING.match(text)
    if m is None:
        raise Unsolvable(f"unreadable option {text!r}")
    cond, response, lo, hi, direction = m.groups()
    return cond.lower(), RESPONSES[response], number(lo), number(hi), direction


def holds(text: str, effect: float) -> bool:
    """Whether the reading's interval ``[lo, hi)`` and direction are true for ``effect`` (SD)."""
    _, _, lo, hi, direction = reading(text)
    return lo <= effect < hi and (effect > 0) == (direction == "higher")


def solve(p: Prompt) -> str:
    """Letter of the one reading whose family's effect lies in its interval."""
    days = int(re.search(r"Over the (\d+) days ending", p.question).group(1))  # type: ignore[union-attr]
    if dates_in(p.question)[0] != str(p.dates[-1]):
        raise Unsolvable("window end is not the last shown day")
    defs = conditions(p.question)

    def true(text: str) -> bool:
        cond, response, _, _, _ = reading(text)
        driver, below, quantile, lag = defs[cond]
        effect, _ = effect_sd(p.span(driver, days), p.span(response, days), below, quantile, lag)
        return holds(text, effect)

    return pick(p.options, true)
