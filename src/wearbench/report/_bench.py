"""The demo's benchmark step: build, verify, score the reference solvers, and report it."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from wearbench._errors import WearbenchError
from wearbench.bench import build_benchmark, verify_benchmark
from wearbench.scoring import Accuracy, solve_benchmark

Table = tuple[str, list[str], list[list[str]]]


def _acc(a: Accuracy) -> dict[str, Any]:
    return a.to_dict()


def bench_summary(cohort_dir: Path, out: Path, seed: int) -> dict[str, Any]:
    """Build a benchmark from ``cohort_dir`` into ``out``, verify it and score random and oracle.

    Raises:
        WearbenchError: If any item fails to re-derive (the demo must be exact).
    """
    result = build_benchmark(cohort_dir, out, seed=seed)
    report = verify_benchmark(out)
    if report.failures:
        first = "; ".join(f"{i}: {r}" for i, r in report.failures[:3])
        raise WearbenchError(f"demo benchmark: {len(report.failures)} item(s) failed to re-derive ({first})")
    oracle = solve_benchmark(out, "oracle")
    rand = solve_benchmark(out, "random", seed=seed)
    stats = result.stats
    return {
        "n_items": stats["n_items"],
        "n_users": stats["n_users"],
        "by_type": dict(stats["by_type"]),
        "by_label": {k: dict(v) for k, v in stats["by_label"].items()},
        "verify": {
            "checked": report.n_checked,
            "failed": len(report.failures),
            "agreement": report.agreement,
        },
        "oracle": _acc(oracle.overall),
        "random": _acc(rand.overall),
        "shortcut_audit": stats["shortcut_audit"],
        "prior_audit": stats["prior_audit"],
    }


def _ci(a: Mapping[str, Any]) -> list[str]:
    if not a["n"]:
        return ["–", "–", "0"]
    return [f"{a['accuracy']:.3f}", f"{a['lo']:.3f}–{a['hi']:.3f}", str(a["n"])]


def bench_tables(s: Mapping[str, Any]) -> list[Table]:
    """Report tables of :func:`bench_summary`: counts, verification, solver and audit accuracy."""
    counts = [["type", t, str(n)] for t, n in s["by_type"].items()]
    counts += [[label, v, str(n)] for label, values in s["by_label"].items() for v, n in values.items()]
    v = s["verify"]
    audit = s["shortcut_audit"]
    scores = [
        ["verification (answers re-derived)", f"{v['agreement']:.3f}", "", str(v["checked"])],
        ["oracle (replays the graphs)", *_ci(s["oracle"])],
        ["random guessing", *_ci(s["random"])],
        ["shortcut audit: text only, no data (chance 0.100)", *_ci(audit["overall"])],
        *[[f"  shortcut audit: {t}", *_ci(a)] for t, a in audit["by_type"].items()],
    ]
    if "prior_audit" in s:
        prior = s["prior_audit"]
        scores += [
            ["knowledge-prior audit: textbook physiology, no data (chance 0.100)", *_ci(prior["overall"])],
            *[[f"  knowledge-prior audit: {t}", *_ci(a)] for t, a in prior["by_type"].items()],
        ]
    title = f"Benchmark built from the demo cohort: {s['n_items']} items from {s['n_users']} users"
    return [
        (title, ["label", "value", "items"], counts),
        ("Benchmark checks and reference solvers", ["check", "accuracy", "95% Wilson CI", "items"], scores),
    ]
