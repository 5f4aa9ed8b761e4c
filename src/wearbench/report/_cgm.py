"""The HealthLoopQA part of the evaluation report: runs, Table 2, a figure, per-template rows.

Each run is scored by :func:`~wearbench.scoring.score_cgm` (the numbers of ``wearbench score
--format json``), tagged H1, H2 … in the order given (WearableQA runs are R1, R2 …; the two
kinds never share a table). Sections:

- runs: model, mode, prompt variant and context days, seed, n, overall score with its
  patient-clustered bootstrap 95% interval, parse failures, errors, missing, tokens, bench hash;
- Table 2: rows PM, AD, PD and overall, per run the levels (descriptive, memory, pattern) and
  ``all``, each cell the 0–100 score, its interval and n;
- a figure of the same cells (bars per run, interval whiskers);
- per template: family, level, answer type, metric, and per run its score, interval, n and
  parse failures, grouped by family;
- the LLM judge (``wearbench cgm judge``), only when some run has judgements: one row per run ×
  judge with the answers judged, parse failures, errors, each 1–5 grade's mean with its
  patient-clustered 95% interval, and the failure types named (count and share).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from wearbench._errors import WearbenchError
from wearbench._folder import write_text_atomic
from wearbench._version import __version__
from wearbench.report import _cgm_html as C
from wearbench.report import _eval_html as H
from wearbench.runner import Judgement, ResultRow, RunInfo
from wearbench.scoring import score_cgm

Section = tuple[str, str, str]
Parts = tuple[list[str], list[Section]]


def _figure(runs: Sequence[C.CGMScored]) -> str:
    from wearbench.report._cgm_plots import plot_family_level
    from wearbench.report._eval_plots import figure_uri

    fig = plot_family_level([(C.cgm_run_label(tag, info), r) for tag, info, r in runs])
    return H.figure(figure_uri(fig), "HealthLoopQA score by family and level")


def cgm_parts(
    runs: Sequence[tuple[RunInfo, Sequence[ResultRow]]],
    *,
    judgements: Mapping[str, Sequence[Judgement]] | None = None,
    seed: int = 0,
    n_boot: int = 2000,
) -> Parts:
    """Meta lines and sections of the HealthLoopQA runs (call inside ``plot_style()``).

    Args:
        runs: ``(run info, its rows)`` per HealthLoopQA run, all on one benchmark.
        judgements: Run id → its LLM-judge grades (``RunStore.judgements``); a "judge" section
            is added when any run has some.
        seed: Bootstrap seed.
        n_boot: Bootstrap replicates.

    Raises:
        WearbenchError: Without runs, with runs on different benchmarks, or when a run's
            benchmark folder is gone or changed.
    """
    if not runs:
        raise WearbenchError("no HealthLoopQA runs to report")
    if len({info.bench_hash for info, _ in runs}) > 1:
        raise WearbenchError(
            "the HealthLoopQA runs were made on different benchmarks; report them separately"
        )
    judged = judgements or {}
    scored = [
        ((f"H{n}", info, _score(info, rows, judged.get(info.run_id, ()), seed, n_boot)), rows)
        for n, (info, rows) in enumerate(runs, start=1)
    ]
    plain = [s for s, _ in scored]
    n_items = max(int(r["n_items"]) for _, _, r in plain)
    meta = [
        f"{len(plain)} HealthLoopQA run(s) on up to {n_items} items; benchmark hash "
        f"{runs[0][0].bench_hash[:12]} ({runs[0][0].bench})",
        f"HealthLoopQA scores: mean 0–100 item score (parse failures and errors score 0); intervals: "
        f"patient-clustered bootstrap 95% ({n_boot} replicates, seed {seed}).",
    ]
    specs = [
        ("hlqa-runs", "HealthLoopQA runs", C.runs_table(scored),
         "Runs H1, H2 … in store order; n: items scored / items the run covers (a baseline covers "
         "only the answer types it can answer)."),
        ("hlqa-table2", "HealthLoopQA by family and level (Table 2)", C.table2(plain),
         "Cells: score, [95% CI], n. Families: PM process mining, AD anomaly detection, "
         "PD prediction; '–': no items."),
        ("hlqa-figure", "HealthLoopQA figure", _figure(plain),
         "The Table 2 cells as bars, one colour per run."),
        ("hlqa-templates", "HealthLoopQA per template", C.template_table(plain),
         "Each template's score per run ([95% CI], n, unparsed answers), grouped by family."),
        ("hlqa-judge", "HealthLoopQA LLM judge", C.judge_table(plain),
         "Grades of `wearbench cgm judge` (the judge model's opinion, not measurements): per run "
         "and judge, the mean 1–5 grade over parsed judgements, [patient-clustered bootstrap 95% CI], "
         "n; failure types named, with their share of the parsed judgements."),
    ]  # fmt: skip
    return meta, [
        (sid, title, H.section(sid, title, body, intro)) for sid, title, body, intro in specs if body
    ]


def _score(
    info: RunInfo, rows: Sequence[ResultRow], judgements: Sequence[Judgement], seed: int, n_boot: int
) -> Mapping[str, Any]:
    return score_cgm(info, rows, judgements=judgements, seed=seed, n_boot=n_boot).to_dict()


def write_cgm_report(
    runs: Sequence[tuple[RunInfo, Sequence[ResultRow]]],
    out: Path,
    *,
    judgements: Mapping[str, Sequence[Judgement]] | None = None,
    seed: int = 0,
    n_boot: int = 2000,
    generated: str | None = None,
    title: str = "wearbench evaluation report",
) -> Path:
    """Write the report of HealthLoopQA runs alone as one self-contained HTML file.

    Args:
        runs: ``(run info, its rows)`` per run, all on one HealthLoopQA benchmark (whose
            folder, as recorded in the runs, must hold the ``items.jsonl`` they were run on).
        out: HTML file to write.
        judgements: Run id → its LLM-judge grades, as in :func:`cgm_parts`.
        seed: Bootstrap seed.
        n_boot: Bootstrap replicates.
        generated: Text shown as the generation time (none by default: same runs, same bytes).
        title: Page title.

    Returns:
        ``out``.

    Raises:
        WearbenchError: As :func:`cgm_parts`.
    """
    from wearbench.report._eval_plots import plot_style

    with plot_style():
        meta, sections = cgm_parts(runs, judgements=judgements, seed=seed, n_boot=n_boot)
    meta = [*meta, f"wearbench {__version__}", *([f"Generated {generated}"] if generated else [])]
    return write_text_atomic(out, H.document(title, meta, sections, css=C.CSS))
