"""Build statistics and the human-readable datasheet of a benchmark."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from scipy import stats

from wearbench.questions import LETTERS, Item

__all__ = ["OFFICIAL_COUNTS", "build_stats", "render_datasheet"]

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


def build_stats(
    items: Sequence[Item], drops: Mapping[str, int], null_fdr: Mapping[str, Mapping[str, float]]
) -> dict[str, Any]:
    """Counts by type and label, answer-position balance, drop reasons and null-test FDRs."""
    return {
        "n_items": len(items),
        "n_users": len({i.user_id for i in items}),
        "by_type": dict(sorted(Counter(i.type for i in items).items())),
        "by_label": {
            label: dict(sorted(Counter(getattr(i, label) for i in items).items()))
            for label in ("reasoning", "signals", "grounding", "dependency")
        },
        "pair_kind": dict(sorted(Counter(i.pair_kind for i in items if i.pair_kind).items())),
        "answer_positions": _position_test(items),
        "drops": dict(sorted(drops.items())),
        "null_fdr": {k: dict(v) for k, v in sorted(null_fdr.items())},
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
    lines += ["", "## Answer positions (chi-square against uniform A–J)", ""]
    for group, res in s["answer_positions"].items():
        counts = " ".join(f"{k}:{v}" for k, v in res["counts"].items())
        lines.append(f"- {group}: {counts}; p = {res['chi2_p']:.3f}")
    lines += ["", "## Dropped candidates (type: reason)", "", "| reason | count |", "|---|---|"]
    lines += [f"| {r} | {n:,} |" for r, n in s["drops"].items()]
    if s["null_fdr"]:
        lines += ["", "## Cross-user null test per pattern family", "", "| family | null | observed | FDR |"]
        lines.append("|---|---|---|---|")
        for fam, v in s["null_fdr"].items():
            lines.append(f"| {fam} | {v['null']:.3f} | {v['observed']:.3f} | {v['fdr']:.3f} |")
    if "shortcut_audit" in s:
        lines += _shortcut_lines(s["shortcut_audit"])
    return "\n".join(lines) + "\n"


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
        acc = f"{a['accuracy']:.3f} | {a['lo']:.3f}–{a['hi']:.3f}" if a["n"] else "– | –"
        lines.append(f"| {name} | {acc} | {a['n']:,} | {top} |")
    return lines
