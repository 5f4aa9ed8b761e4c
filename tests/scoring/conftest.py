"""Hand-built items and rows for the scoring tests."""

from collections.abc import Callable
from typing import Any

import pytest

from wearbench.questions import LETTERS, Item
from wearbench.runner import ResultRow

ItemFactory = Callable[..., Item]
RowFactory = Callable[..., ResultRow]


def _item(iid: str, user: str, answer: str, **labels: Any) -> Item:
    fields: dict[str, Any] = {
        "reasoning": "data",
        "signals": "single",
        "grounding": "literature",
        "dependency": "window",
        "type": "trend",
        "pair_kind": None,
    }
    fields.update(labels)
    return Item(
        id=iid,
        type_version=1,
        user_id=user,
        end_date="2024-03-01",
        window_days=28,
        history_days=60,
        metrics=("steps",),
        question=f"question {iid}?",
        options={x: f"option {x}" for x in LETTERS},
        claims={},
        answer=answer,
        graph={},
        evidence={},
        grounding_ref=None,
        gates=None,
        **fields,
    )


def _row(item: Item, letter: str | None, **kw: Any) -> ResultRow:
    fields: dict[str, Any] = {
        "run_id": "run-a",
        "model": "m",
        "setting": "repr=csv|mode=direct|ablate=-",
        "prompt_hash": "h",
        "response": f"Answer: {letter}" if letter else "",
        "parse_failed": False,
    }
    fields.update(kw)
    return ResultRow(
        item_id=item.id, user_id=item.user_id, letter=letter, correct=letter == item.answer, **fields
    )


@pytest.fixture
def make_item() -> ItemFactory:
    return _item


@pytest.fixture
def make_row() -> RowFactory:
    return _row
