"""`wearbench demo`: synthesise → validate → describe → audit → build → evaluate baselines → report."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from wearbench._api import synth
from wearbench._errors import WearbenchError
from wearbench._folder import rebuilt_folder
from wearbench.audit import PlantedAudit, audit_planted
from wearbench.cohort import (
    Cohort,
    describe_cohort,
    load_cohort,
    read_manifest,
    render_describe,
    validate_cohort,
)
from wearbench.primitives import rolling_baseline
from wearbench.questions import question_type
from wearbench.report._bench import bench_summary
from wearbench.report._demo_eval import demo_eval
from wearbench.report._html import write_html_report, write_markdown_report
from wearbench.report._plots import (
    plot_benchmark,
    plot_correlations,
    plot_distributions,
    plot_lag_recovery,
    plot_missingness,
    plot_user_timeline,
    save_figure,
)

#: A file every demo folder has (a folder without it is not overwritten).
DEMO_MARKER = "cohort/cohort.json"
_TIMELINE_METRICS = ("resting_hr", "hrv", "sleep_minutes", "steps", "stress")


@dataclass(frozen=True)
class DemoResult:
    """What :func:`run_demo` wrote.

    Attributes:
        out: Output folder.
        cohort_dir: The synthetic cohort folder.
        content_hash: The cohort's content hash.
        figures: PNG files written.
        report_html: Self-contained HTML report (figures embedded).
        report_md: Markdown report (links the PNG files).
        audit: Planted-structure audit.
        n_users: Users in the cohort.
        n_days: Days per user.
        bench_dir: The benchmark built from the cohort.
        bench: Benchmark summary: counts, verification, oracle/random accuracy, shortcut audit.
        evals: Per evaluated model spec its accuracy and CI; ``report`` the evaluation report.
    """

    out: Path
    cohort_dir: Path
    content_hash: str
    figures: tuple[Path, ...]
    report_html: Path
    report_md: Path
    audit: PlantedAudit
    n_users: int
    n_days: int
    bench_dir: Path | None = None
    bench: Mapping[str, Any] = field(default_factory=dict)
    evals: Mapping[str, Any] = field(default_factory=dict)

    def summary_lines(self) -> list[str]:
        """Human summary, one line per fact."""
        return [
            f"cohort: {self.cohort_dir} ({self.n_users} users x {self.n_days} days, "
            f"content_hash {self.content_hash[:16]}...)",
            "validation: ok",
            f"planted couplings recovered (lag and sign): {self.audit.lag_recovery_rate:.0%} "
            f"of {len(self.audit.couplings)}",
            f"planted illness episodes detected (RHR >= {self.audit.k} SD): "
            f"{self.audit.episode_detection_rate:.0%} of {len(self.audit.episodes)}",
            *_bench_lines(self.bench_dir, self.bench),
            *_eval_lines(self.evals),
            f"report: {self.report_html}",
            f"        {self.report_md}",
        ]


#: What each of the demo's steps does, in order (``progress(done, 7)`` follows each).
DEMO_STAGES: tuple[str, ...] = (
    "synthesising the cohort",
    "validating and describing",
    "auditing planted effects",
    "drawing figures",
    "building and verifying the benchmark",
    "writing reports",
    "evaluating baselines",
)


def run_demo(
    out: str | Path = "demo-output",
    *,
    n_users: int = 50,
    n_days: int = 365,
    seed: int = 0,
    reference_users: int = 2000,
    local_model: bool | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> DemoResult:
    """Run the end-to-end demo on the embedded synthetic default; no network, no keys.

    Args:
        out: Folder to write. A previous demo there is set aside while this one runs and removed
            when it succeeds, or put back if it fails; a non-empty folder that holds no demo
            (no ``cohort/cohort.json``) is refused before anything is written.
        n_users: Synthetic users.
        n_days: Days per user.
        seed: Seed; fixes every output byte.
        reference_users: Population size for reference percentiles.
        local_model: Also evaluate the bundled local GGUF model on a few items (None: if installed).
        progress: Optional ``(step_done, steps_total)`` callback; :data:`DEMO_STAGES` names the steps.

    Raises:
        WearbenchError: ``out`` is a file or a non-empty folder without a demo.
    """
    out = Path(out)
    with rebuilt_folder(out, "demo", DEMO_MARKER):
        return _demo_steps(out, n_users, n_days, seed, reference_users, local_model, progress)


def _demo_steps(
    out: Path,
    n_users: int,
    n_days: int,
    seed: int,
    reference_users: int,
    local_model: bool | None,
    progress: Callable[[int, int], None] | None,
) -> DemoResult:
    """Every step of :func:`run_demo`, writing into the empty folder ``out``."""
    steps = len(DEMO_STAGES)
    tick = progress or (lambda done, total: None)
    cohort_dir = out / "cohort"
    synth(n_users, n_days, seed, out=cohort_dir, reference_users=reference_users)
    tick(1, steps)
    cohort = _load_valid(cohort_dir)
    desc = describe_cohort(cohort)
    _write_json(out / "describe.json", desc)
    (out / "describe.txt").write_text(render_describe(desc) + "\n", encoding="utf-8")
    tick(2, steps)
    audit = audit_planted(cohort)
    _write_json(out / "planted_audit.json", audit.to_dict())
    tick(3, steps)
    figures = _figures(cohort, desc, audit, out)
    tick(4, steps)
    bench = bench_summary(cohort_dir, out / "bench", seed)
    _write_json(out / "bench_summary.json", bench)
    reasoning = {t: question_type(t).labels.reasoning for t in bench["by_type"]}
    figures += (save_figure(plot_benchmark(bench, reasoning), out / "benchmark.png"),)
    tick(5, steps)
    content_hash = str(read_manifest(cohort_dir)["content_hash"])
    context = {"desc": desc, "audit": audit, "content_hash": content_hash, "seed": seed, "bench": bench}
    html = write_html_report(out / "report.html", context, figures)
    md = write_markdown_report(out / "report.md", context, figures)
    tick(6, steps)
    evals = demo_eval(out / "bench", out, seed=seed, local_model=local_model)
    tick(7, steps)
    return DemoResult(
        out, cohort_dir, content_hash, figures, html, md, audit, n_users, n_days, out / "bench", bench, evals
    )


def _load_valid(cohort_dir: Path) -> Cohort:
    report = validate_cohort(cohort_dir)
    if not report.ok:
        raise WearbenchError("demo cohort failed validation:\n" + "\n".join(report.lines()))
    return load_cohort(cohort_dir)


def _bench_lines(bench_dir: Path | None, s: Mapping[str, Any]) -> list[str]:
    if not s:
        return []
    v, audit, prior = s["verify"], s["shortcut_audit"]["overall"], s["prior_audit"]["overall"]
    fmt = "{accuracy:.3f} [{lo:.3f}-{hi:.3f}]".format
    return [
        f"benchmark: {bench_dir} ({s['n_items']} items from {s['n_users']} users)",
        f"verified {v['checked'] - v['failed']}/{v['checked']} ({v['agreement']:.3f}); "
        f"oracle {fmt(**s['oracle'])}; random {fmt(**s['random'])}",
        "shortcut audit (text only, chance 0.100): "
        + (fmt(**audit) if audit["n"] and s["shortcut_audit"]["folds"] else "not run"),
        "knowledge-prior audit (no data, chance 0.100): " + (fmt(**prior) if prior["n"] else "not run"),
    ]


def _eval_lines(evals: Mapping[str, Any]) -> list[str]:
    lines = [
        f"eval {spec}: {r['accuracy']:.3f} [{r['ci_low']:.3f}-{r['ci_high']:.3f}] on {r['n']} items"
        + (f", {r['parse_failures']} unparsed" if r["parse_failures"] else "")
        for spec, r in evals.items()
        if spec != "report"
    ]
    return [*lines, f"evaluation report: {evals['report']}"] if evals else []


def _write_json(path: Path, data: Any) -> None:
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n", encoding="utf-8")


def _figures(cohort: Cohort, desc: dict[str, Any], audit: PlantedAudit, out: Path) -> tuple[Path, ...]:
    corr = desc["correlations"]
    names = list(corr["metrics"])
    matrix = np.array(corr["pooled"], dtype=float)
    user = _timeline_user(cohort)
    rec = cohort.user(user, _TIMELINE_METRICS)
    baselines = {}
    for m in _TIMELINE_METRICS:
        b = rolling_baseline(rec[m], window=28, min_count=14)
        baselines[m] = (b.center, b.scale)
    checks = [c for c in audit.couplings if c.recovered_lag is not None]
    return (
        save_figure(plot_distributions(cohort), out / "distributions.png"),
        save_figure(plot_user_timeline(cohort, user, _TIMELINE_METRICS, baselines), out / "timeline.png"),
        save_figure(
            plot_correlations(names, matrix, "Pooled user-day correlations"), out / "correlations.png"
        ),
        save_figure(plot_missingness(cohort), out / "missingness.png"),
        save_figure(
            plot_lag_recovery(
                [c.planted_lag for c in checks], [int(c.recovered_lag or 0) for c in checks], audit.max_lag
            ),
            out / "lag_recovery.png",
        ),
    )


def _timeline_user(cohort: Cohort) -> str:
    """First user (sorted) with a planted illness episode, else the first user."""
    ill = sorted({e["user_id"] for e in (cohort.truth or {}).get("episodes", []) if e["kind"] == "illness"})
    return ill[0] if ill else cohort.user_ids[0]
