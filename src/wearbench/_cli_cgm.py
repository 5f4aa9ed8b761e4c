"""Command line for CGM data: ``wearbench cgm import | metrics | simulate | build | judge``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from wearbench._catalogue import RegistryChoice
from wearbench._cli_util import _progress_bar, executor_option, note_line
from wearbench._errors import WearbenchError

if TYPE_CHECKING:
    from wearbench.cgm import CGMData
    from wearbench.executors import DaskExecutor, Executor, LocalExecutor

__all__ = ["cgm_group"]


@click.group("cgm")
def cgm_group() -> None:
    """CGM data: import exports, compute metrics, simulate a closed loop, build and judge HealthLoopQA."""


@cgm_group.command("import")
@click.argument("source")
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Folder to write.")
@click.option(
    "--grid",
    type=int,
    default=None,
    help="Resample onto a clock grid every GRID minutes (5: 288 a day); gaps stay gaps.",
)
@click.option(
    "--max-gap",
    type=int,
    default=20,
    show_default=True,
    help="With --grid: interpolate only between readings at most MAX_GAP minutes apart.",
)
def cgm_import(source: str, path: Path, out: Path, grid: int | None, max_gap: int) -> None:
    """Import PATH with the CGM loader SOURCE into OUT (readings, events, import report).

    SOURCE: dexcom-clarity, libreview, nightscout, t1d-uom, d1namo, shanghai or hall2018.
    """
    from wearbench.cgm.sources import import_cgm

    _, report = import_cgm(source, path, out, grid=grid, max_gap=max_gap)
    if "grid" in report:
        g = report["grid"]
        click.echo(
            f"grid {g['minutes']} min: {g['readings']} reading(s) -> {g['grid_points']} point(s) "
            f"({g['from_reading']} from a reading, {g['interpolated']} interpolated, "
            f"{g['merged']} reading(s) merged); {g['gaps']} gap(s) of {g['gap_points']} point(s) kept as gaps"
        )
    click.echo(
        f"{source}: {report['subjects']} subject(s), {report['readings']} reading(s), "
        f"{report['events']} event(s), {report['first_time']} to {report['last_time']}"
    )
    for title, key in (("repaired", "repairs"), ("rejected", "rejections")):
        for kind, n in report[key].items():
            example = report["examples"].get(kind, [])
            click.echo(f"{title} {n}: {kind}" + (f" (e.g. {example[0]})" if example else ""))
    click.echo(f"wrote {out}")


@cgm_group.command("metrics")
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--source", default=None, help="CGM loader name (default: an imported folder, or auto-detect).")
@click.option(
    "--invalid",
    type=click.Choice(["drop", "error"]),
    default="drop",
    show_default=True,
    help="A CGM folder's NaN or out-of-range (10-1000 mg/dL) readings: drop, counted, or stop.",
)
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="Output: a table with units, or JSON records.")  # fmt: skip
@click.option(
    "--agp",
    type=click.Path(path_type=Path),
    default=None,
    help="Also write the Ambulatory Glucose Profile as a PNG here "
    "(several subjects: one file each, OUT.<subject>.png).",
)
@click.option(
    "--agp-bin",
    type=click.IntRange(min=1, max=1440),
    default=15,
    show_default=True,
    help="AGP bin width, minutes (a divisor of 1440).",
)
def cgm_metrics_cmd(
    path: Path, source: str | None, invalid: str, fmt: str, agp: Path | None, agp_bin: int
) -> None:
    """Consensus CGM metrics per subject of PATH (a CGM file, a dataset folder, or an imported folder).

    A CGM folder's readings that are NaN (signal missing) or outside 10-1000 mg/dL (e.g. 0) are
    dropped and counted per subject (dropped_missing, dropped_out_of_range), unless --invalid error.
    """
    from wearbench.cgm import read_cgm
    from wearbench.cgm.metrics import METRIC_UNITS, metrics_table

    data = read_cgm(path, source, invalid="error" if invalid == "error" else "drop")
    table = metrics_table(data)
    written = _write_agp(data, agp, agp_bin) if agp is not None else []
    if fmt == "json":
        click.echo(json.dumps(json.loads(table.to_json(orient="records")), indent=2))
        return
    click.echo(f"{path}: read as {data.source['read_as']}")
    shown = table.rename(columns={c: f"{c} ({u})" for c, u in METRIC_UNITS.items() if u not in ("", c)})
    click.echo(shown.to_string(index=False, float_format=lambda v: f"{v:.3f}"))
    click.echo("glucose in mg/dL; time in/below/above range: % of readings; LBGI/HBGI unitless")
    n_missing, n_range = int(table["dropped_missing"].sum()), int(table["dropped_out_of_range"].sum())
    if n_missing or n_range:
        click.echo(f"dropped {n_missing} missing (NaN) and {n_range} out-of-range (outside 10-1000 mg/dL) "
                   "reading(s) before the metrics (--invalid drop)")  # fmt: skip
    for out in written:
        click.echo(f"wrote AGP {out}")


def _write_agp(data: CGMData, out: Path, bin_minutes: int) -> list[Path]:
    """One AGP PNG per subject: ``out`` itself for one subject, ``<stem>.<subject><suffix>`` for several."""
    from wearbench.cgm.metrics import write_agp_png

    readings = data.readings
    subjects = list(data.subjects)
    written = []
    for subject in subjects:
        sub = readings[readings["subject_id"].astype(str) == subject]
        safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in subject)
        path = out if len(subjects) == 1 else out.with_name(f"{out.stem}.{safe}{out.suffix or '.png'}")
        title = f"Ambulatory glucose profile of {subject}: {len(sub)} readings, {bin_minutes}-minute bins"
        written.append(write_agp_png(sub["time"], sub["glucose"], path, bin_minutes=bin_minutes, title=title))
    return written


def _check_sensor(value: str) -> str:
    """``--sensor``: a simglucose sensor name, ``exact:N`` or ``none`` (unknown names are refused)."""
    if value != "none":
        from wearbench.sim import Sensor

        try:
            Sensor.named(value)
        except WearbenchError as err:
            raise click.BadParameter(str(err)) from err
    return value


@cgm_group.command("simulate")
@click.option(
    "--profile",
    "profile_name",
    default="default",
    show_default=True,
    help="Simulation profile: 'default', or 'healthloopqa' (5-min grid, its 20-patient cohort, typed "
    "meals, exercise, seed fault sizes, hazard labels; docs/cgm-healthloopqa.md).",
)
@click.option("--patients", default=None,
              help="Names, ranges (adult#001..adult#010) or 'all', comma-separated "
              "[default: adult#001..adult#010, or the profile's cohort].")  # fmt: skip
@click.option("--days", type=click.IntRange(min=1), default=30, show_default=True, help="Days simulated.")
@click.option(
    "--controller",
    type=RegistryChoice("controller"),
    default=None,
    help="Insulin controller (registered kind 'controller') [default: basal-bolus, or the profile's].",
)
@click.option(
    "--sensor",
    default="Dexcom",
    show_default=True,
    callback=lambda _ctx, _param, value: _check_sensor(value),
    help="CGM sensor model (Dexcom, GuardianRT, Navigator: noise, sampling), 'exact:N' (noise-free, "
    "sampled every N min), or 'none' for subcutaneous glucose every minute.",
)
@click.option("--loop", type=click.Choice(["default", "simglucose"]), default="default",
              help="'simglucose': the loop semantics of simglucose's T1DSimEnv (docs/cgm-simglucose.md).",
              show_default=True)  # fmt: skip
@click.option("--meals", default="random", show_default=True, help="'random', or a CSV with minute,carbs_g.")
@click.option("--faults", default="none", show_default=True,
              help="'none', 'random' (every fault type at least once), or a CSV of intervals.")  # fmt: skip
@click.option(
    "--exercise",
    type=click.Choice(["none", "random"]),
    default=None,
    help="'random': running and cycling sessions, about 3 a week (docs/cgm-exercise.md); the "
    "healthloopqa profile's own sessions [default: none, or the profile's].",
)
@click.option("--seed", type=int, default=0, show_default=True, help="Fixes every output byte.")
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Folder to write.")
@executor_option("the patients' loops (one patient per task)")
def cgm_simulate(
    profile_name: str,
    patients: str | None,
    days: int,
    controller: str | None,
    sensor: str,
    loop: str,
    meals: str,
    faults: str,
    exercise: str | None,
    seed: int,
    out: Path,
    executor: LocalExecutor | DaskExecutor,
) -> None:
    """Simulate the closed loop (UVA/Padova patients, sensor, pump, controller) into a CGM dataset."""
    import numpy as np

    from wearbench.sim import get_profile

    if get_profile(profile_name).layout != "default":
        given = {"patients": patients, "controller": controller, "sensor": sensor, "meals": meals,
                 "faults": faults, "exercise": exercise, "seed": seed}  # fmt: skip
        with executor:
            _simulate_profile(profile_name, days, out, given, executor)
        return
    patients = patients or "adult#001..adult#010"
    controller = controller or "basal-bolus"
    exercise = exercise or "none"

    from wearbench.sim import (
        Sensor,
        exercise_sessions,
        meals_from_csv,
        parse_patients,
        resolve_engine,
        simulate,
        write_simulation,
    )
    from wearbench.sim.faults import faults_from_csv, random_fault_plan

    names = parse_patients(patients)
    fault_plan = None
    if faults == "random":
        fault_plan = random_fault_plan(len(names), days, seed=seed)
    elif faults != "none":
        if not Path(faults).is_file():
            raise WearbenchError(f"--faults {faults}: not 'none', 'random' or an existing CSV file")
        fault_plan = faults_from_csv(Path(faults), names, days * 1440)
    plan = meals_from_csv(Path(meals), len(names), days) if meals != "random" else "random"
    chosen = None if sensor == "none" else sensor
    sessions = None
    how: dict[str, Any] = {"controller": controller, "sensor": chosen, "meals": plan, "seed": seed,
                           "faults": fault_plan}  # fmt: skip
    if loop != "default":
        how["loop"] = loop
    if exercise == "random":
        intensity, sessions = exercise_sessions(len(names), days, np.random.default_rng([seed, 7]))
        how["exercise"] = (intensity, sessions)
    with executor:
        frame = simulate(names, days, **how, executor=executor)
    sample_time = Sensor.named(chosen).sample_time if chosen else 1
    params = {"patients": names, "days": days, "controller": controller, "sensor": sensor,
              "meals": meals, "faults": faults, "exercise": exercise, "seed": seed,
              "engine": resolve_engine()}  # fmt: skip
    if loop != "default":
        params["loop"] = loop
    write_simulation(frame, out, sample_time=sample_time, params=params, faults=fault_plan, exercise=sessions)
    n = int((frame["minute"] % sample_time == 0).sum())
    click.echo(f"simulated {len(names)} patient(s) x {days} day(s): {n} readings every {sample_time} min")
    if fault_plan is not None:
        click.echo(f"injected {len(fault_plan.events)} fault interval(s)")
    if sessions is not None:
        click.echo(f"planned {len(sessions)} exercise session(s)")
    click.echo(f"wrote {out}")


def _simulate_profile(
    profile_name: str, days: int, out: Path, how: dict[str, Any], executor: Executor
) -> None:
    """``cgm simulate --profile NAME`` for a profile with its own layout (healthloopqa).

    ``how`` holds the other options as given (``None`` where not given).
    """
    from wearbench.sim import (
        get_profile,
        meals_from_csv,
        parse_patients,
        resolve_engine,
        simulate_profile,
        write_simulation,
    )
    from wearbench.sim.faults import faults_from_csv

    profile = get_profile(profile_name)
    names = parse_patients(how["patients"]) if how["patients"] else list(profile.cohort)
    faults, plan = str(how["faults"]), None
    if faults not in ("none", "random"):
        if not Path(faults).is_file():
            raise WearbenchError(f"--faults {faults}: not 'none', 'random' or an existing CSV file")
        plan = faults_from_csv(Path(faults), names, days * 1440)
    meals = str(how["meals"])
    run = simulate_profile(
        profile,
        days,
        patients=names,
        controller=how["controller"],
        sensor=None if how["sensor"] == "none" else how["sensor"],
        meals=meals_from_csv(Path(meals), len(names), days) if meals != "random" else None,
        faults=plan if plan is not None else ("random" if faults == "random" else "none"),
        exercise=how["exercise"] != "none",
        seed=how["seed"],
        executor=executor,
    )
    params = {**how, "profile": profile.name, "patients": names, "days": days,
              "controller": how["controller"] or profile.controller, "exercise": how["exercise"] or "random",
              "cohort": list(profile.cohort), "cohort_seed": profile.cohort_seed,
              "grid_min": run.sample_time, "glucose_unit": "mg/dL", "insulin_unit": "mU/min",
              "engine": resolve_engine()}  # fmt: skip
    write_simulation(run.frame, out, sample_time=run.sample_time, params=params, faults=run.faults,
                     exercise=run.sessions, meals=run.meals, layout=profile.layout)  # fmt: skip
    per_day = 1440 // run.sample_time
    click.echo(
        f"simulated {len(names)} patient(s) x {days} day(s) with profile {profile.name}: "
        f"{len(names) * days * per_day} readings every {run.sample_time} min ({per_day} a day)"
    )
    click.echo(f"injected {len(run.faults.events)} fault interval(s)")
    if run.sessions is not None:
        click.echo(f"planned {len(run.sessions)} exercise session(s)")
    click.echo(f"wrote {out}")


@cgm_group.command("build")
@click.option("--data", type=click.Path(path_type=Path), required=True,
              help="CGM folder written by `cgm simulate --profile healthloopqa` or "
              "`cgm import SOURCE PATH --grid 5`.")  # fmt: skip
@click.option("--out", type=click.Path(path_type=Path), required=True, help="Benchmark folder to write.")
@click.option("--seed", type=int, default=0, show_default=True, help="Fixes every output byte.")
@click.option("--families", default=None,
              help="Comma-separated: ad, pm, pd [default: all; AD is left out on real data].")  # fmt: skip
@click.option("--sampling", type=click.Choice(["seed", "full"]), default="seed", show_default=True,
              help="'seed': the seed's patients per family and level (AD 10/5/5, PM 8/9, PD 16); "
              "'full': every template for every patient.")  # fmt: skip
@click.option("--pm-pd-run", type=click.Choice(["normal", "same"]), default="normal", show_default=True,
              help="On a simulation with faults: 'normal' asks PM and PD about its fault-free twin (the "
              "same run re-simulated with faults none; the seed's normal run), 'same' about the "
              "faulted folder itself. AD always reads the folder.")  # fmt: skip
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def cgm_build(
    data: Path, out: Path, seed: int, families: str | None, sampling: str, pm_pd_run: str, quiet: bool
) -> None:
    """Build a HealthLoopQA benchmark (items, contexts, manifest, datasheet) from the CGM folder DATA."""
    from wearbench.cgmqa import build_cgm_benchmark, parse_families, read_data_source

    parse_families(families, read_data_source(data).kind)  # a bad folder or family fails before any work
    with _progress_bar("asking patients", not quiet, then="writing the benchmark") as progress:
        result = build_cgm_benchmark(
            data, out, seed=seed, families=families, sampling=sampling, pm_pd_run=pm_pd_run,
            progress=progress, note=None if quiet else note_line,
        )  # fmt: skip
    s = result.stats
    by_family = ", ".join(f"{f} {n}" for f, n in s["by_family"].items())
    click.echo(f"wrote {result.n_items} items ({by_family}) from {s['n_patients']} patients to {out}")
    for key, d in s["draws"].items():
        if d["wanted"] is not None and d["eligible"] < d["wanted"]:
            click.echo(f"{key}: {d['note']}")
    for fam, why in s["left_out"].items():
        click.echo(f"left out {fam}: {why}")
    twin = sorted(f for f, run in result.manifest["runs"].items() if run == "twin")
    if twin:
        click.echo(f"{', '.join(twin)} built from the fault-free twin of {data}")
    dropped = "; ".join(f"{r} {n}" for r, n in s["drop_reasons"].items())
    click.echo(
        f"dropped {sum(s['drop_reasons'].values())} (template, patient) pair(s)"
        + (f": {dropped}" if dropped else "")
    )
    if s["zero_items"]:
        click.echo(
            f"0 items for {len(s['zero_items'])} template(s): {', '.join(s['zero_items'])} (see datasheet.md)"
        )
    if s["one_answer"]:
        click.echo(
            f"one answer for every item of {len(s['one_answer'])} template(s): "
            f"{', '.join(s['one_answer'])} (see datasheet.md)"
        )


@cgm_group.command("judge")
@click.argument("rundir", type=click.Path(path_type=Path))
@click.option("--model", required=True, metavar="SPEC",
              help="Judge model spec (forms: `wearbench list adapter`).")  # fmt: skip
@click.option("--run", "run_id", default=None, help="Run id or prefix (default: every HealthLoopQA run).")
@click.option("--limit", type=click.IntRange(min=1), default=None,
              help="Judge at most N answers per run (a fixed order spread over templates).")  # fmt: skip
@click.option("--concurrency", type=click.IntRange(min=1), default=4, show_default=True,
              help="Judge calls in flight at once.")  # fmt: skip
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="Output: a readable summary or JSON.")  # fmt: skip
@click.option("--bench", type=click.Path(path_type=Path), default=None,
              help="Where the runs' benchmark is now, if it moved (same items.jsonl hash).")  # fmt: skip
@click.option("--max-tokens", type=click.IntRange(min=1), default=512, show_default=True,
              help="Most tokens the judge may generate per answer.")  # fmt: skip
@click.option("--timeout", "timeout_s", type=float, default=120.0, show_default=True, help="Per call, s.")
@click.option("--retries", type=click.IntRange(min=0), default=5, show_default=True,
              help="Retries of a failed call (transient errors only).")  # fmt: skip
@click.option("--api-key-env", "api_key_env", default=None, metavar="VAR",
              help="Environment variable holding the key for the judge's URL.")  # fmt: skip
@click.option("--quiet", "-q", is_flag=True, help="No progress bar.")
def cgm_judge(
    rundir: Path,
    model: str,
    run_id: str | None,
    limit: int | None,
    concurrency: int,
    fmt: str,
    bench: Path | None,
    max_tokens: int,
    timeout_s: float,
    retries: int,
    api_key_env: str | None,
    quiet: bool,
) -> None:
    """Grade the answers of the HealthLoopQA runs in RUNDIR with an LLM judge (docs/cgm-judge.md).

    Grades 1-5 for instruction following, reasoning quality and format compliance, and the seed's
    failure types, stored in RUNDIR/runs.sqlite (table judgements). Judged answers are skipped,
    so running it again judges only what is new or errored. Exits 1 if any judgement is still
    errored at the end.
    """
    from wearbench.models import GenerateConfig
    from wearbench.runner import judge_cgm_runs

    config = GenerateConfig(max_tokens=max_tokens, temperature=0.0, timeout_s=timeout_s, max_retries=retries)
    with _progress_bar(f"judge {model}", not quiet) as progress:
        outcome = judge_cgm_runs(
            rundir, model, run_id=run_id, limit=limit, concurrency=concurrency, config=config,
            progress=progress, api_key_env=api_key_env, bench=bench,
        )  # fmt: skip
    if fmt == "json":
        click.echo(json.dumps(outcome.to_dict(), indent=2, sort_keys=True))
    else:
        click.echo(outcome.to_text())
    if outcome.errored:
        raise WearbenchError(
            f"{outcome.errored} judgement(s) still errored; run the same command again to retry them"
        )
