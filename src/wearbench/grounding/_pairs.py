"""The fixed menus of signal pairs population-grounded cross-signal questions draw from.

Pairs are ordered ``x -> y`` (x is the plausible driver; a positive lag means x leads).
*Empirical* pairs are physiologically meaningful couplings whose presence, lag and sign vary
between people and must be found in the data. *Definitional* pairs are linked by how the
device counts or computes them (:data:`DEFINITIONAL_PAIRS`); the seed reports scores on the
two kinds separately. Those whose coupling is near-deterministic (:data:`LOCKSTEP_PAIRS`:
active calories from steps and exercise, MET-hours from minutes) are predictable without the
time series and are not offered (the shortcut audit of the seeds).
"""

from __future__ import annotations

from dataclasses import dataclass

from wearbench._labels import PairKind


@dataclass(frozen=True)
class Pair:
    """A directed signal pair and whether its coupling is definitional."""

    x: str
    y: str
    kind: PairKind = "empirical"

    @property
    def name(self) -> str:
        """``"x->y"`` (the pattern family suffix)."""
        return f"{self.x}->{self.y}"

    def label(self) -> str:
        """Human-readable pair."""
        return f"{self.x.replace('_', ' ')} ↔ {self.y.replace('_', ' ')}"


EMPIRICAL_PAIRS: tuple[Pair, ...] = (
    Pair("sleep_minutes", "hrv"),
    Pair("sleep_minutes", "stress"),
    Pair("sleep_minutes", "steps"),
    Pair("sleep_minutes", "resting_hr"),
    Pair("sleep_efficiency", "resting_hr"),
    Pair("sleep_efficiency", "hrv"),
    Pair("steps", "resting_hr"),
    Pair("steps", "stress"),
    Pair("exercise_minutes", "resting_hr"),
    Pair("exercise_minutes", "deep_sleep_pct"),
    Pair("exercise_minutes", "sleep_minutes"),
    Pair("mets", "hrv"),
    Pair("stress", "sleep_efficiency"),
    Pair("stress", "hrv"),
    Pair("stress", "resting_hr"),
    Pair("bedtime_regularity", "sleep_efficiency"),
)
#: Definitional pairs offered as options: linked by how the device counts or computes them, with
#: a strength that depends on the person and the window (steps taken during an on-foot workout
#: count toward both; sleep efficiency is time asleep over time in bed; stage shares divide the
#: same night). On the synthetic cohort the steps ↔ exercise links reach |r| ≥ 0.65 in about a
#: quarter of windows (runners more than cyclists) and the sleep ones are generated unlinked.
DEFINITIONAL_PAIRS: tuple[Pair, ...] = (
    Pair("steps", "exercise_minutes", "definitional"),
    Pair("steps", "mets", "definitional"),
    Pair("steps", "exercise_count", "definitional"),
    Pair("sleep_minutes", "sleep_efficiency", "definitional"),
    Pair("deep_sleep_pct", "rem_sleep_pct", "definitional"),
)
#: Definitional pairs never offered: near-identities coupled at |r| ≥ 0.6 in ~90 % of windows
#: (minutes → MET-hours at r ≈ 0.99). Shown, they would win unless another one is shown too, so
#: a model knowing how devices compute calories would answer without the data.
LOCKSTEP_PAIRS: tuple[Pair, ...] = (
    Pair("steps", "active_kcal", "definitional"),
    Pair("exercise_minutes", "active_kcal", "definitional"),
    Pair("exercise_minutes", "mets", "definitional"),
    Pair("exercise_minutes", "exercise_count", "definitional"),
)
_BY_NAME = {p.name: p for p in (*EMPIRICAL_PAIRS, *DEFINITIONAL_PAIRS, *LOCKSTEP_PAIRS)}


def pair_by_name(name: str) -> Pair:
    """The menu pair called ``name`` (``"x->y"``).

    Raises:
        KeyError: If no menu pair has that name.
    """
    return _BY_NAME[name]
