"""Command line for OpenMHC's minute-level tracks: ``wearbench track ...``.

Commands: synth-minutes, preprocess, impute, forecast, predict, score, run (a grid). They only parse
arguments; the work is one public function each (``sources.synthesize_minutes``, ``tracks.preprocess_cohort``,
``tracks.run_imputation``, ``tracks.run_forecast``, ``tracks.run_predict``, ``scoring.score_track_results``,
``runner.run_track_grid`` then ``report.report_runs``).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from wearbench._cli_util import _progress_bar, executor_option

if TYPE_CHECKING:
    from wearbench.executors import DaskExecutor, LocalExecutor

__all__ = ["track_group"]


@click.group("track")
def track_group() -> None:
    """OpenMHC minute-level tracks: minute data, preprocessing, imputation and scoring."""


@track_group.command("synth-minutes")
@click.option("--users", "n_users", type=click.IntRange(min=1), default=20, show_default=True,
              help="Number of users.")  # fmt: skip
@click.option("--days", "n_days", type=click.IntRange(min=1), default=30, show_default=True,
              help="Days per user.")  # fmt: skip
@click.option(
    "--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Fixes every output byte."
)
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Minute-cohort folder to write.")
@click.option("--start", default="2024-01-01", show_default=True, help="First calendar day (ISO).")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def synth_minutes_cmd(n_users: int, n_days: int, seed: int, out: Path, start: str, quiet: bool) -> None:
    """Write synthetic minute data (19 channels) for the daily synthetic users to OUT."""
    from wearbench._api import synth_minutes
    from wearbench.minutes import read_minute_manifest

    with _progress_bar("expanding users to minutes", not quiet, then="finishing the manifest") as progress:
        synth_minutes(n_users, n_days, seed, out=out, start=start, progress=progress)
    manifest = read_minute_manifest(out)
    click.echo(
        f"wrote {out} ({n_users} users x {n_days} days x 19 channels x 1440 minutes), "
        f"content_hash {manifest['content_hash']}"
    )


@track_group.command("preprocess")
@click.option("--data", "data", type=click.Path(path_type=Path), required=True, help="Minute-cohort folder.")
@click.option("--limit-users", type=click.IntRange(min=1), default=None, help="Only the first N users.")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="A table, or JSON with per-user counts and totals.")  # fmt: skip
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@executor_option("the users' day counts (one user per task)")
def preprocess_cmd(
    data: Path, limit_users: int | None, fmt: str, quiet: bool, executor: LocalExecutor | DaskExecutor
) -> None:
    """Count each user's days kept and dropped by the wear and low-variance filters."""
    from wearbench.tracks import preprocess_cohort

    with executor, _progress_bar("preprocessing users", not quiet and fmt == "text") as progress:
        counts = preprocess_cohort(data, limit_users=limit_users, progress=progress, executor=executor)
    keys = ("n_days", "wear_dropped", "variance_dropped", "retained")
    totals = {k: sum(int(getattr(c, k)) for c in counts) for k in keys}
    if fmt == "json":
        doc = {"data": str(data), "users": [c.to_dict() for c in counts], "total": totals}
        click.echo(json.dumps(doc, indent=2))
        return
    click.echo(f"{'user':<12} {'days':>6} {'wear_dropped':>13} {'variance_dropped':>17} {'retained':>9}")
    rows = [(c.user_id, *(int(getattr(c, k)) for k in keys)) for c in counts]
    for uid, n, w, v, r in [*rows, ("total", *totals.values())]:
        click.echo(f"{uid:<12} {n:>6} {w:>13} {v:>17} {r:>9}")


@track_group.command("impute")
@click.option("--data", "data", type=click.Path(path_type=Path), required=True, help="Minute-cohort folder.")
@click.option("--methods", required=True, help="Comma-separated imputation methods (locf,mean,linear,…).")
@click.option("--out", type=click.Path(path_type=Path), required=True, help="RESULTS folder to write.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Split and masks.")
@click.option("--limit-users", type=click.IntRange(min=2), default=None, help="Only the first N users.")
@click.option("--max-days", type=click.IntRange(min=1), default=None, help="At most N retained days a user.")
@click.option("--test-share", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.2,
              show_default=True, help="Share of users in the test split.")  # fmt: skip
@click.option("--approaches", default=None, help="Comma-separated masking approaches (default: all six).")
@click.option(
    "--epochs",
    type=click.IntRange(min=1),
    default=5,
    show_default=True,
    help="Training epochs of learned methods (saits, brits, dlinear, timesnet, dlinear_7d).",
)
@click.option(
    "--max-train-days",
    type=click.IntRange(min=1),
    default=1000,
    show_default=True,
    help="Learned methods train on at most N training days (a seeded choice).",
)
@click.option(
    "--threads", type=click.IntRange(min=1), default=None, help="torch CPU threads (learned methods)."
)
@click.option("--store", "store", type=click.Path(path_type=Path), default=None,
              help="Record the results in RUNDIR/runs.sqlite (default: OUT/runs.sqlite).")  # fmt: skip
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@executor_option("the users' reading and preprocessing (one user per task)")
def impute_cmd(
    data: Path,
    methods: str,
    out: Path,
    seed: int,
    limit_users: int | None,
    max_days: int | None,
    test_share: float,
    approaches: str | None,
    epochs: int,
    max_train_days: int,
    threads: int | None,
    store: Path | None,
    quiet: bool,
    executor: LocalExecutor | DaskExecutor,
) -> None:
    """Run the imputation track on a minute cohort: split, masks, methods, per-participant errors.

    Learned methods need the [learn] extra (PyPOTS, torch).
    """
    from wearbench.tracks import MASKING_APPROACHES, LearnedSettings, run_imputation

    chosen = _names(approaches) if approaches else list(MASKING_APPROACHES)
    with executor, _progress_bar("imputing users", not quiet) as progress:
        manifest = run_imputation(
            data, _names(methods), out, seed, test_share=test_share, approaches=chosen,
            max_days_per_user=max_days, limit_users=limit_users, progress=progress,
            learned=LearnedSettings(epochs=epochs, max_train_days=max_train_days, n_threads=threads),
            executor=executor,
        )  # fmt: skip
    split = manifest["split"]
    click.echo(
        f"wrote {out}: {manifest['results']['rows']} error rows, {split['n_train']} train / "
        f"{split['n_test']} test users ({split['train_days']} / {split['test_days']} retained days), "
        f"{manifest['seconds_total']:.1f} s"
    )
    _record(out, store)


@track_group.command("score")
@click.argument("results", type=click.Path(path_type=Path))
@click.option("--baseline", default=None,
              help="Reference method (skill 0); default locf, seasonal_naive or linear.")  # fmt: skip
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="Skill table per scope, or JSON (skill, ci_low, ci_high, rank).")  # fmt: skip
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Bootstrap draws.")
@click.option("--n-boot", type=click.IntRange(min=1), default=1000, show_default=True, help="Replicates B.")
def score_track_cmd(results: Path, baseline: str | None, fmt: str, seed: int, n_boot: int) -> None:
    """Skill score with participant-bootstrap 95% CIs and average rank, per method and scope."""
    from wearbench.scoring import score_track_results, skill_table

    scored = score_track_results(results, baseline, seed=seed, n_boot=n_boot)
    click.echo(json.dumps(scored, indent=2) if fmt == "json" else skill_table(scored), nl=fmt == "json")


@track_group.command("forecast")
@click.option("--data", "data", type=click.Path(path_type=Path), required=True, help="Minute-cohort folder.")
@click.option(
    "--methods",
    required=True,
    help="Comma-separated forecasting methods (seasonal_naive,linear,autoets,autoarima,dlinear,segrnn).",
)
@click.option("--out", type=click.Path(path_type=Path), required=True, help="RESULTS folder to write.")
@click.option("--horizon", type=click.Choice(["24", "48"]), default="24", show_default=True, help="Hours H.")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Split and origins.")
@click.option("--limit-users", type=click.IntRange(min=2), default=None, help="Only the first N users.")
@click.option("--test-share", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.2,
              show_default=True, help="Share of users in the test split.")  # fmt: skip
@click.option("--store", "store", type=click.Path(path_type=Path), default=None,
              help="Record the results in RUNDIR/runs.sqlite (default: OUT/runs.sqlite).")  # fmt: skip
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@executor_option("the users' reading, preprocessing and window draws (one user per task)")
def forecast_cmd(
    data: Path,
    methods: str,
    out: Path,
    horizon: str,
    seed: int,
    limit_users: int | None,
    test_share: float,
    store: Path | None,
    quiet: bool,
    executor: LocalExecutor | DaskExecutor,
) -> None:
    """Run the forecasting track on a minute cohort: split, origins, methods, per-participant errors."""
    from wearbench.tracks import run_forecast

    with executor, _progress_bar("forecasting users", not quiet) as progress:
        manifest = run_forecast(
            data, _names(methods), out, seed, int(horizon), test_share=test_share,
            limit_users=limit_users, progress=progress, executor=executor,
        )  # fmt: skip
    split = manifest["split"]
    click.echo(
        f"wrote {out}: {manifest['results']['rows']} error rows, {split['n_train']} train / "
        f"{split['n_test']} test users ({split['train_windows']} / {split['test_windows']} windows), "
        f"{manifest['seconds_total']:.1f} s"
    )
    _record(out, store)


@track_group.command("predict")
@click.option("--data", "data", type=click.Path(path_type=Path), required=True, help="Minute-cohort folder.")
@click.option("--methods", required=True, help="Comma-separated outcome methods (linear).")
@click.option("--out", type=click.Path(path_type=Path), required=True, help="RESULTS folder to write.")
@click.option("--tasks", default=None, help="Comma-separated tasks (default: every task the labels have).")
@click.option("--seed", type=click.IntRange(min=0), default=0, show_default=True, help="Split.")
@click.option("--limit-users", type=click.IntRange(min=2), default=None, help="Only the first N users.")
@click.option("--test-share", type=click.FloatRange(0, 1, min_open=True, max_open=True), default=0.2,
              show_default=True, help="Share of users in the test split.")  # fmt: skip
@click.option("--store", "store", type=click.Path(path_type=Path), default=None,
              help="Record the results in RUNDIR/runs.sqlite (default: OUT/runs.sqlite).")  # fmt: skip
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@executor_option("the users' reading, preprocessing and features (one user per task)")
def predict_cmd(
    data: Path, methods: str, out: Path, tasks: str | None, seed: int, limit_users: int | None,
    test_share: float, store: Path | None, quiet: bool, executor: LocalExecutor | DaskExecutor,
) -> None:  # fmt: skip
    """Run the outcome-prediction track: labels, split, windows, methods, per-user predictions."""
    from wearbench.tracks import run_predict

    with executor, _progress_bar("reading users", not quiet) as progress:
        manifest = run_predict(
            data, _names(methods), out, seed, _names(tasks) if tasks else None, test_share=test_share,
            limit_users=limit_users, progress=progress, executor=executor,
        )  # fmt: skip
    split = manifest["split"]
    click.echo(
        f"wrote {out}: {manifest['results']['rows']} predictions, {len(manifest['tasks'])} tasks, "
        f"{split['n_train']} train / {split['n_test']} test users, {manifest['seconds_total']:.1f} s"
    )
    _record(out, store)


def _record(out: Path, store: Path | None) -> None:
    from wearbench.runner import record_track_results

    run_id = record_track_results(out, store)
    click.echo(f"recorded as track run {run_id} in {(store or out) / 'runs.sqlite'}")


@track_group.command("run")
@click.option("--config", "config", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              required=True, help="Grid YAML: root, data, seeds, tracks.")  # fmt: skip
@click.option("--no-report", is_flag=True, help="Do not write ROOT/report.html.")
@click.option("--n-boot", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Bootstrap replicates of the report's skill intervals.")  # fmt: skip
@executor_option("the cells' per-user work (one user per task)")
def run_grid_cmd(config: Path, no_report: bool, n_boot: int, executor: LocalExecutor | DaskExecutor) -> None:
    """Run a track grid (tracks x data x seeds), skipping finished cells; then one report page."""
    from wearbench.report import report_runs
    from wearbench.runner import run_track_grid

    with executor:
        summary = run_track_grid(
            config, progress=lambda c: click.echo(f"{c.status}: {c.folder}", err=True), executor=executor
        )
    click.echo(summary.table(), nl=False)
    if not no_report:
        page = report_runs([c.folder for c in summary.cells], summary.config.root / "report.html",
                           track_n_boot=n_boot)  # fmt: skip
        click.echo(f"report: {page}")


def _names(text: str) -> list[str]:
    return [n.strip() for n in text.split(",") if n.strip()]


@track_group.command("import-minutes")
@click.argument("source", type=click.Choice(["apple-health", "fitabase", "pmdata"]))
@click.argument("path", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Minute-cohort folder to write.")
def import_minutes_cmd(source: str, path: tuple[Path, ...], out: Path) -> None:
    """Import real minute data (Apple Health exports, one Fitabase or PMData folder) into OUT."""
    from wearbench.sources.apple_health import apple_health_minutes
    from wearbench.sources.fitbit import fitabase_minutes, pmdata_minutes

    if source in ("fitabase", "pmdata"):
        if len(path) != 1:
            raise click.UsageError(f"{source} takes one folder")
        cohort = (fitabase_minutes if source == "fitabase" else pmdata_minutes)(path[0], out)
    else:
        cohort = apple_health_minutes(path, out)
    days = sum(u.values.shape[0] for u in cohort.users)
    click.echo(f"wrote {out} ({len(cohort.users)} users, {days} days x 19 channels x 1440 minutes)")
