"""The benchmark item as stored in ``items.jsonl``."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

LETTERS: tuple[str, ...] = tuple("ABCDEFGHIJ")


def item_id(type_name: str, user_id: str, end_date: str, variant: str = "") -> str:
    """Deterministic short id of (type, user, window end, variant)."""
    key = f"{type_name}|{user_id}|{end_date}|{variant}"
    return "wb-" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:12]


@dataclass(frozen=True)
class Item:
    """One 10-option question with everything needed to re-derive its answer.

    Attributes:
        id: Deterministic id (see :func:`item_id`).
        type: Question type name; ``type_version`` its version.
        reasoning, signals, grounding, dependency: Taxonomy labels.
        user_id: User.
        end_date: Last day of the window (ISO).
        window_days: Days in the window; ``history_days`` days of record shown.
        metrics: Metrics the question is about.
        question: Stem.
        options: Letter → option text (A–J).
        claims: Letter → structured claim judged by the type's check.
        answer: Correct letter.
        graph: Serialised computation graph.
        evidence: JSON values of the graph outputs.
        grounding_ref: Literature card id or population pattern family.
        pair_kind: ``definitional``/``empirical`` for pair questions, else None.
        gates: Gate statistics (population items), else None.
    """

    id: str
    type: str
    type_version: int
    reasoning: str
    signals: str
    grounding: str
    dependency: str
    user_id: str
    end_date: str
    window_days: int
    history_days: int
    metrics: tuple[str, ...]
    question: str
    options: Mapping[str, str]
    claims: Mapping[str, Mapping[str, Any]]
    answer: str
    graph: Mapping[str, Any]
    evidence: Mapping[str, Any]
    grounding_ref: str | None
    pair_kind: str | None
    gates: Mapping[str, Any] | None

    def to_json(self) -> str:
        """Canonical one-line JSON (sorted keys, no NaN)."""
        data = asdict(self)
        data["metrics"] = list(self.metrics)
        return json.dumps(data, sort_keys=True, separators=(",", ":"), allow_nan=False, ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Item:
        """Rebuild from a parsed ``items.jsonl`` line."""
        fields = dict(data)
        fields["metrics"] = tuple(fields["metrics"])
        return cls(**fields)
