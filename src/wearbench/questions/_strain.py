"""Shared rules of the strain readings (``acute_strain`` and ``differential_rhr``).

Both types judge the last :data:`FOCUS_DAYS` days of a window: resting HR held on two
consecutive focus days in SD units of the trailing :data:`BASELINE_DAYS`-day personal baseline
(up at :data:`K_RHR`), co-signals shifted from the days before the focus (up / down at
:data:`T_CO`), and the illness balance (:data:`T_ILL`). A reading is a :class:`Pattern`: its
option text and its check come from the same fields, and a window whose reading changes when a
value moves across a dead-band (:data:`BAND`, :data:`BAND_ILL`) is dropped.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np

from wearbench.cohort import UserContext
from wearbench.primitives import zscore
from wearbench.questions._graph import Graph
from wearbench.questions._qtype import Drop

#: Days in the focus (the last days of the 28-day window the reading is about).
FOCUS_DAYS = 3
BASELINE_DAYS = 28
#: Resting-HR threshold in personal SD units (WearableQA: 1.5 SD above the 28-day mean).
K_RHR = 1.5
#: Co-signal threshold in SD units.
T_CO = 1.0
#: Half-width of the dead-band around every threshold.
BAND = 0.25
#: Illness index threshold (mean illness-direction shift of HRV, sleep and steps, SD units).
#: 0.8, not 0.5: at 0.5 the illness reading matched a planted illness in 0.77 of items on the
#: default cohort; at 0.8 in 0.92 (docs/health-readings.md).
T_ILL = 0.8
#: Dead-band around :data:`T_ILL`.
BAND_ILL = 0.15


@dataclass(frozen=True)
class State:
    """Numbers a reading is decided on: sustained RHR scores and co-signal shifts (SD units)."""

    high: float
    low: float
    z: Mapping[str, float]

    @property
    def illness_index(self) -> float:
        """Mean of the illness-direction shifts: (−HRV + sleep − steps) / 3, in SD units."""
        return (-self.z["hrv"] + self.z["sleep_minutes"] - self.z["steps"]) / 3.0

    @property
    def elevated(self) -> bool:
        """Resting HR ≥ :data:`K_RHR` SD above baseline on two consecutive focus days."""
        return self.high >= K_RHR

    @property
    def below(self) -> bool:
        """Resting HR ≤ −:data:`K_RHR` SD on two consecutive focus days."""
        return self.low <= -K_RHR


Rule = Callable[[State], bool]
#: How a co-signal moved: up / down at ±:data:`T_CO` SD, steady within, or one side of it.
Cond = Literal["up", "down", "steady", "steady_or_up", "steady_or_down"]
#: Resting HR: up (elevated), under (sustained under its baseline) or steady (neither).
RhrCond = Literal["up", "under", "steady"]
#: Short names of the co-signals in option texts (the stem defines each).
NAMES = {
    "hrv": "HRV",
    "sleep_minutes": "sleep",
    "steps": "steps",
    "exercise_minutes": "exercise",
    "stress": "stress",
    "bedtime_regularity": "bedtime SD",
}
_COND_TEXT = {
    "up": "up",
    "down": "down",
    "steady": "steady",
    "steady_or_up": "steady or up",
    "steady_or_down": "steady or down",
}
_RHR_TEXT = {"up": "Resting HR up", "under": "Resting HR under its baseline", "steady": "Resting HR steady"}


def _cond_holds(z: float, cond: Cond) -> bool:
    if cond == "up":
        return z >= T_CO
    if cond == "down":
        return z <= -T_CO
    if cond == "steady":
        return abs(z) < T_CO
    return z > -T_CO if cond == "steady_or_up" else z < T_CO


@dataclass(frozen=True)
class Pattern:
    """A reading's rule as data: its option text and its check both come from these fields.

    Attributes:
        rhr: Required resting-HR state, or None when the stem already fixes it.
        co: Co-signal → required movement; co-signals not named may take any value.
        balance: ``"yes"``: the illness balance (:attr:`State.illness_index`) is at least
            :data:`T_ILL`; ``"no"``: it is below; ``""``: not used.
    """

    rhr: RhrCond | None
    co: tuple[tuple[str, Cond], ...] = ()
    balance: Literal["", "yes", "no"] = ""

    def __call__(self, s: State) -> bool:
        """Whether the state fits every part of the pattern."""
        if self.rhr == "up" and not s.elevated:
            return False
        if self.rhr == "under" and (s.elevated or not s.below):
            return False
        if self.rhr == "steady" and (s.elevated or s.below):
            return False
        if self.balance and (s.illness_index >= T_ILL) != (self.balance == "yes"):
            return False
        return all(_cond_holds(s.z[m], c) for m, c in self.co)

    def text(self) -> str:
        """The pattern in words, e.g. "Resting HR up; HRV down; sleep and steps steady"."""
        parts = [] if self.rhr is None else [_RHR_TEXT[self.rhr]]
        if self.balance:
            side = "at least" if self.balance == "yes" else "below"
            parts.append(f"illness balance (HRV down, sleep up, steps down) {side} {T_ILL:g} SD")
        groups: dict[Cond, list[str]] = {}
        for m, c in self.co:
            groups.setdefault(c, []).append(NAMES[m])
        for c, names in groups.items():
            listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
            parts.append(f"{listed} {_COND_TEXT[c]}")
        text = "; ".join(parts)
        return text[0].upper() + text[1:]


def option_text(key: str, pattern: Pattern, kept: Mapping[str, str]) -> str:
    """Option text: the pattern, after its causal label when the label holds (:data:`KEPT`).

    After a label the pattern's first letter is lowered unless it starts an acronym ("HRV").
    """
    body = pattern.text()
    if key not in kept:
        return body
    return f"{kept[key]}: {body[0].lower() + body[1:] if body[1:2].islower() else body}"


def strain_graph(ctx: UserContext, end: int, cosignals: Sequence[str]) -> Graph:
    """Record the evidence: sustained resting-HR levels and focus-vs-baseline co-signal shifts."""
    g = Graph(ctx, str(ctx.dates[end]))
    span = BASELINE_DAYS + FOCUS_DAYS
    z = g.call("zscore", g.series("resting_hr", span), window=BASELINE_DAYS, min_count=14)
    for key, direction in (("rhr_high", "above"), ("rhr_low", "below")):
        g.output(key, g.call("sustained_level", z, run_days=2, tail=FOCUS_DAYS, direction=direction))
    for m in cosignals:
        shift = g.call(
            "focus_shift",
            g.series(m, span),
            focus_days=FOCUS_DAYS,
            baseline_days=BASELINE_DAYS,
            min_focus=2,
            min_baseline=14,
        )
        g.output(f"z_{m}", shift["z"])
    return g


def state_of(evidence: Mapping[str, Any], cosignals: Sequence[str]) -> State | None:
    """The :class:`State` the evidence describes, or None where a number is undefined."""
    values = [evidence["rhr_high"], evidence["rhr_low"], *(evidence[f"z_{m}"] for m in cosignals)]
    if any(v is None for v in values):
        return None
    high, low, *z = (float(v) for v in values)
    return State(high, low, dict(zip(cosignals, z, strict=True)))


def reading_of(state: State, readings: Mapping[str, Rule]) -> str | None:
    """The single reading whose rule holds, or None when none or several hold."""
    hits = [name for name, rule in readings.items() if rule(state)]
    return hits[0] if len(hits) == 1 else None


def _variants(state: State) -> list[State]:
    """``state`` with every value inside a dead-band pushed to either side of its threshold."""
    near: list[tuple[str, float]] = []
    for key, value, edges in [("high", state.high, (K_RHR,)), ("low", state.low, (-K_RHR,))] + [
        (m, v, (T_CO, -T_CO)) for m, v in state.z.items()
    ]:
        near += [(key, e) for e in edges if abs(value - e) < BAND]
    out = []
    for sides in itertools.product((-1.0, 1.0), repeat=len(near)):
        high, low, z = state.high, state.low, dict(state.z)
        for (key, edge), side in zip(near, sides, strict=True):
            pushed = edge + side * BAND
            if key == "high":
                high = pushed
            elif key == "low":
                low = pushed
            else:
                z[key] = pushed
        out.append(replace(state, high=high, low=low, z=z))
    return out


def robust_reading(state: State, readings: Mapping[str, Rule], index_band: bool = True) -> str:
    """The reading, required to be unique and unchanged across the dead-band.

    ``index_band`` also requires the illness index to lie outside its dead-band (for readings
    that use the illness balance).

    Raises:
        Drop: When no reading or several fit, or a near-threshold value decides it.
    """
    nominal = reading_of(state, readings)
    if nominal is None:
        raise Drop("no single reading fits the co-signals")
    if any(reading_of(v, readings) != nominal for v in _variants(state)):
        raise Drop("a value lies within the dead-band of a threshold")
    if index_band and state.elevated and abs(state.illness_index - T_ILL) < BAND_ILL:
        raise Drop("illness index within the dead-band of its threshold")
    return nominal


def _run_ends(hit: np.ndarray, min_history: int, last: int) -> list[int]:
    """End indices putting the first day of every run of ≥ 2 ``hit`` days first in the focus."""
    starts = np.flatnonzero(hit[:-1] & hit[1:] & ~np.concatenate([[False], hit[:-2]]))
    ends = {int(s) + FOCUS_DAYS - 1 for s in starts}
    return sorted((e for e in ends if min_history - 1 <= e <= last), reverse=True)


def _cosignal_ends(ctx: UserContext, min_history: int, last: int) -> list[int]:
    """Ends whose focus-day mean of a co-signal's daily z-score is at least :data:`T_CO` off."""
    found: set[int] = set()
    for m in ("sleep_minutes", "steps", "hrv"):
        z = zscore(ctx.metrics[m], window=BASELINE_DAYS, min_count=14)
        mean = np.convolve(np.nan_to_num(z, nan=0.0), np.ones(FOCUS_DAYS) / FOCUS_DAYS, mode="valid")
        found |= {int(i) + FOCUS_DAYS - 1 for i in np.flatnonzero(np.abs(mean) >= T_CO)}
    return sorted((e for e in found if min_history - 1 <= e <= last), reverse=True)


def _thin(ends: list[int], gap: int) -> list[int]:
    """Keep ends (latest first) at least ``gap`` days from every end already kept."""
    kept: list[int] = []
    for e in ends:
        if all(abs(e - k) >= gap for k in kept):
            kept.append(e)
    return kept


def candidate_ends(
    ctx: UserContext, min_history: int, step: int = 28, quiet: bool = True, off_gap: int = 14
) -> list[int]:
    """Candidate window ends: resting-HR rises interleaved with other ends (latest first).

    A rise is two or more consecutive days with z ≥ :data:`K_RHR`; its end puts the rise's
    first day first in the focus. With ``quiet``, other ends follow each rise in turn: focus
    periods where sleep, steps or HRV are off their baseline (``off_gap`` days apart), then plain ends
    every ``step`` days, each a week away from the ends before it. Selection only: the answer is
    computed in the item's graph.
    """
    z = np.nan_to_num(zscore(ctx.metrics["resting_hr"], window=BASELINE_DAYS, min_count=14), nan=0.0)
    last = ctx.n_days - 1
    rises = _run_ends(z >= K_RHR, min_history, last)
    if not quiet:
        return rises
    off = [e for e in _thin(_cosignal_ends(ctx, min_history, last), off_gap) if _apart(e, rises)]
    plain = [e for e in range(last, min_history - 2, -step) if _apart(e, rises + off)]
    return [e for group in itertools.zip_longest(rises, off, plain) for e in group if e is not None]


def _apart(end: int, others: list[int], gap: int = 7) -> bool:
    return all(abs(end - o) >= gap for o in others)


def cosignal_phrase(cosignals: Sequence[str]) -> str:
    """Readable list of co-signal names."""
    names = ["HRV" if m == "hrv" else m.replace("_", " ") for m in cosignals]
    return ", ".join(names[:-1]) + " and " + names[-1]
