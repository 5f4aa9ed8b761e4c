"""Command line for evaluation: ``eval``, ``score``, ``report`` and ``export``."""

from __future__ import annotations

import json
from pathlib import Path

import click

from wearbench._catalogue import RegistryChoice
from wearbench._cli_util import _progress_bar, executor_option
from wearbench._errors import WearbenchError
from wearbench.executors import DaskExecutor, LocalExecutor


class _ModelOption(click.Option):
    """``--model``, whose help lists the spec forms of the registry when help is shown."""

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        from wearbench.runner import spec_forms

        self.help = "Model spec: " + ", ".join(spec_forms()) + "."
        return super().get_help_record(ctx)


def _bench_for(bench: Path | None, official: Path | None, out: Path) -> Path:
    if bench is not None and official is None:
        return bench
    if official is not None and bench is None:
        from wearbench.interop import load_official

        return load_official(official, out / "official")
    raise WearbenchError("give exactly one of --bench BENCH or --official FILE")


@click.command("eval")
@click.option("--bench", type=click.Path(path_type=Path), default=None, help="Benchmark folder.")
@click.option(
    "--official",
    type=click.Path(path_type=Path),
    default=None,
    help="An official WearableQA_raw.json / WearableQA.jsonl file instead of --bench.",
)
@click.option("--model", "model", cls=_ModelOption, required=True, metavar="SPEC",
              help="Model spec (forms: `wearbench list baseline`, `wearbench list adapter`).")  # fmt: skip
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Run folder (SQLite store).")
@click.option("--repr", "representation", type=RegistryChoice("representation"), default="csv",
              show_default=True, help="How the data is shown to the model.")  # fmt: skip
@click.option(
    "--mode",
    type=click.Choice(["direct", "cot", "agent", "multiview"]),
    default="direct",
    show_default=True,
    help="Prompting: answer directly, chain of thought, agent (sandboxed code) or several views.",
)
@click.option(
    "--ablate",
    multiple=True,
    type=click.Choice(["no_series", "no_history", "no_cohort", "no_blood"]),
    help="Ablation (repeatable).",
)
@click.option(
    "--limit", type=click.IntRange(min=1), default=None, help="Evaluate a seeded subset of N items."
)
@click.option("--concurrency", type=click.IntRange(min=1), default=4, show_default=True,
              help="Model calls in flight at once.")  # fmt: skip
@click.option("--max-tokens", type=click.IntRange(min=1), default=1024, show_default=True,
              help="Most tokens the model may generate per answer.")  # fmt: skip
@click.option("--temperature", type=float, default=0.0, show_default=True, help="Sampling temperature.")
@click.option("--seed", type=int, default=0, show_default=True, help="Seed of --limit and of sampling.")
@click.option("--timeout", "timeout_s", type=float, default=120.0, show_default=True, help="Per call, s.")
@click.option("--retries", type=click.IntRange(min=0), default=5, show_default=True,
              help="Retries of a failed call (transient errors only).")  # fmt: skip
@click.option(
    "--api-key-env",
    "api_key_env",
    default=None,
    metavar="VAR",
    help="Environment variable holding the key for the model's URL. Without it OPENAI_API_KEY / "
    "ANTHROPIC_API_KEY go only to api.openai.com / api.anthropic.com, and other URLs get no key.",
)
@click.option(
    "--max-failures",
    "max_failures",
    type=click.IntRange(min=0),
    default=5,
    show_default=True,
    help="Stop after this many permanent failures in a row (HTTP 401/403/404, connection refused); 0: never.",
)
@click.option(
    "--context-days",
    "context_days",
    type=click.Choice(["30", "7", "1"]),
    default=None,
    help="HealthLoopQA benchmarks, chat models: days of context in the structured prompt "
    "(default: the item's whole context, 30 days).",
)
@click.option(
    "--prompt",
    type=click.Choice(["structured", "timelined"]),
    default="structured",
    show_default=True,
    help="HealthLoopQA benchmarks, chat models: readings then events in sections (structured) or "
    "one chronological listing with the events under each timestamp (timelined).",
)
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
@executor_option("baseline:oracle's graph replays (64 items per task; chat models: serial only)")
def eval_cmd(
    bench: Path | None,
    official: Path | None,
    model: str,
    out: Path,
    representation: str,
    mode: str,
    ablate: tuple[str, ...],
    limit: int | None,
    concurrency: int,
    max_tokens: int,
    temperature: float,
    seed: int,
    timeout_s: float,
    retries: int,
    api_key_env: str | None,
    max_failures: int,
    context_days: str | None,
    prompt: str,
    quiet: bool,
    executor: LocalExecutor | DaskExecutor,
) -> None:
    """Evaluate a model or baseline on a benchmark into OUT/runs.sqlite (resumes if interrupted).

    Exits 1 when any item is still errored at the end (re-run the same command to retry them).
    """
    from wearbench.models import GenerateConfig
    from wearbench.runner import Setting, evaluate

    bench_dir = _bench_for(bench, official, out)
    setting = Setting(representation, mode, ablate)  # type: ignore[arg-type]
    config = GenerateConfig(max_tokens, temperature, seed, timeout_s, retries)
    with _progress_bar(f"eval {model}", not quiet) as progress, executor:
        summary = evaluate(
            bench_dir, model, out, setting=setting, limit=limit, concurrency=concurrency, config=config,
            progress=progress, api_key_env=api_key_env, max_permanent_failures=max_failures,
            context_days=None if context_days is None else int(context_days), prompt=prompt,
            executor=executor,
        )  # fmt: skip
    if not summary.recorded:
        raise WearbenchError(
            f"no answer landed, no run recorded: {summary.errored} item(s) failed; "
            f"first: {summary.first_error}"
        )
    from wearbench.runner import RunStore
    from wearbench.scoring import CGMRunScore, RunScore, score_cgm, score_run

    with RunStore(out) as store:
        rows = store.rows(summary.info.run_id)
    score: RunScore | CGMRunScore
    if summary.kind == "healthloopqa":
        score = score_cgm(summary.info, rows)
    else:
        score = score_run(rows, summary.items)
    retried = f", {summary.retried} errored item(s) retried" if summary.retried else ""
    click.echo(f"{summary.info.run_id}: {summary.answered} item(s) answered now{retried}")
    click.echo(score.summary_line())
    if summary.errored:
        raise WearbenchError(
            f"{summary.errored} item(s) still errored (first: {summary.first_error}); "
            "run the same command again to retry them"
        )


@click.command("score")
@click.argument("rundir", type=click.Path(path_type=Path))
@click.option("--run", "run_id", default=None, help="Run id or prefix (default: every run in RUNDIR).")
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="Output: a readable table or JSON.")  # fmt: skip
def score_cmd(rundir: Path, run_id: str | None, fmt: str) -> None:
    """Scores with their 95% CIs for the runs in RUNDIR.

    WearableQA runs: accuracy overall and by label. HealthLoopQA runs: the 0-100 item score
    overall, by family x level (the seed's Table 2) and by template, with parse failures.
    The JSON has one schema for both kinds (kind, score on 0-100, ci_low, ci_high, n,
    parse_failures, breakdowns; docs/cgm-eval.md).
    """
    from wearbench.scoring import score_runs

    scores = score_runs(rundir, run_id)
    if fmt == "json":
        payload = [s.to_dict() for s in scores]
        click.echo(json.dumps(payload[0] if len(payload) == 1 else payload, indent=2, sort_keys=True))
        return
    for s in scores:
        click.echo(s.to_text())


@click.command("report")
@click.argument("rundirs", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(path_type=Path), default=Path("report.html"), show_default=True,
              help="HTML file to write.")  # fmt: skip
def report_cmd(rundirs: tuple[Path, ...], out: Path) -> None:
    """One self-contained HTML report of every run in RUNDIRS, WearableQA and HealthLoopQA.

    WearableQA: leaderboard, per-label bars, position bias, examples. HealthLoopQA: runs,
    the Table 2 shape (family x level), a figure, and one row per template. A RUNDIR that is a
    `track impute` RESULTS folder adds OpenMHC imputation: skill and rank per scope (against
    LOCF), per-channel MAE, and a skill figure.
    """
    from wearbench.report import report_runs

    path = report_runs(list(rundirs), out)
    click.echo(f"wrote {path}")


@click.command("export")
@click.argument("fmt", type=click.Choice(["hf", "inspect"]))
@click.argument("bench", type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Folder to write.")
def export_cmd(fmt: str, bench: Path, out: Path) -> None:
    """Export BENCH as Hugging Face datasets Parquet (hf) or as an Inspect task (inspect)."""
    from wearbench.interop import export_hf, export_inspect

    path = export_hf(bench, out) if fmt == "hf" else export_inspect(bench, out)
    click.echo(f"wrote {path}")
