"""The LLM judge's grades of a HealthLoopQA run, with patient-clustered intervals, for ``score``.

``wearbench cgm judge`` (``runner/_cgm_judge.py``) stores one judgement per answer, judge
spec and judge prompt version in the run store's ``judgements`` table. The runner's own
summary gives plain means only (it sits below ``scoring`` and cannot use its bootstrap); here
each judge gets one block of the score JSON (``judges``; ``docs/cgm-judge.md``):

- ``n`` answers judged (a reply came back), ``parsed``, ``parse_failures``, ``errors`` (no
  reply after retries) and ``patients``;
- per grade (1–5): the plain mean over the parsed judgements and its patient-clustered
  bootstrap 95% interval (a parse failure has no grades: counted, never scored);
- per failure type: how many parsed judgements name it and their share of the parsed ones;
  ``no_failure`` likewise for judgements that name none.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from wearbench._errors import WearbenchError
from wearbench.runner import FAILURE_TYPES, JUDGE_SCORES, Judgement, RunStore
from wearbench.scoring._bootstrap import cluster_bootstrap_ci

#: Readable names of the three grades.
GRADE_NAMES: dict[str, str] = {k: k.replace("_", " ") for k in JUDGE_SCORES}


def stored_judgements(rundir: str | Path, run_id: str) -> list[Judgement]:
    """Every judgement of one run in ``rundir/runs.sqlite`` (empty when it was never judged)."""
    with RunStore(rundir) as store:
        return store.judgements(run_id)


def _share(count: int, of: int) -> float | None:
    return count / of if of else None


def _grade(parsed: Sequence[Judgement], key: str, seed: int, n_boot: int) -> dict[str, Any]:
    """Mean of one grade (1–5) over the parsed judgements, its clustered 95% interval and n."""
    values = [float(getattr(j, key)) for j in parsed]
    if not values:
        return {"mean": None, "ci_low": None, "ci_high": None, "n": 0}
    lo, hi = cluster_bootstrap_ci([j.user_id for j in parsed], values, seed=seed, n_boot=n_boot)
    return {"mean": math.fsum(values) / len(values), "ci_low": lo, "ci_high": hi, "n": len(values)}


def judge_block(
    judge: str, version: str, rows: Sequence[Judgement], *, seed: int = 0, n_boot: int = 2000
) -> dict[str, Any]:
    """The score-JSON block of one judge spec and prompt version over one run's judgements.

    Args:
        judge: Canonical spec of the judge model.
        version: Judge prompt version.
        rows: That judge's judgements of the run.
        seed: Bootstrap seed.
        n_boot: Bootstrap replicates.

    Returns:
        ``{"judge", "prompt_version", "n", "parsed", "parse_failures", "errors", "patients",
        "ci_method", "grades": {grade: {"mean", "ci_low", "ci_high", "n"}},
        "failure_types": {type: {"count", "share"}}, "no_failure": {"count", "share"}}``; grades
        on 1–5 (None without a parsed judgement), shares of the parsed judgements in [0, 1].
    """
    answered = [r for r in rows if r.error is None]
    parsed = [r for r in answered if not r.parse_failed]
    k = len(parsed)

    def counted(count: int) -> dict[str, Any]:
        return {"count": count, "share": _share(count, k)}

    return {
        "judge": judge,
        "prompt_version": version,
        "n": len(answered),
        "parsed": k,
        "parse_failures": len(answered) - k,
        "errors": len(rows) - len(answered),
        "patients": len({r.user_id for r in answered}),
        "ci_method": "patient_bootstrap",
        "grades": {g: _grade(parsed, g, seed, n_boot) for g in JUDGE_SCORES},
        "failure_types": {t: counted(sum(t in r.failure_types for r in parsed)) for t in FAILURE_TYPES},
        "no_failure": counted(sum(not r.failure_types for r in parsed)),
    }


def judge_blocks(
    run_id: str, judgements: Iterable[Judgement], *, seed: int = 0, n_boot: int = 2000
) -> list[dict[str, Any]]:
    """One :func:`judge_block` per (judge spec, prompt version), sorted by both.

    Raises:
        WearbenchError: If a judgement belongs to another run.
    """
    groups: dict[tuple[str, str], list[Judgement]] = {}
    for j in judgements:
        if j.run_id != run_id:
            raise WearbenchError(f"run {run_id}: judgement of item {j.item_id} belongs to run {j.run_id}")
        groups.setdefault((j.judge, j.prompt_version), []).append(j)
    return [judge_block(j, v, rows, seed=seed, n_boot=n_boot) for (j, v), rows in sorted(groups.items())]


def _f(x: float | None, digits: int = 2) -> str:
    return "–" if x is None else f"{x:.{digits}f}"


def judge_lines(block: Mapping[str, Any]) -> list[str]:
    """A few text lines of one judge block (``wearbench score``)."""
    lines = [
        f"judge {block['judge']} ({block['prompt_version']}): {block['n']} judged, "
        f"{block['parse_failures']} parse failure(s), {block['errors']} error(s), "
        f"{block['patients']} patient(s)"
    ]
    for key, name in GRADE_NAMES.items():
        g = block["grades"][key]
        lines.append(f"  {name:<22}{_f(g['mean']):>6} [{_f(g['ci_low'])}, {_f(g['ci_high'])}] n={g['n']}")
    named = [
        f"{t} {c['count']} ({100 * c['share']:.1f}%)" for t, c in block["failure_types"].items() if c["count"]
    ]
    none = block["no_failure"]
    none_text = f"{none['count']}" + ("" if none["share"] is None else f" ({100 * none['share']:.1f}%)")
    lines.append(
        f"  failure types (of {block['parsed']} parsed): {', '.join(named) or '–'}; none named: {none_text}"
    )
    return lines
