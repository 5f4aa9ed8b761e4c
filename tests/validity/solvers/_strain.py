"""Shared by acute_strain and differential_rhr: focus-day shifts and the grammar of the pattern options.

The stems define every quantity: resting HR is judged day by day against the mean and sample
SD of the trailing 28 days (missing days skipped); a co-signal by the mean of the focus days
against the mean and SD of the 28 days before them; the illness balance is
``(−HRV shift + sleep shift − steps shift) / 3``. An option is a ``; ``-separated list of
conditions, optionally after a ``Label: `` prefix; a co-signal it does not name is free.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from tests.validity.prompt import Prompt
from tests.validity.solvers._common import Unsolvable, dates_in, number

__all__ = ["CO_NAMES", "Rules", "State", "holds", "rules", "state_of_prompt"]

#: Option-text name of a co-signal → metric (as the stems define them).
CO_NAMES = {
    "hrv": "hrv",
    "sleep": "sleep_minutes",
    "steps": "steps",
    "exercise": "exercise_minutes",
    "stress": "stress",
    "bedtime sd": "bedtime_regularity",
}
_RHR = {"resting hr up": "up", "resting hr under its baseline": "under", "resting hr steady": "steady"}
_CONDS = ("steady or up", "steady or down", "up", "down", "steady")


@dataclass(frozen=True)
class Rules:
    """Thresholds the stem states (SD units) and the day counts."""

    k_rhr: float
    t_co: float
    focus: int
    baseline: int


@dataclass(frozen=True)
class State:
    """Resting-HR state (``up``, ``under``, ``steady``, or None when not judged) and co-signal shifts."""

    rhr: str | None
    z: Mapping[str, float]


def rules(stem: str) -> Rules:
    """Thresholds and day counts from the stem's own sentences."""
    k = re.search(r"(?:≥|at least) ([\d.]+) SD above", stem)
    t = re.search(r"up at \+([\d.]+) SD or more", stem)
    f = re.search(r"last (\d+) days of the (\d+)-day window", stem)
    b = re.search(r"with the (\d+) days before them|from the (\d+) days before them", stem)
    if k is None or t is None or f is None or b is None:
        raise Unsolvable("the stem does not state the thresholds or day counts")
    base = int(b.group(1) or b.group(2))
    return Rules(number(k.group(1)), number(t.group(1)), int(f.group(1)), base)


def _cond(z: float, cond: str, t: float) -> bool:
    if cond == "up":
        return z >= t
    if cond == "down":
        return z <= -t
    if cond == "steady":
        return abs(z) < t
    return z > -t if cond == "steady or up" else z < t


def _names(listed: str) -> list[str]:
    return [n.strip() for n in re.split(r", | and ", listed)]


def holds(text: str, state: State, t_co: float) -> bool:
    """Whether every condition an option names holds for ``state`` (unreadable text: False)."""
    body = text.split(": ", 1)[1] if ": " in text else text
    for part in body.split("; "):
        low = part.strip().lower()
        if low.startswith("resting hr"):
            if low not in _RHR or state.rhr != _RHR[low]:
                return False
            continue
        bal = re.fullmatch(
            r"illness balance \(hrv down, sleep up, steps down\) (at least|below) ([\d.]+) sd", low
        )
        if bal is not None:
            z = state.z
            index = (-z["hrv"] + z["sleep_minutes"] - z["steps"]) / 3.0
            if (index >= number(bal.group(2))) != (bal.group(1) == "at least"):
                return False
            continue
        m = re.fullmatch(rf"(.+?) ({'|'.join(_CONDS)})", low)
        if m is None or any(n not in CO_NAMES for n in _names(m.group(1))):
            return False
        if not all(_cond(state.z[CO_NAMES[n]], m.group(2), t_co) for n in _names(m.group(1))):
            return False
    return True


def _rhr_state(x: np.ndarray, r: Rules) -> str:
    """``up`` / ``under`` / ``steady`` from the last ``focus`` days' trailing z-scores."""
    z = np.full(r.focus, np.nan)
    for i, t in enumerate(range(len(x) - r.focus, len(x))):
        past = x[max(0, t - r.baseline) : t]
        past = past[np.isfinite(past)]
        if past.size >= 2 and np.isfinite(x[t]) and past.std(ddof=1) > 0:
            z[i] = (x[t] - past.mean()) / past.std(ddof=1)
    pairs = [(z[i], z[i + 1]) for i in range(r.focus - 1) if np.isfinite(z[i]) and np.isfinite(z[i + 1])]
    if not pairs:
        raise Unsolvable("no two consecutive focus days with a resting-HR z-score")
    if max(min(p) for p in pairs) >= r.k_rhr:
        return "up"
    return "under" if min(max(p) for p in pairs) <= -r.k_rhr else "steady"


def _shift(x: np.ndarray, r: Rules) -> float:
    """Focus mean minus baseline mean, in baseline SD units (NaN when undefined)."""
    focus = x[len(x) - r.focus :]
    base = x[max(0, len(x) - r.focus - r.baseline) : len(x) - r.focus]
    focus, base = focus[np.isfinite(focus)], base[np.isfinite(base)]
    if focus.size == 0 or base.size < 2:
        return float("nan")
    sd = float(base.std(ddof=1))
    if sd == 0:
        return 0.0 if focus.mean() == base.mean() else float("nan")
    return float((focus.mean() - base.mean()) / sd)


def state_of_prompt(p: Prompt, judge_rhr: bool) -> tuple[State, Rules]:
    """The state of the focus days the stem asks about (resting HR judged when ``judge_rhr``)."""
    r = rules(p.question)
    if dates_in(p.question)[0] != str(p.dates[-1]):
        raise Unsolvable("window end is not the last shown day")
    z = {m: _shift(p.values(m), r) for m in CO_NAMES.values()}
    rhr = _rhr_state(p.values("resting_hr"), r) if judge_rhr else None
    return State(rhr, z), r
