"""How items are shown to a model: representation, mode and ablations (one evaluation setting)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from wearbench._errors import WearbenchError

__all__ = ["ABLATIONS", "MODES", "Mode", "Setting"]

Mode = Literal["direct", "cot", "agent", "multiview"]
MODES: tuple[Mode, ...] = ("direct", "cot", "agent", "multiview")
#: Ablations from the WearableQA paper: drop the time series, the long history (window only),
#: the cohort reference percentiles, or the blood panel.
ABLATIONS: tuple[str, ...] = ("no_series", "no_history", "no_cohort", "no_blood")


@dataclass(frozen=True)
class Setting:
    """How items are shown to a model.

    Attributes:
        representation: Registered representation name (``csv``, ``markdown``, ``row``, …).
        mode: ``direct`` (letter only), ``cot`` (reasoning then a letter), ``agent`` (Python
            tool over the data) or ``multiview`` (the model first picks a representation).
        ablations: Sorted subset of :data:`ABLATIONS`.
    """

    representation: str = "csv"
    mode: Mode = "direct"
    ablations: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if self.mode not in MODES:
            raise WearbenchError(f"unknown mode {self.mode!r}; valid: {', '.join(MODES)}")
        bad = [a for a in self.ablations if a not in ABLATIONS]
        if bad:
            raise WearbenchError(f"unknown ablation {bad[0]!r}; valid: {', '.join(ABLATIONS)}")
        object.__setattr__(self, "ablations", tuple(sorted(set(self.ablations))))

    def key(self) -> str:
        """Stable text form, e.g. ``repr=csv|mode=cot|ablate=no_blood``."""
        return f"repr={self.representation}|mode={self.mode}|ablate={','.join(self.ablations) or '-'}"

    @classmethod
    def from_key(cls, key: str) -> Setting:
        """Inverse of :meth:`key`."""
        parts = dict(p.split("=", 1) for p in key.split("|"))
        ablate = parts.get("ablate", "-")
        return cls(parts["repr"], parts["mode"], tuple(a for a in ablate.split(",") if a and a != "-"))  # type: ignore[arg-type]
