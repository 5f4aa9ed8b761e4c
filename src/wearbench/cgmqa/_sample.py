"""Which patients a CGM benchmark asks each level's templates about, and each item's random stream.

``seed`` sampling draws patients per family and cognitive level as the seed's released benchmark
does (``shared/specs/healthloopqa-templates.md``, "Sampling into the released benchmark"): AD 10
descriptive, 5 memory and 5 pattern patients; PM 8 descriptive and 9 memory; PD 16 pattern. Every
template of that level is kept for each drawn patient. ``full`` keeps every eligible patient for
every level (every patient under ``full``, so that each (template, patient) pair is an item or a
counted drop). Under ``seed``, a patient is eligible for a level when its record holds what at
least one of that level's templates needs (fault labels for most AD templates, …).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

import numpy as np

from wearbench._errors import WearbenchError
from wearbench.cgmqa._template import FAMILIES, LEVELS

Sampling = Literal["seed", "full"]
SAMPLINGS: tuple[str, ...] = get_args(Sampling)

#: Patients drawn per (family, level) by ``seed`` sampling (the seed's released benchmark).
SEED_PATIENTS: dict[tuple[str, str], int] = {
    ("ad", "descriptive"): 10,
    ("ad", "memory"): 5,
    ("ad", "pattern"): 5,
    ("pm", "descriptive"): 8,
    ("pm", "memory"): 9,
    ("pd", "pattern"): 16,
}


@dataclass(frozen=True)
class LevelDraw:
    """The patients of one family and level.

    Attributes:
        family: ``ad``, ``pm`` or ``pd``.
        level: Cognitive level.
        wanted: Patients the sampling asks for (None: every eligible patient).
        eligible: Eligible patients (``full``: every patient), in subject order.
        chosen: Drawn patients, in subject order.
    """

    family: str
    level: str
    wanted: int | None
    eligible: tuple[str, ...]
    chosen: tuple[str, ...]

    @property
    def short(self) -> bool:
        """Whether fewer patients were eligible than the sampling asks for (all were taken)."""
        return self.wanted is not None and len(self.eligible) < self.wanted

    def note(self) -> str:
        """One line on how the patients were chosen."""
        if self.wanted is None:
            return f"all {len(self.eligible)} patients"
        if self.short:
            return f"only {len(self.eligible)} eligible, fewer than the {self.wanted} asked for: took all"
        return f"drew {self.wanted} of {len(self.eligible)} eligible"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields plus the note."""
        return {
            "wanted": self.wanted,
            "eligible": len(self.eligible),
            "chosen": list(self.chosen),
            "note": self.note(),
        }


def check_sampling(sampling: str) -> Sampling:
    """``sampling`` if it is one of :data:`SAMPLINGS`.

    Raises:
        WearbenchError: Naming the valid values.
    """
    if sampling not in SAMPLINGS:
        raise WearbenchError(f"sampling {sampling!r} is unknown; valid: {', '.join(SAMPLINGS)}")
    return sampling  # type: ignore[return-value]


def draw_patients(
    family: str, level: str, eligible: Sequence[str], sampling: Sampling, seed: int
) -> LevelDraw:
    """The patients of ``family`` and ``level``.

    ``seed`` sampling draws :data:`SEED_PATIENTS` patients without replacement from
    ``np.random.default_rng([seed, family index, level index])`` (indices in :data:`FAMILIES` and
    :data:`LEVELS`); with fewer eligible patients it takes them all. A level without a seed quota,
    and ``full`` sampling, take every eligible patient.

    Args:
        family: ``ad``, ``pm`` or ``pd``.
        level: Cognitive level.
        eligible: Eligible subjects, in subject order.
        sampling: ``seed`` or ``full``.
        seed: Seed of the draw.
    """
    pool = tuple(eligible)
    wanted = SEED_PATIENTS.get((family, level)) if sampling == "seed" else None
    if wanted is None or len(pool) <= wanted:
        return LevelDraw(family, level, wanted, pool, pool)
    rng = np.random.default_rng([seed, FAMILIES.index(family), LEVELS.index(level)])
    picked = sorted(int(i) for i in rng.choice(len(pool), size=wanted, replace=False))
    return LevelDraw(family, level, wanted, pool, tuple(pool[i] for i in picked))


def _stable(text: str) -> int:
    """A 32-bit number of ``text`` that does not change between runs (unlike ``hash``)."""
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:4], "big")


def item_rng(seed: int, template_id: str, subject: str) -> np.random.Generator:
    """The random stream of one item (its params draw): ``default_rng([seed, h(template), h(subject)])``.

    It depends on nothing else, so adding a template or a patient changes no other item.
    """
    return np.random.default_rng([seed, _stable(template_id), _stable(subject)])
