"""The OpenMHC imputation part of the evaluation report: one block of sections per track run.

A track run is a RESULTS folder (``wearbench track impute``) or a track run recorded in a run
store (``RunStore.add_track_results``); both give the same ``(manifest, errors)``, scored as
:func:`~wearbench.scoring.score_imputation_results` does (the numbers of ``wearbench track score
--format json``). Runs are tagged T1, T2 … in the order given. Sections per run:

- skill: one row per method, one column per scope (Overall, Activity, Physiology, Sleep,
  Workout, Semantic), each cell the skill against the reference with its participant-bootstrap
  95% interval;
- rank: the same shape, each cell the method's average rank (ties averaged);
- per channel: the mean MAE per method and continuous channel over every (approach,
  participant) record of ``results.jsonl``, and the mean AUROC per binary channel likewise;
- a figure of the skill cells (a marker per method, interval whiskers);
- the example day, when the run has an ``example.npz``: the truth, the masked span and each
  method's imputation of the masked cells (no section without one).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from wearbench.report import _eval_html as H
from wearbench.report import _track_html as T
from wearbench.report._track_example import load_example
from wearbench.runner import RunStore, read_example_bytes, track_run_id
from wearbench.scoring import imputation_skill
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


@dataclass(frozen=True)
class TrackSource:
    """One track run to report, from a RESULTS folder or a run store.

    Attributes:
        where: The RESULTS folder, or ``RUNDIR/runs.sqlite: <track run id>``.
        run_id: Track run id (:func:`~wearbench.runner.track_run_id` of the manifest).
        manifest: The RESULTS manifest.
        errors: Its :class:`~wearbench.tracks.ImputationError` rows, in ``results.jsonl`` order.
        example: The ``example.npz`` bytes, if the run wrote one.
    """

    where: str
    run_id: str
    manifest: dict[str, Any]
    errors: list[ImputationError]
    example: bytes | None


def folder_source(path: str | os.PathLike[str]) -> TrackSource:
    """The track run of a RESULTS folder (results checked against the manifest's hashes)."""
    manifest, errors = read_imputation_results(path)
    example = read_example_bytes(path, manifest)
    return TrackSource(str(path), track_run_id(manifest), manifest, errors, example)


def store_sources(store: RunStore) -> list[TrackSource]:
    """Every track run recorded in a run store, in the order recorded."""
    out = []
    for run in store.track_runs():
        manifest, errors = store.track_results(run.run_id)
        where = f"{store.path}: {run.run_id}"
        out.append(TrackSource(where, run.run_id, manifest, errors, store.track_example(run.run_id)))
    return out


def score_source(source: TrackSource, baseline: str, seed: int, n_boot: int) -> dict[str, Any]:
    """The ``track score --format json`` dict of a track run (as ``score_imputation_results``)."""
    out = imputation_skill(source.errors, baseline, seed=seed, n_boot=n_boot).to_dict()
    out["seed"] = seed
    out["results_sha256"] = source.manifest.get("results", {}).get("sha256")
    return out


def channel_errors(
    errors: Sequence[ImputationError], kind: str = "mae"
) -> dict[tuple[str, int], tuple[float, int]]:
    """Mean MAE (or AUROC) per ``(method, channel)`` over its participant × approach records.

    Args:
        errors: The records of ``results.jsonl``.
        kind: ``"mae"`` (continuous channels) or ``"auroc"`` (binary channels).

    Returns:
        ``(method, channel)`` → ``(mean value, number of records)``; records of the other kind
        are left out.
    """
    sums: dict[tuple[str, int], list[float]] = {}
    for e in errors:
        if e.kind == kind:
            sums.setdefault((e.method, e.channel), []).append(e.value)
    return {k: (sum(v) / len(v), len(v)) for k, v in sums.items()}


def _figure(scored: dict[str, Any]) -> str:
    from wearbench.report._eval_plots import figure_uri
    from wearbench.report._track_plots import plot_skill_scopes

    return H.figure(figure_uri(plot_skill_scopes(scored)), "imputation skill per scope")


def _example(source: TrackSource) -> str:
    """The example-day figure, or "" without an example."""
    if source.example is None:
        return ""
    from wearbench.report._eval_plots import figure_uri
    from wearbench.report._track_plots import plot_example_day

    ex = load_example(source.example, f"{source.where}: example.npz")
    caption = f"{ex.user}, {ex.date}, {ex.approach}; methods {', '.join(ex.methods)}"
    return H.figure(figure_uri(plot_example_day(ex)), "example day with mask and imputations", caption)


def _meta(name: str, source: TrackSource, scored: dict[str, Any], baseline: str, seed: int) -> list[str]:
    manifest = source.manifest
    split = manifest.get("split", {})
    return [
        f"{name}: {source.where} ({', '.join(manifest.get('methods', []))}; {scored['n_participants']} test "
        f"participants of {split.get('n_users', '?')} users, {split.get('test_days', '?')} test days; "
        f"approaches {', '.join(manifest.get('approaches', []))}; mask seed {manifest.get('seed')})",
        f"{name} skill: against {baseline}; 95% participant-bootstrap percentile intervals "
        f"({scored['n_boot']} replicates, seed {seed}, one draw matrix for every method).",
    ]


def _one(tag: str, source: TrackSource, baseline: str, seed: int, n_boot: int, several: bool) -> Parts:
    scored = score_source(source, baseline, seed, n_boot)
    sid = f"track-{tag.lower()}"
    name = f"OpenMHC imputation {tag}" if several else "OpenMHC imputation"
    methods = list(scored["methods"])
    errors = source.errors
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
        (f"{sid}-auroc", f"{name}: per-channel AUROC",
         T.channel_table(channel_errors(errors, "auroc"), methods, baseline, f"{sid}-auroc-table",
                         kind="auroc"),
         "Mean AUROC (higher is better) over every participant and approach scored, per binary "
         "channel with a record (single-class channels and the semantic approaches score none)."),
        (f"{sid}-figure", f"{name}: skill figure", _figure(scored),
         "The skill cells: one marker per method, whiskers the 95% CI; dashed: the reference."),
        (f"{sid}-example", f"{name}: example day", _example(source),
         "One test day: the truth (black), the artificially masked cells (shaded) and each "
         "method's imputation of them; binary channels as a strip (dark 1, light 0, yellow masked)."),
    ]  # fmt: skip
    sections = [(s, title, H.section(s, title, body, intro)) for s, title, body, intro in specs if body]
    return _meta(name, source, scored, baseline, seed), sections


def track_parts(
    results: Sequence[TrackSource | str | os.PathLike[str]],
    *,
    baseline: str = "locf",
    seed: int = 0,
    n_boot: int = 1000,
) -> Parts:
    """Meta lines and sections of imputation track runs (call inside ``plot_style()``).

    Args:
        results: Track runs (:class:`TrackSource`) or RESULTS folders of ``wearbench track
            impute``; tagged T1, T2 … in this order.
        baseline: Reference method of the skill score (the seed: LOCF).
        seed: Seed of the participant-draw matrix.
        n_boot: Bootstrap replicates.

    Raises:
        WearbenchError: For an unreadable folder or example, or a baseline a run lacks.
    """
    meta: list[str] = []
    sections: list[Section] = []
    sources = [r if isinstance(r, TrackSource) else folder_source(r) for r in results]
    for n, source in enumerate(sources, start=1):
        m, s = _one(f"T{n}", source, baseline, seed, n_boot, len(sources) > 1)
        meta += m
        sections += s
    return meta, sections
