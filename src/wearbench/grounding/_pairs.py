"""The fixed menus of signal pairs population-grounded cross-signal questions draw from.

Pairs are ordered ``x -> y`` (x is the plausible driver; a positive lag means x leads).
*Empirical* pairs are physiologically meaningful couplings whose presence, lag and sign vary
between people and must be found in the data. *Definitional* pairs are linked by how the
device computes them (active calories from steps and exercise; MET-hours from exercise
minutes; exercise count from sessions), so their correlation is trivially predictable
without the time series (the shortcut audit of the seeds).
"""

from __future__ import annotations

from dataclasses import dataclass

from wearbench.questions._labels import PairKind

__all__ = ["DEFINITIONAL_PAIRS", "EMPIRICAL_PAIRS", "Pair", "pair_by_name"]


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
DEFINITIONAL_PAIRS: tuple[Pair, ...] = (
    Pair("steps", "active_kcal", "definitional"),
    Pair("exercise_minutes", "active_kcal", "definitional"),
    Pair("exercise_minutes", "mets", "definitional"),
    Pair("exercise_minutes", "exercise_count", "definitional"),
)
_BY_NAME = {p.name: p for p in (*EMPIRICAL_PAIRS, *DEFINITIONAL_PAIRS)}


def pair_by_name(name: str) -> Pair:
    """The menu pair called ``name`` (``"x->y"``).

    Raises:
        KeyError: If no menu pair has that name.
    """
    return _BY_NAME[name]
