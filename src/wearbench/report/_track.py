"""The OpenMHC part of the evaluation report: one block of sections per track run, any of three tracks.

A track run is a RESULTS folder (``wearbench track impute``, ``track forecast`` or ``track
predict``) or a track run recorded in a run store (``RunStore.add_track_results``); both give the
same ``(manifest, records)``, scored by :func:`~wearbench.scoring.score_track_records` (the numbers
of ``wearbench track score --format json``, one schema for all three tracks). Runs are tagged T1,
T2 … in the order given; the reference is each track's own (LOCF, seasonal naive, Linear) unless
one is passed. Sections per run:

- skill: one row per method, one column per scope (imputation: Overall, Activity, Physiology,
  Sleep, Workout, Semantic; forecasting: Overall and the four categories; outcomes: Overall and
  the domains present), each cell the skill against the reference with its bootstrap 95% interval;
- rank: the same shape, each cell the method's average rank (ties averaged);
- the track's own detail: imputation and forecasting the mean MAE per method and continuous
  channel and the mean AUROC per binary channel (over every participant record, and approach for
  imputation); outcomes the metric per method and task (AUPRC, Spearman, Pearson or accuracy)
  with the test participants it is computed on;
- a figure of the skill cells (a marker per method, interval whiskers);
- imputation only: the example day, when the run has an ``example.npz``.
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
from wearbench.runner import RunStore, TrackRecord, read_example_bytes, read_track_folder, track_run_id
from wearbench.scoring import score_track_records
from wearbench.tracks import (
    FORECAST_RESULTS_KIND,
    OUTCOME_RESULTS_KIND,
    RESULTS_KIND,
    RUN_MANIFEST,
    ForecastError,
    ImputationError,
)

Section = tuple[str, str, str]
Parts = tuple[list[str], list[Section]]
#: Manifest kind → the track's name on the page.
TRACK_TITLES = {
    RESULTS_KIND: "imputation",
    FORECAST_RESULTS_KIND: "forecasting",
    OUTCOME_RESULTS_KIND: "outcome prediction",
}


def is_track_results(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a track RESULTS folder (its ``manifest.json`` has one of the three kinds)."""
    file = Path(path) / RUN_MANIFEST
    if not file.is_file():
        return False
    try:
        doc = json.loads(file.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(doc, dict) and doc.get("kind") in TRACK_TITLES


@dataclass(frozen=True)
class TrackSource:
    """One track run to report, from a RESULTS folder or a run store.

    Attributes:
        where: The RESULTS folder, or ``RUNDIR/runs.sqlite: <track run id>``.
        run_id: Track run id (:func:`~wearbench.runner.track_run_id` of the manifest).
        manifest: The RESULTS manifest.
        errors: Its records (:class:`~wearbench.tracks.ImputationError`,
            :class:`~wearbench.tracks.ForecastError` or :class:`~wearbench.tracks.OutcomePrediction`),
            in results-file order.
        example: The ``example.npz`` bytes, if the run wrote one.
    """

    where: str
    run_id: str
    manifest: dict[str, Any]
    errors: list[TrackRecord]
    example: bytes | None

    @property
    def kind(self) -> str:
        """The manifest's ``kind``."""
        return str(self.manifest.get("kind"))


def folder_source(path: str | os.PathLike[str]) -> TrackSource:
    """The track run of a RESULTS folder (results checked against the manifest's hashes)."""
    manifest, errors = read_track_folder(path)
    example = read_example_bytes(path, manifest)
    return TrackSource(str(path), track_run_id(manifest), manifest, errors, example)


def store_sources(store: RunStore) -> list[TrackSource]:
    """Every track run recorded in a run store, in the order recorded."""
    out = []
    for run in store.track_runs():
        manifest, errors = store.track_records(run.run_id)
        where = f"{store.path}: {run.run_id}"
        out.append(TrackSource(where, run.run_id, manifest, errors, store.track_example(run.run_id)))
    return out


def score_source(source: TrackSource, baseline: str | None, seed: int, n_boot: int) -> dict[str, Any]:
    """The ``track score --format json`` dict of a track run (as ``score_track_results``)."""
    return score_track_records(source.manifest, source.errors, baseline, seed=seed, n_boot=n_boot)


def channel_errors(
    errors: Sequence[TrackRecord], kind: str = "mae"
) -> dict[tuple[str, int], tuple[float, int]]:
    """Mean MAE (or AUROC) per ``(method, channel)`` over its participant (× approach) records.

    Args:
        errors: The records of ``results.jsonl`` (imputation or forecasting; others are skipped).
        kind: ``"mae"`` (continuous channels) or ``"auroc"`` (binary channels).

    Returns:
        ``(method, channel)`` → ``(mean value, number of records)``; records of the other kind
        are left out.
    """
    sums: dict[tuple[str, int], list[float]] = {}
    for e in errors:
        if isinstance(e, ImputationError | ForecastError) and e.kind == kind:
            sums.setdefault((e.method, e.channel), []).append(e.value)
    return {k: (sum(v) / len(v), len(v)) for k, v in sums.items()}


def _figure(scored: dict[str, Any], track: str) -> str:
    from wearbench.report._eval_plots import figure_uri
    from wearbench.report._track_plots import plot_skill_scopes

    return H.figure(figure_uri(plot_skill_scopes(scored)), f"{track} skill per scope")


def _example(source: TrackSource) -> str:
    """The example-day figure, or "" without an example."""
    if source.example is None:
        return ""
    from wearbench.report._eval_plots import figure_uri
    from wearbench.report._track_plots import plot_example_day

    ex = load_example(source.example, f"{source.where}: example.npz")
    caption = f"{ex.user}, {ex.date}, {ex.approach}; methods {', '.join(ex.methods)}"
    return H.figure(figure_uri(plot_example_day(ex)), "example day with mask and imputations", caption)


def _describe(manifest: dict[str, Any]) -> str:
    """The track-specific part of a run's meta line."""
    split = manifest.get("split", {})
    kind = manifest.get("kind")
    users = f"of {split.get('n_users', '?')} users"
    if kind == FORECAST_RESULTS_KIND:
        h, hist, seed = manifest.get("horizon"), manifest.get("history"), manifest.get("seed")
        windows = split.get("test_windows", "?")
        return f"{users}, {windows} test windows; horizon {h} h, history {hist} h; seed {seed}"
    if kind == OUTCOME_RESULTS_KIND:
        return f"{users}; tasks {', '.join(manifest.get('tasks', {}))}; split seed {manifest.get('seed')}"
    return (f"{users}, {split.get('test_days', '?')} test days; approaches "
            f"{', '.join(manifest.get('approaches', []))}; mask seed {manifest.get('seed')}")  # fmt: skip


def _meta(name: str, source: TrackSource, scored: dict[str, Any], seed: int) -> list[str]:
    manifest = source.manifest
    return [
        f"{name}: {source.where} ({', '.join(manifest.get('methods', []))}; {scored['n_participants']} test "
        f"participants {_describe(manifest)})",
        f"{name} skill: against {scored['baseline']}; 95% participant-bootstrap percentile intervals "
        f"({scored['n_boot']} replicates, seed {seed}, one draw matrix for every method).",
    ]


def _detail(
    sid: str, name: str, source: TrackSource, scored: dict[str, Any]
) -> list[tuple[str, str, str, str]]:
    """The track's own detail sections: per-channel errors, or per-task metrics."""
    methods = list(scored["methods"])
    baseline = scored["baseline"]
    if source.kind == OUTCOME_RESULTS_KIND:
        return [
            (f"{sid}-tasks", f"{name}: per-task metrics",
             T.task_table(scored["breakdowns"]["by_task"], methods, baseline, f"{sid}-task-table"),
             "The task's metric (AUPRC, Spearman, Pearson; multiclass accuracy, kept out of the skill) "
             "on the whole test cohort, with the test participants it includes (n)."),
        ]  # fmt: skip
    over = "participant and masking approach" if source.kind == RESULTS_KIND else "test participant"
    errors = source.errors
    return [
        (f"{sid}-channels", f"{name}: per-channel errors",
         T.channel_table(channel_errors(errors), methods, baseline, f"{sid}-channel-table"),
         f"Mean MAE over every {over}, per continuous channel, in the channel's unit "
         f"({'per minute' if source.kind == RESULTS_KIND else 'per hour'})."),
        (f"{sid}-auroc", f"{name}: per-channel AUROC",
         T.channel_table(channel_errors(errors, "auroc"), methods, baseline, f"{sid}-auroc-table",
                         kind="auroc"),
         f"Mean AUROC (higher is better) over every {over} scored, per binary channel with a record "
         "(single-class channels score none)."),
    ]  # fmt: skip


def _one(tag: str, source: TrackSource, baseline: str | None, seed: int, n_boot: int, several: bool) -> Parts:
    scored = score_source(source, baseline, seed, n_boot)
    track = TRACK_TITLES[source.kind]
    sid = f"track-{tag.lower()}"
    name = f"OpenMHC {track} {tag}" if several else f"OpenMHC {track}"
    ref = scored["baseline"]
    specs = [
        (f"{sid}-skill", f"{name}: skill", T.skill_table(scored, f"{sid}-skill-table"),
         f"Skill against {ref} (0: as good as it; 1: no error; negative: worse) per scope, [95% CI]."),
        (f"{sid}-rank", f"{name}: rank", T.rank_table(scored, f"{sid}-rank-table"),
         "Average rank per scope (1 = best; ties averaged); bold: the best in a scope."),
        *_detail(sid, name, source, scored),
        (f"{sid}-figure", f"{name}: skill figure", _figure(scored, track),
         "The skill cells: one marker per method, whiskers the 95% CI; dashed: the reference."),
        (f"{sid}-example", f"{name}: example day", _example(source),
         "One test day: the truth (black), the artificially masked cells (shaded) and each "
         "method's imputation of them; binary channels as a strip (dark 1, light 0, yellow masked)."),
    ]  # fmt: skip
    sections = [(s, title, H.section(s, title, body, intro)) for s, title, body, intro in specs if body]
    return _meta(name, source, scored, seed), sections


def track_parts(
    results: Sequence[TrackSource | str | os.PathLike[str]],
    *,
    baseline: str | None = None,
    seed: int = 0,
    n_boot: int = 1000,
) -> Parts:
    """Meta lines and sections of track runs of any of the three tracks (call inside ``plot_style()``).

    Args:
        results: Track runs (:class:`TrackSource`) or RESULTS folders of ``wearbench track
            impute|forecast|predict``; tagged T1, T2 … in this order.
        baseline: Reference method of the skill score; None = each track's own
            (:func:`~wearbench.scoring.default_baseline`: LOCF, seasonal naive, Linear).
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
