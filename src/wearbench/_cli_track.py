"""Command line for OpenMHC's minute-level tracks: ``wearbench track synth-minutes``."""

from __future__ import annotations

from pathlib import Path

import click

from wearbench._cli_util import _progress_bar

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


@track_group.command("import-minutes")
@click.argument("source", type=click.Choice(["apple-health", "fitabase"]))
@click.argument("path", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Minute-cohort folder to write.")
def import_minutes_cmd(source: str, path: tuple[Path, ...], out: Path) -> None:
    """Import real minute data (Apple Health exports, or one Fitabase folder) into OUT."""
    from wearbench.sources.apple_health import apple_health_minutes
    from wearbench.sources.fitbit import fitabase_minutes

    if source == "fitabase":
        if len(path) != 1:
            raise click.UsageError("fitabase takes one folder")
        cohort = fitabase_minutes(path[0], out)
    else:
        cohort = apple_health_minutes(path, out)
    days = sum(u.values.shape[0] for u in cohort.users)
    click.echo(f"wrote {out} ({len(cohort.users)} users, {days} days x 19 channels x 1440 minutes)")
