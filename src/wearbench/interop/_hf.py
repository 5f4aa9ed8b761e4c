"""Export a benchmark as a Hugging Face ``datasets`` folder (one Parquet file plus a dataset card).

The folder loads with ``datasets.load_dataset(DIR)``: ``DIR/data/test-00000-of-00001.parquet``
holds one row per item (sorted by id) and ``DIR/README.md`` is a dataset card whose YAML header
names the split and the column types. Per-user data travels with each row as JSON strings
(``demographics``, ``blood_panel``, ``reference``, ``series``), so a row is self-contained.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from wearbench._errors import WearbenchError
from wearbench.bench import load_context, read_items, read_manifest
from wearbench.cohort import BIOMARKER_NAMES, METRIC_NAMES, METRICS, from_wearableqa
from wearbench.interop._common import official_number
from wearbench.questions import LETTERS, Item, UserContext

#: The Parquet file, relative to the export folder.
HF_PARQUET = "data/test-00000-of-00001.parquet"
#: Column name → ``datasets`` feature type as written in the card (``list`` = list of strings).
HF_COLUMNS: tuple[tuple[str, str], ...] = (
    ("id", "string"),
    ("type", "string"),
    ("reasoning", "string"),
    ("signals", "string"),
    ("grounding", "string"),
    ("dependency", "string"),
    ("user_id", "string"),
    ("end_date", "string"),
    ("window_days", "int64"),
    ("history_days", "int64"),
    ("metrics", "list"),
    ("question", "string"),
    ("options", "list"),
    ("answer", "string"),
    ("answer_index", "int64"),
    ("pair_kind", "string"),
    ("grounding_ref", "string"),
    ("demographics", "string"),
    ("blood_panel", "string"),
    ("reference", "string"),
    ("series", "string"),
)
_INTEGER = {m.name for m in METRICS if m.integer}


@dataclass(frozen=True)
class ItemData:
    """The data shown with one item, JSON-ready (canonical units, 6 decimals, None = missing).

    Attributes:
        dates: ISO days of the item's history span, oldest first (ends at ``end_date``).
        series: Metric → values aligned with ``dates``; only metrics with data in the span,
            in canonical metric order.
        demographics: ``age``, ``sex``, ``bmi``, ``ethnicity``.
        blood_panel: Latest draw on or before ``end_date`` (``draw_date`` + biomarkers), or None.
        reference: Metric → ``{"p5": …, "p95": …}`` for the user's age band and sex (may be empty).
    """

    dates: tuple[str, ...]
    series: Mapping[str, Sequence[float | int | None]]
    demographics: Mapping[str, Any]
    blood_panel: Mapping[str, Any] | None
    reference: Mapping[str, Mapping[str, float | int | None]]


def _scalar(value: Any) -> Any:
    if isinstance(value, bool | str) or value is None:
        return value
    if isinstance(value, int | float | np.generic):
        return official_number(value)
    return value


def _withheld(item: Item) -> tuple[set[str], bool]:
    """Canonical metrics an imported official item withholds, and whether it hides the reference.

    ``full_dropped_metrics`` may name official fields (``rhr``) or canonical metrics (``resting_hr``).
    """
    official = item.evidence.get("official") if isinstance(item.evidence, Mapping) else None
    if not isinstance(official, Mapping):
        return set(), False
    names = [str(f) for f in official.get("full_dropped_metrics") or []]
    dropped = {f if f in METRIC_NAMES else from_wearableqa(f, 0.0)[0] for f in names}
    return dropped, bool(official.get("no_cohort"))


def item_data(item: Item, ctx: UserContext) -> ItemData:
    """What an item shows: its history span, demographics, latest blood draw and reference cells.

    Items imported from the official release honour its ``full_dropped_metrics`` (left out of
    ``series``) and ``no_cohort`` (empty ``reference``).

    Raises:
        WearbenchError: If the item's end date is outside the user's record.
    """
    end = ctx.index(item.end_date)
    days = max(1, item.history_days)
    dropped, no_cohort = _withheld(item)
    series: dict[str, list[float | int | None]] = {}
    for m in METRICS:
        if m.name not in ctx.metrics or m.name in dropped:
            continue
        values = ctx.span(m.name, end, days)
        if np.isfinite(values).any():
            series[m.name] = [official_number(v, integer=m.name in _INTEGER) for v in values.tolist()]
    draw = ctx.blood_at(end)
    panel = None
    if draw is not None:
        panel = {"draw_date": str(draw["draw_date"]), **{b: _scalar(draw.get(b)) for b in BIOMARKER_NAMES}}
    return ItemData(
        dates=tuple(str(d) for d in ctx.span_dates(end, days)),
        series=series,
        demographics={k: _scalar(v) for k, v in sorted(ctx.demographics.items())},
        blood_panel=panel,
        reference={
            m: {f"p{p}": official_number(v) for p, v in sorted(cell.items())}
            for m, cell in sorted(ctx.reference.items())
            if not no_cohort
        },
    )


def _json(value: Any, sort_keys: bool = True) -> str:
    return json.dumps(value, sort_keys=sort_keys, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def item_labels(item: Item) -> dict[str, Any]:
    """An item's labels and provenance (type, taxonomy, user, dates, metrics, grounding) as JSON values."""
    return {
        "type": item.type,
        "reasoning": item.reasoning,
        "signals": item.signals,
        "grounding": item.grounding,
        "dependency": item.dependency,
        "user_id": item.user_id,
        "end_date": item.end_date,
        "window_days": item.window_days,
        "history_days": item.history_days,
        "metrics": list(item.metrics),
        "pair_kind": item.pair_kind,
        "grounding_ref": item.grounding_ref,
    }


def _row(item: Item, data: ItemData) -> dict[str, Any]:
    return {
        "id": item.id,
        **item_labels(item),
        "question": item.question,
        "options": [item.options[letter] for letter in LETTERS],
        "answer": item.answer,
        "answer_index": LETTERS.index(item.answer),
        "demographics": _json(data.demographics),
        "blood_panel": None if data.blood_panel is None else _json(data.blood_panel),
        "reference": _json(data.reference),
        "series": _json({"dates": list(data.dates), **data.series}, sort_keys=False),
    }


def _pyarrow() -> Any:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError as e:  # pragma: no cover - pyarrow is a core dependency
        raise WearbenchError("the Hugging Face export needs pyarrow: pip install pyarrow") from e
    return pa, pq


def _schema(pa: Any) -> Any:
    types = {"string": pa.string(), "int64": pa.int64(), "list": pa.list_(pa.string())}
    return pa.schema([pa.field(name, types[kind]) for name, kind in HF_COLUMNS])


def _feature_yaml(name: str, kind: str) -> str:
    if kind == "list":
        return f"  - name: {name}\n    list: string\n"
    return f"  - name: {name}\n    dtype: {kind}\n"


def _card(manifest: Mapping[str, Any], n_rows: int, bench: Path) -> str:
    source = manifest.get("cohort_source") or {}
    source_name = str(source.get("name", "unknown")) if isinstance(source, Mapping) else "unknown"
    licence = "apache-2.0" if source_name == "synthetic" else "other"
    header = (
        "---\n"
        f"license: {licence}\n"
        "task_categories:\n- multiple-choice\n- question-answering\n"
        "language:\n- en\n"
        "pretty_name: wearbench\n"
        "configs:\n- config_name: default\n  data_files:\n  - split: test\n    path: data/*.parquet\n"
        "dataset_info:\n  features:\n" + "".join(_feature_yaml(n, k) for n, k in HF_COLUMNS) + "---\n"
    )
    body = (
        f"\n# wearbench benchmark ({n_rows} items)\n\n"
        "Ten-option multiple-choice health-reasoning questions over one person's daily wearable "
        "record, in the style of WearableQA. Exported by `wearbench export hf` from the benchmark "
        f"folder `{bench.name}`; one row per item, sorted by `id`.\n\n"
        "## Provenance\n\n"
        f"- wearbench version: `{manifest.get('wearbench_version')}`\n"
        f"- build seed: `{manifest.get('seed')}`\n"
        f"- cohort content hash: `{manifest.get('cohort_hash')}`\n"
        f"- cohort source: `{source_name}`\n\n"
        "The benchmark folder's `manifest.json` holds the full build record (per-file SHA-256 "
        "hashes, question types and versions). Licence: "
        + (
            "synthetic data generated by wearbench (Apache-2.0)."
            if licence == "apache-2.0"
            else "the licence of the source cohort applies; check it before redistributing."
        )
        + "\n\n## Columns\n\n"
        "`options` are the option texts in A–J order; `answer` is the correct letter and "
        "`answer_index` its position. `demographics`, `blood_panel` (latest draw on or before "
        "`end_date`, null if none), `reference` (percentiles of the user's age band and sex) and "
        '`series` (`{"dates": [...], metric: [value or null, ...]}`, the `history_days` days '
        "ending at `end_date`) are JSON strings in canonical wearbench units, rounded to 6 decimals.\n"
    )
    return header + body


def export_hf(bench: str | Path, out: str | Path) -> Path:
    """Write ``bench`` as a Hugging Face ``datasets`` folder (deterministic bytes).

    Args:
        bench: Benchmark folder.
        out: Folder to write (created; the Parquet file and card are overwritten).

    Returns:
        The export folder.

    Raises:
        WearbenchError: If ``bench`` is not a benchmark or lacks a user's context.
    """
    pa, pq = _pyarrow()
    bench, out = Path(bench), Path(out)
    manifest = read_manifest(bench)
    items = sorted(read_items(bench), key=lambda i: i.id)
    contexts = {u: load_context(bench, u) for u in sorted({i.user_id for i in items})}
    rows = [_row(i, item_data(i, contexts[i.user_id])) for i in items]
    schema = _schema(pa)
    table = pa.Table.from_pylist(rows, schema=schema) if rows else schema.empty_table()
    (out / "data").mkdir(parents=True, exist_ok=True)
    pq.write_table(
        table, out / HF_PARQUET, compression="zstd", compression_level=9, row_group_size=256, version="2.6"
    )
    (out / "README.md").write_text(_card(manifest, len(rows), bench), encoding="utf-8")
    return out
