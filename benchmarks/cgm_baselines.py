"""Per-template scores of the HealthLoopQA baselines, and a validity pass (``docs/cgm-baselines.md``).

Runs ``baseline:oracle`` and every ``naive-*`` baseline on each BENCH through the real
``wearbench.runner.evaluate`` and ``wearbench.scoring.score_runs`` (one run store per bench, in a
temporary folder unless ``--runs``), then writes Markdown: per bench, a summary (per family,
per level, overall) and one row per template with the number of items, the number of distinct
true answers, each baseline's 0–100 score (blank where it does not cover the template) and the
best *no-data prior*: the highest score of a baseline that uses no item data (``naive-mean``,
``naive-majority``, ``naive-empty``, ``naive-allday``, all fitted on the bench's own answers).
A last table lists the templates whose answers are (nearly) the same for everyone, per bench,
with the cause found.

Run: ``python benchmarks/cgm_baselines.py BENCH [LABEL=BENCH …] [--out docs/cgm-baselines.md]``
(about 30 s for 2,477 items). Without ``--out`` the Markdown goes to stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from wearbench.cgmqa import read_cgm_items
from wearbench.runner import evaluate
from wearbench.scoring import score_runs

BASELINES = ("oracle", "naive-last", "naive-mean", "naive-majority", "naive-empty", "naive-allday")
#: Baselines that use no data of the item (only the template's answers over the bench).
PRIORS = ("naive-mean", "naive-majority", "naive-empty", "naive-allday")
#: A template is listed in the validity table when it is constant (one answer, two or more
#: items) or when the best no-data prior reaches this score.
HIGH_PRIOR = 90.0
_FAMILIES = ("pm", "ad", "pd")
_LEVELS = ("descriptive", "memory", "pattern")

#: Why a template's answer is (nearly) the same for every patient, as found by the validity pass.
CAUSES: dict[str, str] = {
    "ad_1": "fixed: every patient had the same missing_signal plan (4 × 15 min + 2 × 60 min), so "
    "0.42 % missing for all; the counts are now drawn per patient (2–8 short, 1–3 hour-long losses, "
    "plus the one in days 28–29)",
    "ad_2": "flagged: no day can have > 30 % (432 min) of its readings missing under the seed's loss "
    "sizes (15 or 60 min): a patient's losses add up to at most 6 h over the whole run, so the "
    "answer is always []",
    "pm_2": "fixed: PM was asked on the faulty run, and every patient has a zero_reading fault (the "
    "display shows 0 mg/dL), so the lowest reading was 0.0 for all; PM and PD are now asked on the "
    "run's fault-free twin (`cgm build --pm-pd-run normal`, the default; upstream builds PM from a "
    "run without faults), whose minimum is 39.0–71.3 mg/dL on the seed-42 run",
    "pm_13": "flagged: a 5-min step above 2 mg/dL/min occurs for every patient even on the fault-free "
    "display (84–2,450 such steps per patient in 30 days on the seed-42 run: sensor noise and meals), "
    "so always yes",
}


@dataclass
class TemplateRow:
    """One template's items and baseline scores on one bench.

    Attributes:
        template: Template id (``pm_14``).
        family: ``ad``, ``pm`` or ``pd``.
        level: Cognitive level.
        answer_type: The answer type.
        metric: The template's metric.
        n: Items of the template.
        distinct: Distinct true answers among its items.
        modal: Items that share the most common true answer.
        scores: Mean 0–100 item score per baseline that covers the template.
    """

    template: str
    family: str
    level: str
    answer_type: str
    metric: str
    n: int
    distinct: int
    modal: int
    scores: dict[str, float] = field(default_factory=dict)

    @property
    def constant(self) -> bool:
        """True when two or more items all have the same true answer."""
        return self.n > 1 and self.distinct == 1

    @property
    def best_prior(self) -> float | None:
        """The highest score of a no-data baseline (:data:`PRIORS`), None if none covers it."""
        values = [self.scores[b] for b in PRIORS if b in self.scores]
        return max(values) if values else None


def _natural(template: str) -> tuple[int, str, int]:
    family, _, number = template.partition("_")
    return (_FAMILIES.index(family) if family in _FAMILIES else 9, family, int(number or 0))


def template_rows(bench: Path, runs: Path, n_boot: int = 200) -> list[TemplateRow]:
    """Evaluate and score every baseline on ``bench`` (run store ``runs``); one row per template.

    Args:
        bench: A HealthLoopQA benchmark folder.
        runs: Run folder (created; reused runs are resumed, not re-answered).
        n_boot: Bootstrap replicates of the scoring (the table uses means only).

    Returns:
        Rows in natural template order (``pm_2`` before ``pm_10``; PM, AD, PD).
    """
    items = read_cgm_items(bench)
    by_template: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for item in items:
        by_template[str(item["template"])].append(item)
    rows = {}
    for tid, group in by_template.items():
        first = group[0]
        answers = Counter(json.dumps(i["answer"], sort_keys=True) for i in group)
        rows[tid] = TemplateRow(tid, first["family"], first["level"], first["answer_type"], first["metric"],
                                len(group), len(answers), max(answers.values()))  # fmt: skip
    for name in BASELINES:
        summary = evaluate(bench, f"baseline:{name}", runs)
        (score,) = score_runs(runs, summary.info.run_id, n_boot=n_boot)
        for tid, group in score.to_dict()["by_template"].items():
            if group["n"]:
                rows[tid].scores[name] = float(group["score"])
    return [rows[t] for t in sorted(rows, key=_natural)]


def _mean(rows: Sequence[TemplateRow], name: str) -> tuple[float | None, int]:
    """Item-weighted mean score of ``name`` (a baseline or ``prior``) over the rows it covers."""
    total, n = 0.0, 0
    for row in rows:
        value = row.best_prior if name == "prior" else row.scores.get(name)
        if value is not None:
            total, n = total + value * row.n, n + row.n
    return (total / n if n else None), n


def _f(x: float | None) -> str:
    return "" if x is None else f"{x:.1f}"


def _group_line(label: str, rows: Sequence[TemplateRow]) -> str:
    cells = [_f(_mean(rows, b)[0]) for b in (*BASELINES, "prior")]
    n = sum(r.n for r in rows)
    return f"| {label} | {len(rows)} | {n} | " + " | ".join(cells) + " |"


SUMMARY_HEADER = (
    "| group | templates | n | " + " | ".join(BASELINES) + " | best prior |",
    "|---|---|---|" + "---|" * (len(BASELINES) + 1),
)
TEMPLATE_HEADER = (
    "| template | family | level | answer type | metric | n | distinct | " + " | ".join(BASELINES)
    + " | best prior |",
    "|---|---|---|---|---|---|---|" + "---|" * (len(BASELINES) + 1),
)  # fmt: skip


def summary_lines(rows: Sequence[TemplateRow]) -> list[str]:
    """The summary table: per family, per level, overall, and overall without constant templates."""
    out = list(SUMMARY_HEADER)
    for family in _FAMILIES:
        mine = [r for r in rows if r.family == family]
        if mine:
            out.append(_group_line(family.upper(), mine))
    for level in _LEVELS:
        mine = [r for r in rows if r.level == level]
        if mine:
            out.append(_group_line(level, mine))
    out.append(_group_line("**overall**", rows))
    out.append(_group_line("overall, without constant templates", [r for r in rows if not r.constant]))
    return out


def template_lines(rows: Sequence[TemplateRow]) -> list[str]:
    """One Markdown row per template (blank cells: the baseline does not cover it)."""
    out = list(TEMPLATE_HEADER)
    for r in rows:
        cells = [_f(r.scores.get(b)) for b in BASELINES]
        out.append(
            f"| {r.template} | {r.family} | {r.level} | {r.answer_type} | {r.metric} | {r.n} | "
            f"{r.distinct} | " + " | ".join(cells) + f" | {_f(r.best_prior)} |"
        )  # fmt: skip
    return out


def _cause(tid: str, rows: Sequence[TemplateRow]) -> str:
    """The cause found for a template (:data:`CAUSES`), else what the answers show."""
    if tid in CAUSES:
        return CAUSES[tid]
    last = rows[-1]
    if last.constant:
        return "the same answer for every item"
    if last.answer_type in ("number", "integer"):
        return "numbers that spread little around their mean (the mean scores high on sMAPE)"
    return f"lopsided: {last.modal} of {last.n} items share one answer (last bench)"


def validity_lines(benches: Sequence[tuple[str, Sequence[TemplateRow]]]) -> list[str]:
    """Templates with few distinct answers or a high no-data prior on any bench, bench by bench."""
    by_bench = [{r.template: r for r in rows} for _, rows in benches]
    flagged = sorted(
        {t for rows in by_bench for t, r in rows.items()
         if r.constant or (r.best_prior or 0.0) >= HIGH_PRIOR},
        key=_natural,
    )  # fmt: skip
    head = "| template | " + " | ".join(
        f"{label}: distinct / n | {label}: best prior" for label, _ in benches
    )
    out = [head + " | cause |", "|---|" + "---|---|" * len(benches) + "---|"]
    for tid in flagged:
        cells = []
        for rows in by_bench:
            r = rows.get(tid)
            cells += ["", ""] if r is None else [f"{r.distinct} / {r.n}", _f(r.best_prior)]
        out.append(
            f"| {tid} | " + " | ".join(cells) + f" | {_cause(tid, [r[tid] for r in by_bench if tid in r])} |"
        )
    return out


INTRO = """# HealthLoopQA baselines per template, and a validity pass

Generated by `python benchmarks/cgm_baselines.py {args} --out docs/cgm-baselines.md`; do not edit
by hand. Every baseline runs through `wearbench eval` and `wearbench score` (the Python API:
`wearbench.runner.evaluate`, `wearbench.scoring.score_runs`); what each covers and answers is in
`docs/cgm-eval.md` ("Baselines"). Scores are mean 0–100 item scores; a blank cell means the
baseline does not cover the template's answer type. **distinct**: the number of different true
answers among the template's items. **best prior**: the highest score of the baselines that use no
data of the item (`naive-mean`, `naive-majority`, `naive-empty`, `naive-allday`); they are fitted
on the bench's own answers (in-sample), so this is what a model could score by knowing only the
answer distribution of each template. A summary row weights each template by its items; "best
prior" there is the mean of the per-template best, picked per template in hindsight.
"""


def render(benches: Sequence[tuple[str, Path, Sequence[TemplateRow]]], args: str, note: str = "") -> str:
    """The whole Markdown document for the given ``(label, bench folder, rows)``, ``note`` after the intro."""
    lines = [INTRO.format(args=args).rstrip("\n")]
    if note:
        lines += ["", note]
    for label, bench, rows in benches:
        manifest = json.loads((bench / "manifest.json").read_text(encoding="utf-8"))
        lines += [
            "",
            f"## {label}",
            "",
            f"`{bench}`: {sum(r.n for r in rows):,} items, {len(rows)} templates, sampling "
            f"`{manifest.get('sampling')}`, build seed {manifest.get('seed')}, data "
            f"`{manifest.get('data', {}).get('path')}`.",
            "",
            *summary_lines(rows),
            "",
            *template_lines(rows),
        ]
    lines += [
        "",
        "## Validity: templates with the same answer for (nearly) everyone",
        "",
        "Templates that are constant (one true answer over two or more items) or whose best no-data "
        f'prior reaches {HIGH_PRIOR:.0f}, on any bench above. "fixed": the cause is removed at its '
        "source (the simulation profile or the build), so the numbers before and after differ; "
        '"flagged": the template is '
        "constant for a reason the seed's setup does not let us change, and a score on it says "
        "nothing about the model (the summary's last row leaves such templates out).",
        "",
        *validity_lines([(label, rows) for label, _, rows in benches]),
    ]
    return "\n".join(lines) + "\n"


def _bench_arg(text: str) -> tuple[str, Path]:
    label, sep, path = text.partition("=")
    return (label, Path(path)) if sep else (Path(text).name, Path(text))


def main(argv: Sequence[str] | None = None) -> None:
    """Evaluate, score and write the document."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("benches", nargs="+", type=_bench_arg, metavar="[LABEL=]BENCH")
    parser.add_argument("--out", type=Path, help="Markdown file to write (default: stdout).")
    parser.add_argument("--runs", type=Path, help="Run folder to keep (default: a temporary one).")
    parser.add_argument(
        "--note", default="", help="A paragraph put under the introduction (what the benches are)."
    )
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        runs = args.runs or Path(tmp)
        done = [(label, bench, template_rows(bench, runs / f"runs{k}")) for k, (label, bench) in
                enumerate(args.benches)]  # fmt: skip
    shown = " ".join(f"{label}={bench}" for label, bench in args.benches) + (" --note …" if args.note else "")
    text = render(done, shown, args.note)
    if args.out is None:
        sys.stdout.write(text)
    else:
        args.out.write_text(text, encoding="utf-8")


if __name__ == "__main__":
    main()
