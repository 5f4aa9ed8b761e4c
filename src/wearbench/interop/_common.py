"""Shared pieces of the official WearableQA format (see ``docs/official-format.md``)."""

from __future__ import annotations

import math
from typing import Any

from wearbench.cohort import PERCENTILES

#: Top-level keys of ``WearableQA_raw.json``, in file order.
OFFICIAL_KEYS: tuple[str, ...] = (
    "description",
    "n_mcqs",
    "n_unique_users",
    "gt_balancing",
    "cohort_reference",
    "user_histories",
    "mcqs",
)
#: Keys of one MCQ, in file order.
MCQ_KEYS: tuple[str, ...] = (
    "id",
    "user_id",
    "stem",
    "options",
    "gt_letter",
    "question_type",
    "reasoning_group",
    "signal",
    "grounding",
    "context",
    "end_date",
    "window_size",
    "full_dropped_metrics",
    "no_cohort",
)
#: Optional per-MCQ keys the official renderer (``render_raw.py``) reads: a metric withheld
#: from the whole history, and metrics withheld inside the question window only.
OPTIONAL_MCQ_KEYS: tuple[str, ...] = ("hidden_metric", "window_dropped_metrics")
#: ``gt_balancing`` as the official README writes it (a string).
GT_BALANCING = "uniform A-J within each reasoning group (data / health)"
#: Percentile keys of a cohort-reference cell (``p5`` … ``p95``).
PCT_KEYS: tuple[str, ...] = tuple(f"p{p}" for p in PERCENTILES)
#: Decimal places numbers are written with (makes export → import → export a fixed point).
DIGITS = 6


def official_number(value: Any, scale: float = 1.0, integer: bool = False) -> float | int | None:
    """A canonical value in the official unit, rounded to :data:`DIGITS` places (None if missing)."""
    if value is None:
        return None
    x = float(value) * scale
    if not math.isfinite(x):
        return None
    x = round(x, DIGITS)
    return int(x) if integer and x.is_integer() else x
