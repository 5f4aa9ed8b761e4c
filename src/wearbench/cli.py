"""Command line: a thin layer over the Python API (:mod:`wearbench`).

User mistakes (bad paths, invalid cohorts, unknown names) print one line to stderr
and exit non-zero, without a traceback.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import click

from wearbench._errors import WearbenchError
from wearbench._version import __version__

__all__ = ["cli", "main"]


@contextmanager
def _progress_bar(label: str, enabled: bool) -> Iterator[Callable[[int, int], None] | None]:
    """Yield a ``(done, total)`` callback driving a rich progress bar on stderr."""
    if not enabled:
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    columns = (TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(label, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


def _show_progress(quiet: bool) -> bool:
    return not quiet and sys.stderr.isatty()


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="wearbench")
def cli() -> None:
    """Build, run and score health-reasoning benchmarks over wearable and CGM data."""


@cli.command()
@click.option("--users", "n_users", type=click.IntRange(min=1), default=200, show_default=True)
@click.option("--days", "n_days", type=click.IntRange(min=1), default=500, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True, help="Fixes every output byte.")
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Cohort folder to write.")
@click.option(
    "--reference-users",
    type=click.IntRange(min=0),
    default=5000,
    show_default=True,
    help="Size of the larger population behind the reference percentiles.",
)
@click.option("--start", default="2024-01-01", show_default=True, help="First calendar day (ISO).")
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def synth(
    n_users: int, n_days: int, seed: int, out: Path, reference_users: int, start: str, quiet: bool
) -> None:
    """Write a realistic synthetic cohort (the embedded default) to OUT."""
    from wearbench._api import synth as run_synth
    from wearbench.cohort import read_manifest

    with _progress_bar("synthesising users", _show_progress(quiet)) as progress:
        run_synth(
            n_users, n_days, seed, out=out, reference_users=reference_users, start=start, progress=progress
        )
    manifest = read_manifest(out)
    click.echo(f"wrote {out} ({n_users} users x {n_days} days), content_hash {manifest['content_hash']}")


@cli.command()
@click.argument("path", type=click.Path(path_type=Path))
def validate(path: Path) -> None:
    """Validate the cohort folder PATH; exit 1 with one line per problem."""
    from wearbench.cohort import validate_cohort

    report = validate_cohort(path)
    if report.ok:
        click.echo(f"{path}: valid")
        return
    for line in report.lines():
        click.echo(line)
    click.echo(f"{path}: {len(report.errors)} error(s), {len(report.repairs)} value(s) to repair", err=True)
    sys.exit(1)


@cli.command()
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True)
def describe(path: Path, fmt: str) -> None:
    """Per-metric distributions, missingness and correlations of the cohort at PATH."""
    from wearbench.cohort import describe_cohort, load_cohort, render_describe

    desc = describe_cohort(load_cohort(path))
    if fmt == "json":
        click.echo(json.dumps(desc, indent=2, sort_keys=True, allow_nan=False, default=_json_default))
    else:
        click.echo(render_describe(desc))


def _json_default(obj: Any) -> Any:
    raise TypeError(f"not JSON-serialisable: {type(obj).__name__}")


@cli.command()
@click.option("--out", type=click.Path(path_type=Path), default=Path("demo-output"), show_default=True)
@click.option("--users", "n_users", type=click.IntRange(min=2), default=50, show_default=True)
@click.option("--days", "n_days", type=click.IntRange(min=60), default=365, show_default=True)
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def demo(out: Path, n_users: int, n_days: int, seed: int, quiet: bool) -> None:
    """Synthesise a small cohort, validate and describe it, and write a report with plots."""
    from wearbench.report import run_demo

    with _progress_bar("demo", _show_progress(quiet)) as progress:
        result = run_demo(out, n_users=n_users, n_days=n_days, seed=seed, progress=progress)
    for line in result.summary_lines():
        click.echo(line)


@cli.command("list")
@click.argument("kind", type=click.Choice(["primitive"]), default="primitive")
@click.option(
    "--format", "fmt", type=click.Choice(["text", "markdown", "json"]), default="text", show_default=True
)
def list_registered(kind: str, fmt: str) -> None:
    """List registered KIND (primitives now; question types, adapters, loaders later)."""
    from wearbench._catalogue import render_catalogue

    click.echo(render_catalogue(kind, fmt), nl=False)


def main(argv: list[str] | None = None) -> None:
    """Console entry point: run the CLI, printing user errors without a traceback."""
    try:
        cli.main(args=argv, prog_name="wearbench", standalone_mode=False)
    except click.exceptions.Abort:
        click.echo("aborted", err=True)
        sys.exit(130)
    except click.ClickException as e:
        e.show()
        sys.exit(e.exit_code)
    except WearbenchError as e:
        click.echo(f"error: {e}", err=True)
        sys.exit(1)
    except SystemExit:
        raise
