"""Build statistics and the human-readable datasheet of a benchmark."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from scipy import stats

from wearbench.questions import LETTERS, Item, graph_references

#: Label counts of the official WearableQA release (4,084 items; README of
#: facebookresearch/WearableQA, table "Axis / Split / Count": grounding population / literature
#: 3,154 / 930).
OFFICIAL_COUNTS: Mapping[str, Mapping[str, int]] = {
    "reasoning": {"data": 2724, "health": 1360},
    "signals": {"single": 1682, "cross": 2402},
    "grounding": {"literature": 930, "population": 3154},
}
#: Label values wearbench has beyond the official ones (shown with an official count of "–").
EXTRA_VALUES: Mapping[str, tuple[str, ...]] = {"grounding": ("definition",)}
GROUNDING_NOTE = (
    "Grounding: `literature` items cite a literature card (≥ 2 same-direction studies with "
    "DOI/PMID, `docs/literature-cards.md`); `population` items passed the population gates "
    "(effect size, bootstrap, leave-one-day-out, cross-user null FDR ≤ 0.20); `definition` items "
    "(trend, anomaly, excursion_count, recovery_time, period_comparison) are answered by a stated "
    "computation over the user's own record (Theil–Sen slope and CI, personal-baseline z-scores, "
    "calendar-month means) with neither a card nor a gate behind the question, so they claim no "
    "literature. The official release has no such value; its population share covers the "
    "trends, anomalies and recovery questions, so `--match-official` counts `definition` "
    "with `population`."
)


def _position_test(items: Sequence[Item]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for group in sorted({i.reasoning for i in items}):
        counts = Counter(i.answer for i in items if i.reasoning == group)
        observed = [counts.get(letter, 0) for letter in LETTERS]
        p = float(stats.chisquare(observed).pvalue) if sum(observed) >= len(LETTERS) else float("nan")
        out[group] = {"counts": dict(zip(LETTERS, observed, strict=True)), "chi2_p": p}
    return out


def zero_item_types(
    types: Sequence[str], by_type: Mapping[str, int], drops: Mapping[str, int], top: int = 3
) -> dict[str, list[list[Any]]]:
    """Every type of ``types`` with no item → its ``top`` drop reasons as ``[reason, count]``.

    A type that generated no candidate and dropped none gets the reason ``"no candidate and no
    drop recorded"`` with count 0, so no type goes missing from the datasheet without a reason.
    """
    out: dict[str, list[list[Any]]] = {}
    for name in sorted(t for t in types if not by_type.get(t)):
        prefix = f"{name}: "
        mine = Counter({r[len(prefix) :]: n for r, n in drops.items() if r.startswith(prefix)})
        reasons = [[r, n] for r, n in mine.most_common(top)]
        out[name] = reasons or [["no candidate and no drop recorded", 0]]
    return out


def build_stats(
    items: Sequence[Item],
    drops: Mapping[str, int],
    null_fdr: Mapping[str, Mapping[str, float]],
    types: Sequence[str] = (),
    references: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Counts by type and label, answer-position balance, drop reasons and null-test FDRs.

    ``zero_items`` lists every type of ``types`` that has no item, with its top drop reasons.
    ``references`` is :func:`reference_stats` of the items when already computed (a build
    whose items carry their graphs as JSON text passes it).
    """
    by_type = Counter(i.type for i in items)
    return {
        "n_items": len(items),
        "n_users": len({i.user_id for i in items}),
        "by_type": dict(sorted(by_type.items())),
        "by_label": {
            label: dict(sorted(Counter(getattr(i, label) for i in items).items()))
            for label in ("reasoning", "signals", "grounding", "dependency")
        },
        "pair_kind": dict(sorted(Counter(i.pair_kind for i in items if i.pair_kind).items())),
        "answer_positions": _position_test(items),
        "drops": dict(sorted(drops.items())),
        "zero_items": zero_item_types(types, by_type, drops),
        "null_fdr": {k: dict(v) for k, v in sorted(null_fdr.items())},
        "references": reference_stats(items) if references is None else references,
    }


#: One reference cell an item uses: (kind, metric, age band, sex, users, source).
CellKey = tuple[str, str, str, str, str, str]


def item_cells(graph: Mapping[str, Any]) -> tuple[CellKey, ...]:
    """The reference cells an item's serialised graph compares against, one per metric."""
    out = []
    for cell in graph_references(graph).values():
        n = "" if cell.n_users is None else str(cell.n_users)
        out.append((cell.kind, cell.metric, cell.age_band, cell.sex, n, cell.citation or cell.source))
    return tuple(out)


def reference_stats(items: Sequence[Item]) -> dict[str, Any]:
    """Which reference the items compare against: counts by type and kind, and every cell used.

    Returns:
        ``by_type``: type → kind → items (an item counts once per kind it uses);
        ``cells``: one row per distinct cell (kind, metric, age band, sex, users, source) with
        its item count, sorted.
    """
    return reference_stats_from([(item.type, item_cells(item.graph)) for item in items])


def reference_stats_from(used: Sequence[tuple[str, Sequence[CellKey]]]) -> dict[str, Any]:
    """:func:`reference_stats` from each item's type and :func:`item_cells`."""
    by_type: dict[str, Counter[str]] = {}
    cells: Counter[CellKey] = Counter()
    for type_name, item_used in used:
        cells.update(item_used)
        for kind in sorted({c[0] for c in item_used}):
            by_type.setdefault(type_name, Counter())[kind] += 1
    keys = ("kind", "metric", "age_band", "sex", "n_users", "source")
    return {
        "by_type": {t: dict(sorted(c.items())) for t, c in sorted(by_type.items())},
        "cells": [dict(zip(keys, k, strict=True)) | {"items": n} for k, n in sorted(cells.items())],
    }


def _share(counts: Mapping[str, int], key: str) -> str:
    total = sum(counts.values())
    return f"{counts.get(key, 0):,} ({counts.get(key, 0) / total:.0%})" if total else "0"


def render_datasheet(s: Mapping[str, Any], manifest: Mapping[str, Any]) -> str:
    """Markdown datasheet of one build."""
    lines = [
        "# Benchmark datasheet",
        "",
        f"- items: {s['n_items']:,} from {s['n_users']} users; seed {manifest['seed']}; "
        f"cohort content hash `{manifest['cohort_hash']}`; wearbench {manifest['wearbench_version']}",
        "",
        "## Labels, next to the official WearableQA release",
        "",
        "| label | value | this build | official |",
        "|---|---|---|---|",
    ]
    for label, official in OFFICIAL_COUNTS.items():
        ours = s["by_label"].get(label, {})
        lines += [f"| {label} | {v} | {_share(ours, v)} | {_share(official, v)} |" for v in official]
        lines += [f"| {label} | {v} | {_share(ours, v)} | – |" for v in EXTRA_VALUES.get(label, ())]
    lines += ["", GROUNDING_NOTE]
    if "match_official" in s:
        lines += _match_lines(s["match_official"])
    lines += ["", "## Items per type", "", "| type | items |", "|---|---|"]
    lines += [f"| {t} | {n:,} |" for t, n in s["by_type"].items()]
    lines += _zero_lines(s["zero_items"]) if "zero_items" in s else []
    if s.get("pair_kind"):
        kinds = ", ".join(f"{k} {n:,}" for k, n in s["pair_kind"].items())
        lines += ["", f"Pair questions by the winning pair's kind (scored separately): {kinds}."]
    lines += ["", "## Answer positions (chi-square against uniform A–J)", ""]
    for group, res in s["answer_positions"].items():
        counts = " ".join(f"{k}:{v}" for k, v in res["counts"].items())
        p = res["chi2_p"]
        lines.append(f"- {group}: {counts}; " + ("p < 1e-6" if p < 1e-6 else f"p = {p:.3g}"))
    lines += ["", "## Dropped candidates (type: reason)", "", "| reason | count |", "|---|---|"]
    lines += [f"| {r} | {n:,} |" for r, n in s["drops"].items()]
    if s["null_fdr"]:
        lines += ["", "## Cross-user null test per pattern family", "", "| family | null | observed | FDR |"]
        lines.append("|---|---|---|---|")
        for fam, v in s["null_fdr"].items():
            lines.append(f"| {fam} | {v['null']:.3f} | {v['observed']:.3f} | {v['fdr']:.3f} |")
    if "references" in s:
        lines += _reference_lines(s["references"])
    if "shortcut_audit" in s:
        lines += _shortcut_lines(s["shortcut_audit"])
    if "prior_audit" in s:
        lines += _prior_lines(s["prior_audit"])
    if "shortcut_audit" in s and "prior_audit" in s:
        lines += audit_lines(s["shortcut_audit"], s["prior_audit"])
    return "\n".join(lines) + "\n"


def _zero_lines(zero: Mapping[str, Sequence[Sequence[Any]]]) -> list[str]:
    """Datasheet section: every requested type with 0 items and its top drop reasons."""
    if not zero:
        return ["", "Every requested type has at least one item."]
    lines = ["", "## Types with 0 items (top drop reasons)", "", "| type | reason | count |", "|---|---|---|"]
    for name, reasons in zero.items():
        lines += [f"| {name} | {reason} | {n:,} |" for reason, n in reasons]
    return lines


def _acc(a: Mapping[str, Any]) -> str:
    return f"{a['accuracy']:.3f} | {a['lo']:.3f}–{a['hi']:.3f}" if a["n"] else "– | –"


def _match_lines(mix: Mapping[str, Any]) -> list[str]:
    """Datasheet section of ``--match-official``: target and achieved shares per axis."""
    lines = [
        "",
        "## Matched to the official label proportions (`--match-official`)",
        "",
        f"- kept {mix['n_after']:,} of {mix['n_before']:,} balanced items (seeded subsample per "
        "reasoning × signals × grounding cell; `definition` counted with `population`)",
        "",
        "| axis | value | official share | achieved share |",
        "|---|---|---|---|",
    ]
    for axis, target in mix["target"].items():
        got = mix["achieved"].get(axis, {})
        lines += [f"| {axis} | {v} | {t:.1%} | {got.get(v, 0.0):.1%} |" for v, t in target.items()]
    own = mix["achieved_labels"].get("grounding", {})
    lines += ["", "- grounding with wearbench's values: " + ", ".join(f"{v} {x:.1%}" for v, x in own.items())]
    return lines


def _shortcut_lines(audit: Mapping[str, Any]) -> list[str]:
    """Datasheet section of the text-only shortcut audit (chance is 10%)."""
    lines = ["", "## Shortcut audit (text-only logistic regression, folds by user; chance 10%)", ""]
    if not audit["folds"]:
        return [*lines, "- not run: fewer than two users"]
    lines += ["| type | accuracy | 95% CI | items | largest weights |", "|---|---|---|---|---|"]
    for name, a in [*audit["by_type"].items(), ("all", audit["overall"])]:
        top = ", ".join(f"{f} {w:+.2f}" for f, w in audit["weights"].get(name, {}).items())
        lines.append(f"| {name} | {_acc(a)} | {a['n']:,} | {top} |")
    return lines


def _prior_lines(audit: Mapping[str, Any]) -> list[str]:
    """Datasheet section of the knowledge-prior audit (textbook physiology, no data; chance 10%)."""
    lines = [
        "",
        "## Knowledge-prior audit (textbook physiology and option logic, no data; chance 10%)",
        "",
        "| type | accuracy | 95% CI | items |",
        "|---|---|---|---|",
    ]
    for name, a in [*audit["by_type"].items(), ("all", audit["overall"])]:
        lines.append(f"| {name} | {_acc(a)} | {a['n']:,} |")
    return lines


def audit_lines(text_only: Mapping[str, Any], prior: Mapping[str, Any], chance: float = 0.10) -> list[str]:
    """Acceptance of both no-data audits: each type's 95% Wilson CI must reach down to ``chance``.

    Lists every type whose text-only or knowledge-prior CI lies wholly above ``chance``, or
    says that none does.
    """
    above = [
        f"{name} ({label} {a['lo']:.3f}–{a['hi']:.3f})"
        for label, audit in (("text-only", text_only), ("prior", prior))
        for name, a in audit["by_type"].items()
        if a["n"] and a["lo"] > chance
    ]
    head = f"- types whose no-data audit CI lies above {chance:.2f}: "
    return ["", head + (", ".join(above) if above else "none")]


def _reference_lines(refs: Mapping[str, Any]) -> list[str]:
    """Datasheet section: the reference kind each type's items use, and every cell used."""
    lines = [
        "",
        "## References items compare against",
        "",
        "Never a set that includes the tested user: `population` (independent of the cohort's users), "
        "`cohort` (at least 30 other users of the same age band and sex, data up to the item's end date) "
        "or `external` (cited published table). Each item stores its cell and shows it in the prompt.",
        "",
    ]
    if not refs["by_type"]:
        return [*lines, "- no item compares against a reference"]
    lines += ["| type | kind | items |", "|---|---|---|"]
    lines += [f"| {t} | {k} | {n:,} |" for t, kinds in refs["by_type"].items() for k, n in kinds.items()]
    lines += [
        "",
        "| kind | metric | age band | sex | users | source | items |",
        "|---|---|---|---|---|---|---|",
    ]
    for c in refs["cells"]:
        row = (
            c["kind"],
            c["metric"],
            c["age_band"],
            c["sex"],
            c["n_users"] or "–",
            c["source"],
            f"{c['items']:,}",
        )
        lines.append("| " + " | ".join(row) + " |")
    return lines
