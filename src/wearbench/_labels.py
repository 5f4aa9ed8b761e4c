"""The four labels every item carries (WearableQA taxonomy); grounding and questions both use them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Reasoning = Literal["data", "health"]
Signals = Literal["single", "cross"]
Grounding = Literal["literature", "population", "definition"]
Dependency = Literal["window", "history"]
PairKind = Literal["definitional", "empirical"]


@dataclass(frozen=True)
class Labels:
    """Taxonomy labels of a question type.

    Attributes:
        reasoning: ``data`` (computation over measurements) or ``health`` (interpretation).
        signals: ``single`` metric or ``cross`` (two or more signals, or blood panel + signals).
        grounding: ``literature`` (a literature card), ``population`` (a gated cohort pattern) or
            ``definition`` (a data-reasoning type whose answer follows from a stated computation
            over the user's own record, e.g. a Theil–Sen slope or a personal-baseline z-score,
            with neither a literature card nor a population gate behind it).
        dependency: ``window`` (the 28-day window suffices) or ``history`` (needs long history).
    """

    reasoning: Reasoning
    signals: Signals
    grounding: Grounding
    dependency: Dependency

    def to_dict(self) -> dict[str, str]:
        """``{"reasoning", "signals", "grounding", "dependency"}``."""
        return {
            "reasoning": self.reasoning,
            "signals": self.signals,
            "grounding": self.grounding,
            "dependency": self.dependency,
        }
