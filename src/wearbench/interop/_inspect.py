"""Export a benchmark as an Inspect (``inspect_ai``) dataset plus a standalone task file.

``DIR/samples.jsonl`` holds one Inspect ``Sample`` per item (``input``, ``choices``, ``target``,
``id``, ``metadata``) and ``DIR/wearbench_task.py`` defines the task ``wearbench`` (multiple-choice
solver, ``choice()`` scorer). The prompt is plain text and self-contained: the person's
demographics, latest blood panel, reference percentiles and daily data as a CSV block, then the
question; Inspect's ``multiple_choice()`` solver appends the lettered options.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from wearbench.bench import load_context, read_items
from wearbench.cohort import BIOMARKERS, METRICS
from wearbench.interop._hf import ItemData, item_data, item_labels
from wearbench.questions import LETTERS, Item

#: Files written by :func:`export_inspect`, relative to the export folder.
INSPECT_SAMPLES = "samples.jsonl"
INSPECT_TASK = "wearbench_task.py"

_UNITS = {m.name: m.unit for m in METRICS} | {b.name: b.unit for b in BIOMARKERS}

_TASK_FILE = '''"""wearbench benchmark as an Inspect task (written by `wearbench export inspect`).

Run: inspect eval wearbench_task.py --model openai/gpt-4o-mini
"""

from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import json_dataset
from inspect_ai.scorer import choice
from inspect_ai.solver import multiple_choice

SAMPLES = Path(__file__).resolve().with_name("samples.jsonl")


@task
def wearbench() -> Task:
    """Ten-option health-reasoning questions over one person's wearable data; scored by letter."""
    return Task(dataset=json_dataset(str(SAMPLES)), solver=multiple_choice(), scorer=choice())
'''


def _fmt(value: Any) -> str:
    """A CSV cell: empty for missing, integers plain, floats with at most 3 decimals."""
    if value is None:
        return ""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    if isinstance(value, int) or float(value).is_integer():
        return str(int(value))
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def _csv(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A minimal CSV block (cells never contain commas, quotes or newlines here)."""
    lines = [",".join(header), *(",".join(_fmt(v) for v in row) for row in rows)]
    return "\n".join(lines)


def _people(demographics: Mapping[str, Any]) -> str:
    return ", ".join(f"{k}: {_fmt(v)}" for k, v in demographics.items())


def _blood(panel: Mapping[str, Any] | None) -> str:
    if panel is None:
        return "## Blood panel\nNo blood draw on or before the question date."
    rows = [(k, v, _UNITS.get(k, "")) for k, v in panel.items() if k != "draw_date"]
    table = _csv(("biomarker", "value", "unit"), rows)
    return f"## Latest blood panel (drawn {panel['draw_date']})\n{table}"


def _reference(reference: Mapping[str, Mapping[str, Any]]) -> str:
    if not reference:
        return "## Reference percentiles\nNo reference percentiles for this person's age band and sex."
    keys = list(next(iter(reference.values())))
    rows = [(f"{m} ({_UNITS.get(m, '')})", *(cell.get(k) for k in keys)) for m, cell in reference.items()]
    table = _csv(("metric", *keys), rows)
    return f"## Reference percentiles (peers of the same age band and sex)\n{table}"


def _daily(data: ItemData) -> str:
    metrics = list(data.series)
    units = "; ".join(f"{m} in {_UNITS.get(m, '?')}" for m in metrics)
    rows = [(day, *(data.series[m][i] for m in metrics)) for i, day in enumerate(data.dates)]
    table = _csv(("date", *metrics), rows)
    head = (
        f"## Daily data ({len(data.dates)} days, {data.dates[0]} to {data.dates[-1]}; empty cell = missing)"
    )
    return f"{head}\nUnits: {units}.\n{table}"


def item_prompt(item: Item, data: ItemData) -> str:
    """The full prompt of one item (without the options, which the solver appends)."""
    parts = [
        "You are given one person's daily wearable data and health context. "
        "Answer the multiple-choice question about them.",
        f"## Person\n{_people(data.demographics)}",
        _blood(data.blood_panel),
        _reference(data.reference),
        _daily(data),
        f"## Question\n{item.question}",
    ]
    return "\n\n".join(parts) + "\n"


def item_sample(item: Item, data: ItemData) -> dict[str, Any]:
    """One Inspect ``Sample`` as a JSON-ready dict."""
    return {
        "id": item.id,
        "input": item_prompt(item, data),
        "choices": [item.options[letter] for letter in LETTERS],
        "target": item.answer,
        "metadata": item_labels(item),
    }


def export_inspect(bench: str | Path, out: str | Path) -> Path:
    """Write ``bench`` as an Inspect dataset (``samples.jsonl``) and task file (``wearbench_task.py``).

    Samples are in item-id order; the bytes are deterministic.

    Returns:
        The export folder.

    Raises:
        WearbenchError: If ``bench`` is not a benchmark or lacks a user's context.
    """
    bench, out = Path(bench), Path(out)
    items = sorted(read_items(bench), key=lambda i: i.id)
    contexts = {u: load_context(bench, u) for u in sorted({i.user_id for i in items})}
    out.mkdir(parents=True, exist_ok=True)
    with (out / INSPECT_SAMPLES).open("w", encoding="utf-8", newline="\n") as fh:
        for item in items:
            sample = item_sample(item, item_data(item, contexts[item.user_id]))
            fh.write(json.dumps(sample, ensure_ascii=False, allow_nan=False, separators=(",", ":")) + "\n")
    (out / INSPECT_TASK).write_text(_TASK_FILE, encoding="utf-8")
    return out
