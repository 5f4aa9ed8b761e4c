"""Turn pending items into lettered items with answer positions balanced per reasoning group."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from wearbench.bench._generate import Pending, stable_rng
from wearbench.questions import LETTERS, Item


def _positions(n: int, seed: int, group: str) -> np.ndarray:
    """Answer positions 0–9 for ``n`` items: each used ⌊n/10⌋ or ⌈n/10⌉ times, order shuffled."""
    base = np.arange(n) % len(LETTERS)
    return stable_rng(seed, "answer-positions", group).permutation(base)


def _item(p: Pending, position: int, seed: int) -> Item:
    order = stable_rng(seed, "distractor-order", p.id).permutation(len(p.distractors))
    options = [p.distractors[i] for i in order]
    options.insert(position, p.correct)
    letters = LETTERS[: len(options)]
    return Item(
        id=p.id,
        type=p.type,
        type_version=p.type_version,
        reasoning=p.labels["reasoning"],
        signals=p.labels["signals"],
        grounding=p.labels["grounding"],
        dependency=p.labels["dependency"],
        user_id=p.user_id,
        end_date=p.end_date,
        window_days=p.window_days,
        history_days=p.history_days,
        metrics=p.metrics,
        question=p.question,
        options={k: text for k, (text, _) in zip(letters, options, strict=True)},
        claims={k: dict(claim) for k, (_, claim) in zip(letters, options, strict=True)},
        answer=letters[position],
        graph=p.graph,
        evidence=p.evidence,
        grounding_ref=p.grounding_ref,
        pair_kind=p.pair_kind,
        gates=p.gates,
    )


def assemble(pending: Sequence[Pending], seed: int) -> list[Item]:
    """Letter every pending item; items come back sorted by id."""
    groups: dict[str, list[Pending]] = defaultdict(list)
    for p in sorted(pending, key=lambda p: p.id):
        groups[p.labels["reasoning"]].append(p)
    items = []
    for group, members in sorted(groups.items()):
        for p, pos in zip(members, _positions(len(members), seed, group), strict=True):
            items.append(_item(p, int(pos), seed))
    return sorted(items, key=lambda i: i.id)
