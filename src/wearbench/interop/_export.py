"""Export a wearbench benchmark folder to the official ``WearableQA_raw.json`` shape."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from wearbench.bench import load_context, read_items, read_manifest
from wearbench.cohort import BIOMARKER_NAMES, METRICS, age_band, metric
from wearbench.interop._common import (
    GT_BALANCING,
    OPTIONAL_MCQ_KEYS,
    PCT_KEYS,
    official_number,
)
from wearbench.questions import LETTERS, Item, UserContext

#: ``(age band, sex)`` of a reference cell.
ReferenceGroup = tuple[str, str]
#: Canonical metric → {percentile: value in the canonical unit}.
Reference = Mapping[str, Mapping[int, float]]


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


def _official_extras(item: Item) -> dict[str, Any]:
    """Official per-MCQ fields carried by an imported item (dropped metrics, ``no_cohort``, …)."""
    extra = item.evidence.get("official") if isinstance(item.evidence, Mapping) else None
    return dict(extra) if isinstance(extra, Mapping) else {}


def item_reference(item: Item, ctx: UserContext) -> tuple[ReferenceGroup | None, Reference]:
    """The ``(age band, sex)`` and percentiles of the reference ``item``'s prompt shows.

    Today this is the user's age- and sex-matched cell (the context's reference); the one place
    to re-point when items carry the reference they used. ``(None, {})`` when there is none.
    """
    del item  # the reference is per user for now
    if not ctx.reference:
        return None, {}
    return (age_band(float(ctx.demographics["age"])), str(ctx.demographics["sex"])), ctx.reference


def flat_reference(reference: Reference) -> dict[str, dict[str, Any]]:
    """The documented flat shape: official field → ``{"p5": …, …, "p95": …}`` (official units)."""
    out: dict[str, dict[str, Any]] = {}
    for name, pct in reference.items():
        m = metric(name)
        out[m.wearableqa] = {f"p{p}": official_number(v, m.wearableqa_scale) for p, v in sorted(pct.items())}
    return dict(sorted(out.items()))


def _mcq(item: Item, ctx: UserContext) -> dict[str, Any]:
    extra = _official_extras(item)
    group, reference = item_reference(item, ctx)
    no_cohort = extra.get("no_cohort")
    context: dict[str, Any] = {
        "demographics": _demographics(ctx),
        "blood_panel": _blood_panel(ctx, item.end_date),
    }
    if group is not None:
        context["cohort_reference"] = flat_reference(reference)
        context["cohort_reference_group"] = {"age_band": group[0], "sex": group[1]}
    out = {
        "id": item.id,
        "user_id": item.user_id,
        "stem": item.question,
        "options": {letter: item.options[letter] for letter in LETTERS},
        "gt_letter": item.answer,
        "question_type": item.type,
        "reasoning_group": item.reasoning,
        "signal": item.signals,
        "grounding": item.grounding,
        "context": context,
        "end_date": item.end_date,
        "window_size": item.window_days,
        "full_dropped_metrics": list(extra.get("full_dropped_metrics") or []),
        "no_cohort": (group is None) if no_cohort is None else bool(no_cohort),
    }
    out |= {k: extra[k] for k in OPTIONAL_MCQ_KEYS if extra.get(k)}
    return out


def _top_reference(mcqs: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The file's ``cohort_reference``: the one reference its shown MCQs share, else ``{}``."""
    shown = [q["context"]["cohort_reference"] for q in mcqs if not q["no_cohort"]]
    distinct = {json.dumps(r, sort_keys=True) for r in shown}
    return dict(shown[0]) if len(distinct) == 1 else {}


def _description(manifest: Mapping[str, Any]) -> str:
    official = manifest.get("official")
    if isinstance(official, Mapping) and "description" in official:
        return str(official["description"])
    return (
        f"WearableQA-style benchmark built by wearbench {manifest.get('wearbench_version')} "
        f"(seed {manifest.get('seed')}, cohort content hash {manifest.get('cohort_hash')}); "
        f"10-option MCQs; daily fields in official units; percentiles {', '.join(PCT_KEYS)}"
    )


def _document(
    manifest: Mapping[str, Any], items: Sequence[Item], contexts: Mapping[str, UserContext]
) -> dict[str, Any]:
    users = sorted({i.user_id for i in items})
    mcqs = [_mcq(i, contexts[i.user_id]) for i in items]
    return {
        "description": _description(manifest),
        "n_mcqs": len(items),
        "n_unique_users": len(users),
        "gt_balancing": GT_BALANCING,
        "cohort_reference": _top_reference(mcqs),
        "user_histories": {u: _history(contexts[u]) for u in users},
        "mcqs": mcqs,
    }


def _load(bench: Path) -> tuple[Mapping[str, Any], list[Item], dict[str, UserContext]]:
    items = read_items(bench)
    contexts = {u: load_context(bench, u) for u in sorted({i.user_id for i in items})}
    return read_manifest(bench), items, contexts


def official_document(bench: str | Path) -> dict[str, Any]:
    """The official-format document of a benchmark folder (see ``docs/official-format.md``).

    Every MCQ carries its matched reference in ``context.cohort_reference``; the top-level
    ``cohort_reference`` (the one the official renderer shows every question) is that reference
    when all shown MCQs share one, else ``{}`` (see :func:`official_group_documents`).
    """
    return _document(*_load(Path(bench)))


def official_group_documents(bench: str | Path) -> dict[str, dict[str, Any]]:
    """One official document per reference group, keyed ``"<age band>.<sex>"`` (or ``"none"``).

    The official renderer shows one top-level ``cohort_reference`` to every question of a file;
    in these files it is the group's matched reference, so each rendered prompt shows exactly
    the reference its question was built against.
    """
    manifest, items, contexts = _load(Path(bench))
    groups: dict[str, list[Item]] = {}
    for item in items:
        group, _ = item_reference(item, contexts[item.user_id])
        groups.setdefault("none" if group is None else ".".join(group), []).append(item)
    return {key: _document(manifest, members, contexts) for key, members in sorted(groups.items())}


def _write(doc: Mapping[str, Any], out: Path) -> Path:
    out.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(doc, indent=1, ensure_ascii=False, allow_nan=False)
    out.write_text(text + "\n", encoding="utf-8")
    return out


def export_official(bench: str | Path, out: str | Path) -> Path:
    """Write ``bench`` as an official-format JSON file (keys in file order, UTF-8, no NaN).

    Returns:
        The file written.
    """
    return _write(official_document(bench), Path(out))


def export_official_groups(
    bench: str | Path, out: str | Path, *, only_if_several: bool = False
) -> list[Path]:
    """Write one official file per reference group: ``OUT.<age band>.<sex>.json`` (or ``.none``).

    Each renders with the unmodified official ``render_raw.py`` into prompts that show the
    question's own age- and sex-matched reference (see :func:`official_group_documents`).

    Args:
        bench: Benchmark folder.
        out: The main file's path; group files are written next to it.
        only_if_several: Write nothing when there is at most one group (the main file then
            already shows every question its reference).

    Returns:
        The files written, in group order.
    """
    out = Path(out)
    docs = official_group_documents(bench)
    if only_if_several and len(docs) <= 1:
        return []
    return [_write(doc, out.with_name(f"{out.stem}.{key}{out.suffix}")) for key, doc in docs.items()]
