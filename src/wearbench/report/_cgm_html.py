"""HTML tables of the HealthLoopQA part of the evaluation report (every text escaped).

Each table takes the runs as ``(tag, run info, score dict)``, the score dict being
:meth:`~wearbench.scoring.CGMRunScore.to_dict` (scores on 0–100). Score cells carry their
exact values as ``data-*`` attributes (``data-run``, ``data-cell`` or ``data-template``,
``data-score``, ``data-n``, ``data-parse-failures``; a judge's grade cells ``data-judge``,
``data-grade``, ``data-mean``, ``data-ci-low``, ``data-ci-high``, ``data-n``, its failure-type
cell ``data-failures``), so the page can be checked against ``wearbench score --format json``.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from html import escape
from typing import Any

from wearbench.cgmqa import LEVELS
from wearbench.report._eval_html import is_baseline, model_label, table
from wearbench.runner import JUDGE_SCORES, ResultRow, RunInfo
from wearbench.scoring import TABLE_FAMILIES

#: One HealthLoopQA run in the report: ``(tag, run info, score dict)``.
CGMScored = tuple[str, RunInfo, Mapping[str, Any]]

FAMILY_NAMES: dict[str, str] = {"pm": "process mining", "ad": "anomaly detection", "pd": "prediction"}

CSS = """
td.cell small{display:block;color:#666;font-size:11px}
td.tpl small{color:#666;font-size:11px;margin-left:.4em}
tr.group th{text-align:left;background:#e8eef7}
td.pf{color:#c62828}
"""


def _f(x: float | None, digits: int = 1) -> str:
    return "–" if x is None or not math.isfinite(x) else f"{x:.{digits}f}"


def prompt_text(info: RunInfo) -> str:
    """The prompt a run's model saw: ``–`` for a baseline, else the prompt variant and its days.

    The variant is the run's ``prompt`` parameter (``structured`` when the run has none; an
    agent run sees CSV files, not a prompt); the
    days are ``context_days`` (the item's whole context, 30 days, when unset).
    """
    if is_baseline(info):
        return "– (baseline)"
    agent = info.setting.mode == "agent"
    variant = "agent, CSV files" if agent else info.params.get("prompt") or "structured"
    days = info.params.get("context_days")
    return f"{variant}, {'30 (all)' if days is None else days} days"


def cgm_run_label(tag: str, info: RunInfo) -> str:
    """Short run name for legends: ``H1 baseline:oracle`` or ``H2 openai:m (structured, 7 days)``."""
    if is_baseline(info):
        return f"{tag} {info.model}"
    return f"{tag} {model_label(info.model)} ({prompt_text(info)})"


def _tokens(rows: Sequence[ResultRow]) -> str:
    prompt = [r.prompt_tokens for r in rows if r.prompt_tokens is not None]
    completion = [r.completion_tokens for r in rows if r.completion_tokens is not None]
    if not prompt and not completion:
        return "–"
    p = sum(prompt) / len(prompt) if prompt else 0.0
    c = sum(completion) / len(completion) if completion else 0.0
    return f"{p:,.0f} + {c:,.0f}"


def runs_table(runs: Sequence[tuple[CGMScored, Sequence[ResultRow]]]) -> str:
    """One row per run: tag and id, model, setting, prompt, score with its interval, counts, bench hash."""
    header = [
        *("run", "model", "mode", "prompt (variant, context)", "seed", "n", "score [95% CI]"),
        *("parse failures", "errors", "missing", "tokens/item", "benchmark hash"),
    ]
    rows = []
    for (tag, info, r), stored in runs:
        rows.append(
            [
                f"{tag} ({info.run_id})",
                model_label(info.model),
                "baseline" if is_baseline(info) else info.setting.mode,
                prompt_text(info),
                str(info.params.get("seed", "–")),
                f"{r['n']}/{r['n_items']}",
                f"{_f(r['score'])} [{_f(r['ci_low'])}–{_f(r['ci_high'])}]",
                str(r["parse_failures"]),
                str(r["errors"]),
                str(r["missing"]),
                _tokens(stored),
                info.bench_hash[:12],
            ]
        )
    return table(header, rows, table_id="hlqa-runs-table", left=4)


def _cell(tag: str, key: str, group: Mapping[str, Any] | None, cls: str = "cell") -> str:
    """A score cell: score, interval, n and any parse failures (stacked in Table 2, in line per template)."""
    if not group or not group.get("n"):
        return f'<td class="{cls}">–</td>'
    pf = int(group["parse_failures"])
    attrs = (
        f'data-run="{escape(tag)}" data-{"template" if cls == "tpl" else "cell"}="{escape(key)}" '
        f'data-score="{group["score"]!r}" data-n="{group["n"]}" data-parse-failures="{pf}"'
    )
    ci = f"[{_f(group['ci_low'])}–{_f(group['ci_high'])}]"
    count = f"n={group['n']}" + (f", {pf} unparsed" if pf else "")
    small = f"<small>{ci}</small><small>{escape(count)}</small>"
    return f'<td class="{cls}" {attrs}>{_f(group["score"])}{small}</td>'


def table2(runs: Sequence[CGMScored]) -> str:
    """The seed's Table 2 shape: rows PM, AD, PD and overall; per run, the levels and ``all``."""
    cols = [*LEVELS, "all"]
    head1 = '<th class="l" rowspan="2">family</th>' + "".join(
        f'<th colspan="{len(cols)}">{escape(cgm_run_label(tag, info))}</th>' for tag, info, _ in runs
    )
    head2 = "".join(f"<th>{escape(c)}</th>" for _ in runs for c in cols)
    body = []
    for fam in (*TABLE_FAMILIES, "all"):
        name = "Overall" if fam == "all" else f"{fam.upper()} ({FAMILY_NAMES.get(fam, fam)})"
        cells = [_cell(tag, f"{fam}/{lv}", _group(r, fam, lv)) for tag, _, r in runs for lv in cols]
        body.append(f'<tr><td class="l">{escape(name)}</td>{"".join(cells)}</tr>')
    return (
        f'<div class="scroll"><table id="hlqa-table2"><thead><tr>{head1}</tr><tr>{head2}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )


def _group(r: Mapping[str, Any], fam: str, level: str) -> Mapping[str, Any] | None:
    """One cell of Table 2: family × level, a family's or a level's total, or the whole run."""
    if fam == "all":
        overall: Mapping[str, Any] | None = r if level == "all" else r["by_level"].get(level)
        return overall
    table = r["by_family"] if level == "all" else r["by_family_level"]
    group: Mapping[str, Any] | None = table.get(fam if level == "all" else f"{fam}/{level}")
    return group


def template_ids(runs: Sequence[CGMScored]) -> dict[str, Mapping[str, Any]]:
    """Every template any run covers → its metadata (family, level, answer type, metric)."""
    out: dict[str, Mapping[str, Any]] = {}
    for _, _, r in runs:
        for tid, meta in r["template_metrics"].items():
            out.setdefault(tid, meta)
    return out


def _natural(tid: str) -> tuple[str, int]:
    head, _, tail = tid.rpartition("_")
    return (head, int(tail)) if tail.isdigit() else (tid, -1)


def template_table(runs: Sequence[CGMScored]) -> str:
    """One row per template, grouped by family (PM, AD, PD), in id order; per run its score cell."""
    meta = template_ids(runs)
    fixed = ["template", "family", "level", "answer type", "metric"]
    head = "".join(f'<th class="l">{h}</th>' for h in fixed) + "".join(
        f"<th>{escape(cgm_run_label(tag, info))}</th>" for tag, info, _ in runs
    )
    width = len(fixed) + len(runs)
    body = []
    families = [*TABLE_FAMILIES, *sorted({str(m["family"]) for m in meta.values()} - set(TABLE_FAMILIES))]
    for fam in families:
        tids = sorted((t for t, m in meta.items() if m["family"] == fam), key=_natural)
        if not tids:
            continue
        title = f"{fam.upper()}: {FAMILY_NAMES.get(fam, fam)} ({len(tids)} templates)"
        rows = [f'<tr class="group" id="hlqa-{escape(fam)}"><th colspan="{width}">{escape(title)}</th></tr>']
        for tid in tids:
            m = meta[tid]
            left = "".join(
                f'<td class="l">{escape(str(v))}</td>'
                for v in (tid, fam, m["level"], m["answer_type"], m["metric"])
            )
            cells = "".join(_cell(tag, tid, r["by_template"].get(tid), "tpl") for tag, _, r in runs)
            rows.append(f"<tr>{left}{cells}</tr>")
        body.append(f"<tbody>{''.join(rows)}</tbody>")
    return (
        f'<div class="scroll"><table id="hlqa-templates-table"><thead><tr>{head}</tr></thead>'
        f"{''.join(body)}</table></div>"
    )


def _grade_cell(tag: str, judge: str, grade: str, g: Mapping[str, Any]) -> str:
    """A judge's grade cell: mean on 1–5, its interval and n, exact values as ``data-*``."""
    if not g["n"]:
        return '<td class="cell">–</td>'
    attrs = (
        f'data-run="{escape(tag)}" data-judge="{escape(judge)}" data-grade="{escape(grade)}" '
        f'data-mean="{g["mean"]!r}" data-ci-low="{g["ci_low"]!r}" data-ci-high="{g["ci_high"]!r}" '
        f'data-n="{g["n"]}"'
    )
    small = f"<small>[{_f(g['ci_low'], 2)}–{_f(g['ci_high'], 2)}]</small><small>n={g['n']}</small>"
    return f'<td class="cell" {attrs}>{_f(g["mean"], 2)}{small}</td>'


def _failure_cell(tag: str, judge: str, block: Mapping[str, Any]) -> str:
    """The failure types a judge named (count and share of the parsed judgements), and ``none``."""
    counts = {t: c["count"] for t, c in block["failure_types"].items()}
    named = [
        f"{t.replace('_', ' ')} {c['count']} ({_f(100 * c['share'], 0)}%)"
        for t, c in block["failure_types"].items()
        if c["count"]
    ]
    none = block["no_failure"]
    if none["count"]:
        named.append(f"none named {none['count']} ({_f(100 * none['share'], 0)}%)")
    data = escape(json.dumps({**counts, "none": none["count"]}, sort_keys=True))
    return (
        f'<td class="l" data-run="{escape(tag)}" data-judge="{escape(judge)}" data-failures="{data}">'
        f"{escape('; '.join(named) or '–')}</td>"
    )


def judge_table(runs: Sequence[CGMScored]) -> str:
    """One row per run × judge (spec and prompt version): counts, the three grades, failure types.

    Empty (no table) when no run has judgements.
    """
    grades = JUDGE_SCORES
    fixed = ["run", "judge", "prompt", "judged", "parse failures", "errors"]
    head = (
        "".join(f'<th class="l">{h}</th>' for h in fixed[:3])
        + "".join(f"<th>{h}</th>" for h in fixed[3:])
        + "".join(f"<th>{escape(g.replace('_', ' '))} (1–5)</th>" for g in grades)
        + '<th class="l">failure types (of parsed)</th>'
    )
    body = []
    for tag, info, r in runs:
        for b in r.get("judges", ()):
            left = "".join(
                f'<td class="l">{escape(v)}</td>'
                for v in (cgm_run_label(tag, info), model_label(b["judge"]), b["prompt_version"])
            )
            counts = "".join(f"<td>{b[k]}</td>" for k in ("n", "parse_failures", "errors"))
            cells = "".join(_grade_cell(tag, b["judge"], g, b["grades"][g]) for g in grades)
            body.append(f"<tr>{left}{counts}{cells}{_failure_cell(tag, b['judge'], b)}</tr>")
    if not body:
        return ""
    return (
        f'<div class="scroll"><table id="hlqa-judge-table"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body)}</tbody></table></div>"
    )
