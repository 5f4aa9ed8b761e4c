"""Pending items with their graph and evidence as JSON text: small to ship and to hold.

A build of tens of thousands of users holds hundreds of thousands of pending items at once
(balancing needs them all). Their graphs and evidence are by far the largest part and are only
written out, never read, after generation; a worker serialises them once (:func:`pack`), and
the item's line in ``items.jsonl`` splices that text back in (:func:`item_line`), byte for
byte what :meth:`~wearbench.questions.Item.to_json` writes.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, fields, replace
from typing import Any

from wearbench.bench._datasheet import CellKey, item_cells
from wearbench.bench._generate import Pending
from wearbench.questions import Item

_GRAPH = '"graph":"\\u0000graph"'
_EVIDENCE = '"evidence":"\\u0000evidence"'


def canonical_json(value: Any) -> str:
    """The JSON text :meth:`Item.to_json` writes for a value (sorted keys, compact, no NaN)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=False, ensure_ascii=False)


@dataclass(frozen=True)
class Packed(Pending):
    """A :class:`Pending` whose ``graph`` and ``evidence`` are empty, kept as JSON text instead.

    Attributes:
        graph_json: The graph's canonical JSON text.
        evidence_json: The evidence's canonical JSON text.
        cells: The reference cells the graph compares against (:func:`item_cells`).
    """

    graph_json: str = "{}"
    evidence_json: str = "{}"
    cells: tuple[CellKey, ...] = ()


def pack(p: Pending) -> Packed:
    """``p`` with its graph and evidence serialised (raises ``ValueError`` on NaN, as writing would)."""
    fields = {k: v for k, v in vars(p).items() if k not in ("graph", "evidence")}
    return Packed(
        **fields,
        graph={},
        evidence={},
        graph_json=canonical_json(p.graph),
        evidence_json=canonical_json(p.evidence),
        cells=item_cells(p.graph),
    )


def item_line(item: Item, packed: Packed | None = None) -> str:
    """``item.to_json()``; with ``packed`` (the item's pending), its graph and evidence text spliced in."""
    if packed is None:
        return item.to_json()
    data = {f.name: getattr(item, f.name) for f in fields(item)}
    data["metrics"] = list(item.metrics)
    data["graph"], data["evidence"] = "\0graph", "\0evidence"
    try:
        text = canonical_json(data)
    except TypeError:  # a nested non-dict mapping or dataclass: convert as Item.to_json does
        data = asdict(replace(item, graph={}, evidence={})) | {"metrics": list(item.metrics)}
        data["graph"], data["evidence"] = "\0graph", "\0evidence"
        text = canonical_json(data)
    e, g = text.index(_EVIDENCE), text.index(_GRAPH)  # sorted keys: evidence before graph
    return "".join(
        (
            text[:e],
            '"evidence":',
            packed.evidence_json,
            text[e + len(_EVIDENCE) : g],
            '"graph":',
            packed.graph_json,
            text[g + len(_GRAPH) :],
        )
    )


class OptionInterner:
    """One shared copy of each distinct option text and claim across many packed items.

    A build's pending items repeat a few thousand option wordings and claims tens of thousands
    of times (at 200 users: 51,470 options, 2,523 distinct texts, 4,107 distinct claims); as
    separate objects they were about half of each item's memory in the client. The label
    mappings (a handful of distinct ones) are shared the same way. Claims and labels are matched
    by their canonical JSON, so only values that write the same share one dict; nothing
    downstream changes them in place (lettering copies each claim into the item).
    """

    def __init__(self) -> None:
        self._texts: dict[str, str] = {}
        self._claims: dict[str, Any] = {}
        self._labels: dict[str, Any] = {}

    def _option(self, option: tuple[str, Any]) -> tuple[str, Any]:
        text, claim = option
        return (
            self._texts.setdefault(text, text),
            self._claims.setdefault(canonical_json(claim), claim),
        )

    def __call__(self, p: Packed) -> Packed:
        """``p`` with its options' texts and claims, and its labels, replaced by the shared copies."""
        return replace(
            p,
            labels=self._labels.setdefault(canonical_json(p.labels), p.labels),
            correct=self._option(p.correct),
            distractors=tuple(self._option(d) for d in p.distractors),
        )
