"""Ground truth: what the generator planted, as sorted, JSON-ready rows."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from wearbench.sources.synthetic._chunk import Chunk
from wearbench.sources.synthetic._config import GENERATOR_NAME, GENERATOR_VERSION, SynthParams
from wearbench.sources.synthetic._couplings import DEFINITIONAL
from wearbench.sources.synthetic._daily import Calendar

#: Metrics a device change affects.
_CHANGED_METRICS = ["active_kcal", "hrv", "steps"]


@dataclass
class TruthBuilder:
    """Collects truth rows chunk by chunk; :meth:`build` returns the final mapping."""

    cal: Calendar
    traits: list[dict[str, Any]] = field(default_factory=list)
    episodes: list[dict[str, Any]] = field(default_factory=list)
    couplings: list[dict[str, Any]] = field(default_factory=list)
    device_changes: list[dict[str, Any]] = field(default_factory=list)
    training_blocks: list[dict[str, Any]] = field(default_factory=list)
    gaps: list[dict[str, Any]] = field(default_factory=list)
    non_wear_days: dict[str, int] = field(default_factory=dict)

    def _day(self, index: int) -> str:
        return str(self.cal.dates[index])

    def add(self, chunk: Chunk) -> None:
        """Record one chunk's plans, couplings, device events and non-wear counts."""
        self.traits.extend(chunk.person.truth_rows(chunk.user_ids))
        nonwear = (~chunk.recording.worn).sum(axis=1)
        for i, uid in enumerate(chunk.user_ids):
            plan = chunk.plans[i]
            for ep in plan.episodes:
                self.episodes.append(
                    {"user_id": uid, "kind": ep.kind, "start": self._day(ep.start), "end": self._day(ep.end)}
                    | {"magnitude": ep.magnitude}
                )
            for b in plan.training:
                self.training_blocks.append(
                    {"user_id": uid, "start": self._day(b.start), "end": self._day(b.end)}
                    | {"vo2max_gain": b.vo2max_gain, "resting_hr_drop": b.resting_hr_drop}
                )
            self.couplings.extend(c.truth(uid) for c in chunk.couplings[i])
            self.couplings.extend(
                {"user_id": uid, "driver": d, "response": r, "lag_days": 0, "sign": 1, "beta": 1.0}
                | {"kind": "definitional"}
                for d, r in DEFINITIONAL
            )
            change = chunk.recording.changes[i]
            if change is not None:
                self.device_changes.append(
                    {"user_id": uid, "date": self._day(change.day), "metrics": list(_CHANGED_METRICS)}
                    | {"steps_scale": change.steps_scale, "hrv_offset_ms": change.hrv_offset_ms}
                )
            self.gaps.extend(
                {"user_id": uid, "start": self._day(a), "end": self._day(b)}
                for a, b in chunk.recording.gaps[i]
            )
            self.non_wear_days[uid] = int(nonwear[i])

    def build(self, params: SynthParams) -> dict[str, Any]:
        """The truth mapping: every list sorted, every value a plain JSON type."""
        return {
            "generator": {"name": GENERATOR_NAME, "version": GENERATOR_VERSION, **params.as_dict()},
            "traits": sorted(self.traits, key=lambda r: r["user_id"]),
            "episodes": sorted(self.episodes, key=lambda r: (r["user_id"], r["start"])),
            "training_blocks": sorted(self.training_blocks, key=lambda r: (r["user_id"], r["start"])),
            "couplings": sorted(self.couplings, key=lambda r: (r["user_id"], r["driver"], r["response"])),
            "device_changes": sorted(self.device_changes, key=lambda r: r["user_id"]),
            "non_wear_gaps": sorted(self.gaps, key=lambda r: (r["user_id"], r["start"], r["end"])),
            "non_wear_days": {k: self.non_wear_days[k] for k in sorted(self.non_wear_days)},
        }
