"""Build statistics and the human-readable datasheet of a benchmark."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from scipy import stats

from wearbench.questions import LETTERS, Item

__all__ = ["OFFICIAL_COUNTS", "audit_lines", "build_stats", "render_datasheet"]

#: Label counts of the official WearableQA release (4,084 items).
OFFICIAL_COUNTS: Mapping[str, Mapping[str, int]] = {
    "reasoning": {"data": 2724, "health": 1360},
    "signals": {"single": 1682, "cross": 2402},
    "grounding": {"literature": 3154, "population": 930},
}


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
    if "prior_audit" in s:
        lines += _prior_lines(s["prior_audit"])
    if "shortcut_audit" in s and "prior_audit" in s:
        lines += audit_lines(s["shortcut_audit"], s["prior_audit"])
    return "\n".join(lines) + "\n"


def _acc(a: Mapping[str, Any]) -> str:
    return f"{a['accuracy']:.3f} | {a['lo']:.3f}–{a['hi']:.3f}" if a["n"] else "– | –"


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
