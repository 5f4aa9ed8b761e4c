"""Command line: a thin layer over the Python API (:mod:`wearbench`).

User mistakes (bad paths, invalid cohorts, unknown names) print one line to stderr
and exit non-zero, without a traceback.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import sys
from pathlib import Path

import click

from wearbench._catalogue import RegistryChoice, render_catalogue
from wearbench._cli_cgm import cgm_group
from wearbench._cli_eval import eval_cmd, export_cmd, report_cmd, score_cmd
from wearbench._cli_import import import_cmd
from wearbench._cli_track import track_group
from wearbench._cli_util import _progress_bar, executor_option, note_line
from wearbench._errors import WearbenchError
from wearbench._registry import KINDS
from wearbench._version import __version__
from wearbench.executors import DaskExecutor, LocalExecutor

__all__ = ["cli", "main"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="wearbench")
def cli() -> None:
    """Build, run and score health-reasoning benchmarks over wearable and CGM data."""


@cli.command()
@click.option("--users", "n_users", type=click.IntRange(min=1), default=200, show_default=True,
              help="Number of users.")  # fmt: skip
@click.option("--days", "n_days", type=click.IntRange(min=1), default=500, show_default=True,
              help="Days per user.")  # fmt: skip
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
@click.option(
    "--shard-users",
    type=click.IntRange(min=1),
    default=None,
    help="Write a sharded cohort of N users per shard, one shard in memory at a time.",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def synth(
    n_users: int,
    n_days: int,
    seed: int,
    out: Path,
    reference_users: int,
    start: str,
    shard_users: int | None,
    quiet: bool,
) -> None:
    """Write a realistic synthetic cohort (the embedded default) to OUT."""
    from wearbench._api import synth as run_synth
    from wearbench.cohort import read_manifest

    with _progress_bar("synthesising users", not quiet, then="writing the cohort") as progress:
        if shard_users is None:
            run_synth(
                n_users,
                n_days,
                seed,
                out=out,
                reference_users=reference_users,
                start=start,
                progress=progress,
            )
        else:
            run_synth(
                n_users, n_days, seed, out=out, reference_users=reference_users, start=start,
                progress=progress, shard_users=shard_users,
            )  # fmt: skip
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
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="Output: readable text or JSON.")  # fmt: skip
def describe(path: Path, fmt: str) -> None:
    """Per-metric distributions, missingness and correlations of the cohort at PATH."""
    from wearbench.cohort import describe_cohort, load_cohort, render_describe

    desc = describe_cohort(load_cohort(path))
    if fmt == "json":
        click.echo(json.dumps(desc, indent=2, sort_keys=True, allow_nan=False))
    else:
        click.echo(render_describe(desc))


@cli.command()
@click.option("--out", type=click.Path(path_type=Path), default=Path("demo-output"), show_default=True,
              help="Folder for the cohort, benchmark, runs and reports.")  # fmt: skip
@click.option("--users", "n_users", type=click.IntRange(min=2), default=50, show_default=True,
              help="Number of synthetic users.")  # fmt: skip
@click.option("--days", "n_days", type=click.IntRange(min=60), default=365, show_default=True,
              help="Days per user.")  # fmt: skip
@click.option("--seed", type=int, default=0, show_default=True, help="Fixes every output byte.")
@click.option(
    "--local-model/--no-local-model",
    default=None,
    help="Also evaluate the bundled local GGUF model on a few items [default: if installed].",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def demo(out: Path, n_users: int, n_days: int, seed: int, local_model: bool | None, quiet: bool) -> None:
    """Synthesise a cohort, validate, describe, build and verify a benchmark, evaluate baselines, report."""
    from wearbench.report import DEMO_STAGES, run_demo

    with _progress_bar("demo", not quiet, stages=DEMO_STAGES) as progress:
        result = run_demo(
            out, n_users=n_users, n_days=n_days, seed=seed, local_model=local_model, progress=progress
        )
    for line in result.summary_lines():
        click.echo(line)


def _type_list(value: str | None) -> list[str] | None:
    return [t.strip() for t in value.split(",") if t.strip()] if value else None


@cli.command()
@click.option("--cohort", "cohort_dir", type=click.Path(path_type=Path), required=True, help="Cohort folder.")
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Benchmark folder to write.")
@click.option("--types", default=None, help="Comma-separated question types (default: all registered).")
@click.option(
    "--max-per-type", type=click.IntRange(min=1), default=None, help="Keep at most N items per type."
)
@click.option("--seed", type=int, default=0, show_default=True, help="Fixes every output byte.")
@click.option(
    "--workers", type=click.IntRange(min=1), default=None, help="Local processes (processes:N).  [default: 1]"
)
@click.option(
    "--executor",
    "executor_spec",
    default=None,
    help="Where per-user work runs: serial, processes:N, dask://HOST:PORT or dask-local:N"
    " (see docs/scale-out.md); the artifact is the same byte for byte.",
)
@click.option(
    "--match-official",
    is_flag=True,
    help="Subsample (seeded) to the official data/health, single/cross, literature/population shares.",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def build(
    cohort_dir: Path,
    out: Path,
    types: str | None,
    max_per_type: int | None,
    seed: int,
    workers: int | None,
    executor_spec: str | None,
    match_official: bool,
    quiet: bool,
) -> None:
    """Build a WearableQA-style benchmark from the cohort at COHORT into OUT."""
    from wearbench.bench import build_benchmark, type_names
    from wearbench.executors import executor_from_spec

    if workers is not None and executor_spec is not None:
        raise click.UsageError("give --workers N or --executor SPEC, not both (--workers N is processes:N)")
    names = type_names(_type_list(types))  # unknown names fail here, before any work
    executor = executor_from_spec(executor_spec or f"processes:{workers or 1}")
    then = "balancing, shortcut and prior audits, writing the benchmark"
    with executor, _progress_bar("generating users", not quiet, then=then) as progress:
        result = build_benchmark(
            cohort_dir,
            out,
            types=names,
            max_per_type=max_per_type,
            seed=seed,
            executor=executor,
            progress=progress,
            match_official=match_official,
        )
    counts = result.stats
    click.echo(f"wrote {result.n_items} items from {counts['n_users']} users to {out}")
    click.echo("by type: " + _counts(counts["by_type"]))
    for name, reasons in counts.get("zero_items", {}).items():
        click.echo(f"0 items for {name}: " + "; ".join(f"{r} ({n:,})" for r, n in reasons))
    for label, values in counts["by_label"].items():
        click.echo(f"{label}: " + _counts(values))
    if "match_official" in counts:
        mix = counts["match_official"]
        click.echo(f"matched to official shares: kept {mix['n_after']} of {mix['n_before']}")
        for axis, target in mix["target"].items():
            got = mix["achieved"][axis]
            click.echo(
                f"  {axis}: "
                + ", ".join(f"{v} {got.get(v, 0):.1%} (official {t:.1%})" for v, t in target.items())
            )
    for key, title in (("shortcut_audit", "text-only audit"), ("prior_audit", "knowledge-prior audit")):
        if key in counts:
            click.echo(f"{title} (no data, chance 0.100): " + _audit(counts[key]["by_type"]))


def _audit(by_type: dict[str, dict[str, float]]) -> str:
    """``type acc [lo-hi]`` per audited type (Wilson 95% CI)."""
    return ", ".join(
        f"{t} {a['accuracy']:.3f} [{a['lo']:.3f}-{a['hi']:.3f}]" for t, a in by_type.items() if a["n"]
    )


def _counts(values: dict[str, int]) -> str:
    return ", ".join(f"{k} {v}" for k, v in values.items()) or "none"


@cli.command()
@click.argument("bench", type=click.Path(path_type=Path))
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@executor_option("the items' graph replays (64 items of one or a few users per task)")
def verify(bench: Path, quiet: bool, executor: LocalExecutor | DaskExecutor) -> None:
    """Re-derive every answer of BENCH (from its graphs, or a CGM benchmark's data); exit 1 on a failure.

    The report is the same on every executor; a HealthLoopQA benchmark is verified serially.
    """
    from wearbench.bench import verify_benchmark
    from wearbench.cgmqa import is_cgm_benchmark

    if is_cgm_benchmark(bench):
        _verify_cgm(bench, quiet)
        return
    with _progress_bar("verifying items", not quiet) as progress, executor:
        report = verify_benchmark(bench, progress=progress, executor=executor)
    for item_id, reason in report.failures:
        click.echo(f"FAILED {item_id}: {reason}")
    ok = report.n_checked - len(report.failures)
    click.echo(f"verified {ok}/{report.n_checked} ({report.agreement:.3f})")
    if report.imported:
        click.echo(f"{len(report.imported)} item(s) not re-derivable (imported)")
    if report.failures:
        sys.exit(1)


def _verify_cgm(bench: Path, quiet: bool) -> None:
    """`verify` of a HealthLoopQA benchmark: every answer recomputed from the stored data folder."""
    from wearbench.cgmqa import verify_cgm_benchmark

    with _progress_bar("recomputing answers", not quiet) as progress:
        report = verify_cgm_benchmark(bench, progress=progress, note=None if quiet else note_line)
    for name, reason in report.file_failures:
        click.echo(f"FAILED file {name}: {reason}")
    for item_id, reason in report.failures:
        click.echo(f"FAILED {item_id}: {reason}")
    share = report.n_verified / report.n_items if report.n_items else 1.0
    click.echo(
        f"verified {report.n_verified}/{report.n_items} ({share:.3f}), {len(report.failures)} mismatch(es)"
    )
    if not report.ok:
        sys.exit(1)


@cli.command("export-official")
@click.argument("bench", type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(path_type=Path), required=True, help="JSON file to write.")
def export_official_cmd(bench: Path, out: Path) -> None:
    """Export BENCH to the official WearableQA_raw.json shape (docs/official-format.md).

    When the questions use more than one age band x sex reference, also writes one file per
    group (OUT.<band>.<sex>.json) for the official renderer, which shows one reference per file.
    """
    from wearbench.interop import export_official, export_official_groups

    export_official(bench, out)
    click.echo(f"wrote {out}")
    groups = export_official_groups(bench, out, only_if_several=True)
    if groups:
        click.echo(f"wrote {len(groups)} per-reference-group files: {', '.join(p.name for p in groups)}")


@cli.command("import-official")
@click.argument("file", type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Folder for cohort/ and bench/.")
def import_official_cmd(file: Path, out: Path) -> None:
    """Import an official-format FILE into OUT/cohort (canonical) and OUT/bench (items)."""
    from wearbench.interop import import_official

    result = import_official(file, out)
    click.echo(f"cohort: {result.cohort_dir} ({result.n_users} users)")
    click.echo(f"bench: {result.bench_dir} ({result.n_items} items, imported: not re-derivable)")


@cli.command()
@click.argument("bench", type=click.Path(path_type=Path))
@click.option("--solver", type=RegistryChoice("baseline"), default="random", show_default=True,
              help="A baseline (`wearbench list baseline`); oracle replays each item's graph.")  # fmt: skip
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of the baseline.")
def solve(bench: Path, solver: str, seed: int) -> None:
    """Score a baseline on BENCH: accuracy with a 95% Wilson interval.

    The same letters as `wearbench eval --model baseline:SOLVER --seed SEED`, without a run folder.
    """
    from wearbench.scoring import solve_benchmark

    result = solve_benchmark(bench, solver, seed=seed)
    click.echo(f"{solver}: accuracy {result.overall}")
    for name, acc in result.by_type.items():
        click.echo(f"  {name}: {acc}")
    if result.n_skipped:
        click.echo(f"{result.n_skipped} imported item(s) skipped (no graph to replay)")


@cli.command("list")
@click.argument("kind", type=click.Choice(KINDS), default="primitive")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "markdown", "json"]),
    default="text",
    show_default=True,
    help="Output: a plain list, a Markdown table or JSON.",
)
def list_registered(kind: str, fmt: str) -> None:
    """List what is registered under KIND (default: primitives)."""
    click.echo(render_catalogue(kind, fmt), nl=False)


for command in (eval_cmd, score_cmd, report_cmd, export_cmd, import_cmd, cgm_group, track_group):
    cli.add_command(command)


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


def entry() -> None:
    """``wearbench`` and ``python -m wearbench``: :func:`main`, then leave without C++ teardown.

    pyarrow's Parquet reader can leave a pool thread joinable when the interpreter tears down, and
    libstdc++ then aborts the finished process ("terminate called without an active exception",
    exit -6, after correct output; apache/arrow#34314, seen once in 3,000 tests here). So the
    command's exit status is taken, output is flushed, logging is shut down, and the process
    ends with ``os._exit``. Files, run stores and clusters are closed by their context managers
    before this point. An unexpected exception still prints its traceback the usual way.
    """
    try:
        main()
        code = 0
    except SystemExit as e:
        if isinstance(e.code, str):
            print(e.code, file=sys.stderr)
        code = e.code if isinstance(e.code, int) else int(e.code is not None)
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(OSError, ValueError):  # a closed pipe (``| head``)
            stream.flush()
    logging.shutdown()
    os._exit(code)
