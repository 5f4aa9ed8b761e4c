"""The OpenMHC imputation part of the evaluation report: one block of sections per RESULTS folder.

A RESULTS folder (``wearbench track impute``) is scored by
:func:`~wearbench.scoring.score_imputation_results` (the numbers of ``wearbench track score
--format json``). Folders are tagged T1, T2 … in the order given. Sections per folder:

- skill: one row per method, one column per scope (Overall, Activity, Physiology, Sleep,
  Workout, Semantic), each cell the skill against the reference with its participant-bootstrap
  95% interval;
- rank: the same shape, each cell the method's average rank (ties averaged);
- per channel: the mean MAE per method and continuous channel over every (approach,
  participant) record of ``results.jsonl``;
- a figure of the skill cells (a marker per method, interval whiskers).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from wearbench.report import _eval_html as H
from wearbench.report import _track_html as T
from wearbench.scoring import score_imputation_results
from wearbench.tracks import RESULTS_KIND, RUN_MANIFEST, ImputationError, read_imputation_results

Section = tuple[str, str, str]
Parts = tuple[list[str], list[Section]]


def is_track_results(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is an imputation RESULTS folder (its ``manifest.json`` has the results kind)."""
    file = Path(path) / RUN_MANIFEST
    if not file.is_file():
        return False
    try:
        doc = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(doc, dict) and doc.get("kind") == RESULTS_KIND


def channel_errors(errors: Sequence[ImputationError]) -> dict[tuple[str, int], tuple[float, int]]:
    """Mean MAE per ``(method, continuous channel)`` over its participant × approach records.

    Args:
        errors: The records of ``results.jsonl``.

    Returns:
        ``(method, channel)`` → ``(mean MAE, number of records)``; AUROC records are left out.
    """
    sums: dict[tuple[str, int], list[float]] = {}
    for e in errors:
        if e.kind == "mae":
            sums.setdefault((e.method, e.channel), []).append(e.value)
    return {k: (sum(v) / len(v), len(v)) for k, v in sums.items()}


def _figure(scored: dict[str, Any]) -> str:
    from wearbench.report._eval_plots import figure_uri
    from wearbench.report._track_plots import plot_skill_scopes

    return H.figure(figure_uri(plot_skill_scopes(scored)), "imputation skill per scope")


def _one(tag: str, path: Path, baseline: str, seed: int, n_boot: int, several: bool) -> Parts:
    manifest, errors = read_imputation_results(path)
    scored = score_imputation_results(path, baseline, seed=seed, n_boot=n_boot)
    sid = f"track-{tag.lower()}"
    name = f"OpenMHC imputation {tag}" if several else "OpenMHC imputation"
    split = manifest.get("split", {})
    meta = [
        f"{name}: {path} ({', '.join(manifest.get('methods', []))}; {scored['n_participants']} test "
        f"participants of {split.get('n_users', '?')} users, {split.get('test_days', '?')} test days; "
        f"approaches {', '.join(manifest.get('approaches', []))}; mask seed {manifest.get('seed')})",
        f"{name} skill: against {baseline}; 95% participant-bootstrap percentile intervals "
        f"({scored['n_boot']} replicates, seed {seed}, one draw matrix for every method).",
    ]
    methods = list(scored["methods"])
    specs = [
        (f"{sid}-skill", f"{name}: skill", T.skill_table(scored, f"{sid}-skill-table"),
         f"Skill against {baseline} (0: as good as it; 1: no error; negative: worse) per scope, "
         "[95% CI]."),
        (f"{sid}-rank", f"{name}: rank", T.rank_table(scored, f"{sid}-rank-table"),
         "Average rank per scope (1 = best; ties averaged); bold: the best in a scope."),
        (f"{sid}-channels", f"{name}: per-channel errors",
         T.channel_table(channel_errors(errors), methods, baseline, f"{sid}-channel-table"),
         "Mean MAE over every participant and masking approach, per continuous channel, in the "
         "channel's per-minute unit."),
        (f"{sid}-figure", f"{name}: skill figure", _figure(scored),
         "The skill cells: one marker per method, whiskers the 95% CI; dashed: the reference."),
    ]  # fmt: skip
    return meta, [(s, title, H.section(s, title, body, intro)) for s, title, body, intro in specs]


def track_parts(
    results: Sequence[str | os.PathLike[str]], *, baseline: str = "locf", seed: int = 0, n_boot: int = 1000
) -> Parts:
    """Meta lines and sections of imputation RESULTS folders (call inside ``plot_style()``).

    Args:
        results: RESULTS folders of ``wearbench track impute``; tagged T1, T2 … in this order.
        baseline: Reference method of the skill score (the seed: LOCF).
        seed: Seed of the participant-draw matrix.
        n_boot: Bootstrap replicates.

    Raises:
        WearbenchError: For an unreadable folder or a baseline a folder lacks.
    """
    meta: list[str] = []
    sections: list[Section] = []
    for n, path in enumerate(results, start=1):
        m, s = _one(f"T{n}", Path(path), baseline, seed, n_boot, len(results) > 1)
        meta += m
        sections += s
    return meta, sections
