"""Score HealthLoopQA runs: read each stored response, score it, break the scores down.

Each row's response goes through :func:`extract_answer` with the item's answer type and
:func:`score_item` with its metric (0–100; a parse failure scores 0 and is counted, never
dropped; an errored row scores 0 and is counted as an error). The breakdowns are
:func:`healthloopqa_breakdown`'s, plus the seed's Table 2 shape (family × level) and each
template's mean metric value. See ``docs/cgm-eval.md``.
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wearbench._errors import WearbenchError
from wearbench.cgmqa import KIND, LEVELS, is_cgm_benchmark
from wearbench.runner import CGMItem, Judgement, ResultRow, RunInfo, cgm_run_items, open_cgm_bench
from wearbench.scoring._cgm_judge import judge_blocks, judge_lines
from wearbench.scoring._extract import Parsed, extract_answer
from wearbench.scoring._freeform import _summary, healthloopqa_breakdown, score_item

#: Families in the seed's Table 2 order.
TABLE_FAMILIES: tuple[str, ...] = ("pm", "ad", "pd")

#: The breakdowns of a HealthLoopQA score, each also a top-level key (``by_family`` is in the
#: command-line contract; the others stay for existing readers).
CGM_BREAKDOWNS: tuple[str, ...] = (
    "by_family", "by_level", "by_family_level", "by_template", "by_atomic_path", "by_ability",
    "by_complexity",
)  # fmt: skip


@dataclass(frozen=True)
class CGMRunScore:
    """Scores of one HealthLoopQA run.

    Attributes:
        result: The JSON-ready result (:meth:`to_dict`).
    """

    result: Mapping[str, Any]

    def to_dict(self) -> dict[str, Any]:
        """The result in the one score schema (:data:`SCORE_JSON_SCHEMA`), kind ``healthloopqa``.

        ``score``, ``ci_low``, ``ci_high`` (``ci_method`` ``patient_bootstrap``), ``n``,
        ``parse_failures``, ``breakdowns`` (:data:`CGM_BREAKDOWNS`), each breakdown also on top;
        ``judges`` (one block per judge spec and prompt version, grades on 1–5) only when the
        run has judgements. Scores are on 0–100; ``docs/cgm-eval.md`` lists every key.
        """
        return dict(self.result)

    def summary_line(self) -> str:
        """One line: model, score with its interval, n, parse failures, errors."""
        r = self.result
        return (
            f"{r['model']}: score {_f(r['score'])} [{_f(r['ci_low'])}, {_f(r['ci_high'])}] on 0-100, "
            f"n={r['n']}, parse failures {r['parse_failures']}, errors {r['errors']}, missing {r['missing']}"
        )

    def to_text(self) -> str:
        """The Table 2 shape (PM/AD/PD × levels, overall), one row per template, the judges' grades."""
        r = self.result
        lines = [f"{r['run_id']}  {r['setting']}  HealthLoopQA", self.summary_line(), ""]
        lines.append(f"{'family':<8}" + "".join(f"{lv:>14}" for lv in LEVELS) + f"{'all':>14}")
        for fam in TABLE_FAMILIES:
            cells = [r["by_family_level"].get(f"{fam}/{lv}") for lv in LEVELS]
            lines.append(
                f"{fam.upper():<8}" + "".join(_cell(c) for c in cells) + _cell(r["by_family"].get(fam))
            )
        overall = [r["by_level"].get(lv) for lv in LEVELS]
        lines.append(f"{'overall':<8}" + "".join(_cell(c) for c in overall) + _cell(r))
        lines += [
            "",
            f"{'template':<10}{'level':<13}{'metric':<15}{'n':>5}{'score':>8}{'value':>10}{'parse':>7}",
        ]
        for tid, t in r["by_template"].items():
            m = r["template_metrics"][tid]
            lines.append(
                f"{tid:<10}{m['level']:<13}{m['metric']:<15}{t['n']:>5}{_f(t['score']):>8}"
                f"{_f(m['value'], 3):>10}{t['parse_failures']:>7}"
            )
        for block in r.get("judges", ()):
            lines += ["", *judge_lines(block)]
        return "\n".join(lines)


def _f(x: float | None, digits: int = 1) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def _cell(group: Mapping[str, Any] | None) -> str:
    if not group or not group.get("n"):
        return f"{'–':>14}"
    return f"{_f(group['score']):>7} ({group['n']:>4})"


def _scored(item: CGMItem, row: ResultRow) -> tuple[float, bool, Any]:
    """(0–100 score, parse failed, the metric's own value or None) of one stored row."""
    if row.error is not None:
        return 0.0, False, None
    parsed: Parsed = extract_answer(row.response, item.answer_type)
    s = score_item(parsed, item.answer, item.answer_type, item.metric)
    return s.score, s.parse_failed, s.value


def score_cgm_run(
    info: RunInfo,
    rows: Iterable[ResultRow],
    items: Sequence[CGMItem],
    *,
    judgements: Iterable[Judgement] = (),
    seed: int = 0,
    n_boot: int = 2000,
) -> CGMRunScore:
    """Score a HealthLoopQA run's rows against the items it covers.

    Args:
        info: The run.
        rows: Its stored rows.
        items: The items the run covers (:func:`~wearbench.runner.cgm_run_items`); those without
            a row are reported as missing, not scored.
        judgements: The run's LLM-judge grades (``RunStore.judgements``); with any, the result
            gets ``judges`` (:func:`~wearbench.scoring._cgm_judge.judge_blocks`).
        seed: Bootstrap seed.
        n_boot: Bootstrap replicates.

    Raises:
        WearbenchError: If a row names an item the run does not cover, or a judgement another run.
    """
    by_id = {i.id: i for i in items}
    scored: list[dict[str, Any]] = []
    values: dict[str, list[float]] = defaultdict(list)
    errors = 0
    stored = sorted(rows, key=lambda r: r.item_id)
    for row in stored:
        item = by_id.get(row.item_id)
        if item is None:
            raise WearbenchError(
                f"run {info.run_id}: row for item {row.item_id!r}, which the run does not cover"
            )
        score, failed, value = _scored(item, row)
        errors += row.error is not None
        if value is not None and math.isfinite(value):
            values[item.template].append(float(value))
        scored.append(
            {"family": item.family, "level": item.level, "template": item.template, "atomic": item.abilities,
             "patient": item.user_id, "score": score, "parse_failed": failed}
        )  # fmt: skip
    out = healthloopqa_breakdown(scored, seed=seed, n_boot=n_boot)
    cells: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for r in scored:
        cells[f"{r['family']}/{r['level']}"].append(r)
    out["by_family_level"] = {
        k: _summary(v, seed=seed, n_boot=n_boot, level=0.95) for k, v in sorted(cells.items())
    }
    out["template_metrics"] = _template_metrics(items, values)
    out["ci_method"] = "patient_bootstrap"
    out["breakdowns"] = {k: out[k] for k in CGM_BREAKDOWNS}
    out.update(
        run_id=info.run_id, model=info.model, setting=info.setting.key(), bench=info.bench, errors=errors,
        n_items=len(items), missing=len(set(by_id) - {r.item_id for r in stored}),
    )  # fmt: skip
    judges = judge_blocks(info.run_id, judgements, seed=seed, n_boot=n_boot)
    if judges:
        out["judges"] = judges
    return CGMRunScore(out)


def _template_metrics(
    items: Sequence[CGMItem], values: Mapping[str, list[float]]
) -> dict[str, dict[str, Any]]:
    """Per template: family, level, answer type, metric and the mean metric value over its parsed answers."""
    out: dict[str, dict[str, Any]] = {}
    for item in items:
        if item.template not in out:
            v = values.get(item.template, [])
            out[item.template] = {
                "family": item.family, "level": item.level, "answer_type": item.answer_type,
                "metric": item.metric, "value": math.fsum(v) / len(v) if v else None,
            }  # fmt: skip
    return out


def is_cgm_run(info: RunInfo) -> bool:
    """Whether a run was made on a HealthLoopQA benchmark."""
    return info.params.get("bench_kind") == KIND or is_cgm_benchmark(info.bench)


def score_cgm(
    info: RunInfo,
    rows: Sequence[ResultRow],
    *,
    judgements: Iterable[Judgement] = (),
    seed: int = 0,
    n_boot: int = 2000,
) -> CGMRunScore:
    """Score a HealthLoopQA run from its benchmark folder (whose ``items.jsonl`` must be unchanged).

    ``judgements`` (the run's LLM-judge grades) add the ``judges`` blocks, as in :func:`score_cgm_run`.

    Raises:
        WearbenchError: If the benchmark is missing or altered.
    """
    items, digest = open_cgm_bench(Path(info.bench))
    if digest != info.bench_hash:
        raise WearbenchError(
            f"run {info.run_id}: {info.bench}/items.jsonl changed since the run (hash differs)"
        )
    covered = cgm_run_items(info, items)
    return score_cgm_run(info, rows, covered, judgements=judgements, seed=seed, n_boot=n_boot)
