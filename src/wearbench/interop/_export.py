"""Export a wearbench benchmark folder to the official ``WearableQA_raw.json`` shape."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from wearbench.bench import load_context, read_items, read_manifest
from wearbench.cohort import BIOMARKER_NAMES, METRICS, age_band, metric
from wearbench.interop._common import OFFICIAL_KEYS, PCT_KEYS, official_number
from wearbench.questions import LETTERS, Item, UserContext

__all__ = ["OFFICIAL_KEYS", "export_official", "official_document"]


def _history(ctx: UserContext) -> list[dict[str, Any]]:
    """One record per day: ``date`` then every official daily field (null = missing)."""
    columns = [(m.wearableqa, ctx.metrics[m.name], m.wearableqa_scale, m.integer) for m in METRICS]
    return [
        {"date": str(day), **{f: official_number(v[i], s, integer) for f, v, s, integer in columns}}
        for i, day in enumerate(ctx.dates)
    ]


def _demographics(ctx: UserContext) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k in ("age", "sex", "bmi", "ethnicity"):
        v = ctx.demographics.get(k)
        out[k] = official_number(v) if isinstance(v, int | float) and not isinstance(v, bool) else v
    return out


def _blood_panel(ctx: UserContext, end_date: str) -> dict[str, Any] | None:
    draw = ctx.blood_at(ctx.index(end_date))
    if draw is None:
        return None
    return {"draw_date": str(draw["draw_date"]), **{b: official_number(draw.get(b)) for b in BIOMARKER_NAMES}}


def _official_extras(item: Item) -> tuple[list[str], bool | None]:
    """``full_dropped_metrics`` and ``no_cohort`` carried by an imported item, if any."""
    extra = item.evidence.get("official") if isinstance(item.evidence, Mapping) else None
    if isinstance(extra, Mapping):
        return list(extra.get("full_dropped_metrics") or []), extra.get("no_cohort")
    return [], None


def _mcq(item: Item, ctx: UserContext) -> dict[str, Any]:
    dropped, no_cohort = _official_extras(item)
    return {
        "id": item.id,
        "user_id": item.user_id,
        "stem": item.question,
        "options": [item.options[letter] for letter in LETTERS],
        "gt_letter": item.answer,
        "question_type": item.type,
        "reasoning_group": item.reasoning,
        "signal": item.signals,
        "grounding": item.grounding,
        "context": {"demographics": _demographics(ctx), "blood_panel": _blood_panel(ctx, item.end_date)},
        "end_date": item.end_date,
        "window_size": item.window_days,
        "full_dropped_metrics": dropped,
        "no_cohort": (not ctx.reference) if no_cohort is None else bool(no_cohort),
    }


def _cohort_reference(contexts: Sequence[UserContext]) -> dict[str, Any]:
    """Official field → age band → sex → ``{p5 … p95}``, from the users' own reference cells."""
    out: dict[str, dict[str, dict[str, dict[str, Any]]]] = {}
    for ctx in contexts:
        if not ctx.reference:
            continue
        band, sex = age_band(float(ctx.demographics["age"])), str(ctx.demographics["sex"])
        for name, pct in ctx.reference.items():
            m = metric(name)
            cell = {f"p{p}": official_number(v, m.wearableqa_scale) for p, v in sorted(pct.items())}
            out.setdefault(m.wearableqa, {}).setdefault(band, {})[sex] = cell
    return {
        f: {b: dict(sorted(s.items())) for b, s in sorted(bands.items())} for f, bands in sorted(out.items())
    }


def _description(manifest: Mapping[str, Any]) -> str:
    official = manifest.get("official")
    if isinstance(official, Mapping) and "description" in official:
        return str(official["description"])
    return (
        f"WearableQA-style benchmark built by wearbench {manifest.get('wearbench_version')} "
        f"(seed {manifest.get('seed')}, cohort content hash {manifest.get('cohort_hash')}); "
        f"10-option MCQs; daily fields in official units; percentiles {', '.join(PCT_KEYS)}"
    )


def official_document(bench: str | Path) -> dict[str, Any]:
    """The official-format document of a benchmark folder (see ``docs/official-format.md``)."""
    bench = Path(bench)
    items = read_items(bench)
    manifest = read_manifest(bench)
    contexts = {u: load_context(bench, u) for u in sorted({i.user_id for i in items})}
    counts = Counter(i.answer for i in items)
    return {
        "description": _description(manifest),
        "n_mcqs": len(items),
        "n_unique_users": len(contexts),
        "gt_balancing": {
            "scheme": "answer letters spread uniformly over A-J within each reasoning group",
            "counts": {letter: counts.get(letter, 0) for letter in LETTERS},
        },
        "cohort_reference": _cohort_reference(list(contexts.values())),
        "user_histories": {u: _history(ctx) for u, ctx in contexts.items()},
        "mcqs": [_mcq(i, contexts[i.user_id]) for i in items],
    }


def export_official(bench: str | Path, out: str | Path) -> Path:
    """Write ``bench`` as an official-format JSON file (keys in file order, UTF-8, no NaN).

    Returns:
        The file written.
    """
    doc = official_document(bench)
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(doc, indent=1, ensure_ascii=False, allow_nan=False)
    out.write_text(text + "\n", encoding="utf-8")
    return out
