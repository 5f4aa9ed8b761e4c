"""Time of ``wearbench cgm build`` (seed and full sampling) and ``wearbench verify`` on a 20 x 30 run.

The run is the issue's acceptance run: ``wearbench cgm simulate --profile healthloopqa --days 30
--controller hcl-mpc --faults random --seed 42`` (20 patients), made in ``--work`` unless it is
already there. Each build and verification runs ``--repeat`` times in this process after one
untimed warm-up (template registration, imports); the script prints the median wall-clock and CPU
seconds (``time.perf_counter`` / ``time.process_time``), the item counts per family and level, the
drop counts, and the artifact's size. With ``--real`` it also imports T1D-UOM and ShanghaiT1DM from
the shared data folder on the 5-minute grid and builds and verifies each (seed sampling).

Every registered template is built (the script prints how many of each family it found). The
build and verify times INCLUDE the simulation of the run's fault-free twin (PM and PD are built
from it, ``--pm-pd-run normal``; with ``--pm-pd-run same`` the re-simulation of the run itself) and
the counterfactuals of the PD templates (both are redone by every build and every
verification); the last timed build's notes give the time of each of those two steps. The script
also prints which run each family came from, the templates whose items all have one answer, and
pm_2's (lowest reading) distinct answers.

Run: ``python benchmarks/cgm_build.py [--real] [--repeat N] [--pm-pd-run normal|same]`` (about 4
min with ``--repeat 3`` on a shared 2-core machine).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

SIMULATE = ["cgm", "simulate", "--profile", "healthloopqa", "--days", "30", "--controller", "hcl-mpc",
            "--faults", "random", "--seed", "42"]  # fmt: skip
SHARED = Path(
    os.environ.get("WEARBENCH_SHARED_DATA", Path(__file__).resolve().parents[1].parent / "shared" / "data")
)


def timed(fn: Callable[[], Any], repeat: int) -> tuple[float, float, Any]:
    """Median wall and CPU seconds of ``fn`` over ``repeat`` calls after one warm-up, and its last result."""
    result = fn()
    walls, cpus = [], []
    for _ in range(repeat):
        w, c = time.perf_counter(), time.process_time()
        result = fn()
        walls.append(time.perf_counter() - w)
        cpus.append(time.process_time() - c)
    return statistics.median(walls), statistics.median(cpus), result


def size_mb(folder: Path) -> float:
    """Bytes of every file under ``folder``, MB."""
    return sum(p.stat().st_size for p in folder.rglob("*") if p.is_file()) / 1e6


def make_run(run: Path) -> None:
    """Simulate the acceptance run into ``run`` (skipped when it is already there)."""
    if (run / "manifest.json").is_file():
        print(f"run: reusing {run}")
        return
    w = time.perf_counter()
    subprocess.run([sys.executable, "-m", "wearbench", *SIMULATE, "--out", str(run)], check=True)
    print(
        f"run: simulated in {time.perf_counter() - w:.1f} s wall: wearbench {' '.join(SIMULATE)} --out {run}"
    )


class Notes:
    """Collects the builder's notes (re-simulation, counterfactuals) with the seconds since the start."""

    def __init__(self) -> None:
        self.lines: list[str] = []
        self.start = time.perf_counter()

    def reset(self) -> None:
        """Forget the notes of the previous build."""
        self.lines, self.start = [], time.perf_counter()

    def __call__(self, text: str) -> None:
        self.lines.append(f"{time.perf_counter() - self.start:6.2f} s  {text}")


def bench(data: Path, out: Path, sampling: str, seed: int, repeat: int, pm_pd_run: str = "normal") -> None:
    """Build and verify one benchmark; print its times and counts."""
    from wearbench.cgmqa import build_cgm_benchmark, read_cgm_items, read_context_bytes, verify_cgm_benchmark

    notes = Notes()

    def build() -> Any:
        notes.reset()
        return build_cgm_benchmark(data, out, seed=seed, sampling=sampling, pm_pd_run=pm_pd_run, note=notes)

    wall, cpu, result = timed(build, repeat)
    s = result.stats
    print(f"\n{data.name} {sampling}: {result.n_items} items from {s['n_patients']} patients, ", end="")
    print(f"{size_mb(out):.1f} MB")
    contexts = sorted(p for p in (out / "contexts").rglob("*") if p.is_file())
    plain = sum(len(read_context_bytes(p)) for p in contexts) / 1e6
    windows = {(p.parent.name, p.name.split(".")[0]) for p in contexts}
    print(
        f"  artifact: items.jsonl {(out / 'items.jsonl').stat().st_size / 1e6:.2f} MB, "
        f"{len(contexts)} context files {size_mb(out / 'contexts'):.2f} MB on disk "
        f"({plain:.1f} MB as CSV), for {len(windows)} windows"
    )
    print(f"  runs (--pm-pd-run {pm_pd_run}): {result.manifest['runs']}")
    pm2 = sorted({i["answer"] for i in read_cgm_items(out) if i["template"] == "pm_2"})
    print(f"  pm_2 (lowest reading): {len(pm2)} distinct answer(s): {pm2[:5]}{' …' if len(pm2) > 5 else ''}")
    one = s["one_answer"]
    print(
        "  templates with one answer: "
        + (", ".join(f"{t} {e['answer']!r} ({e['items']})" for t, e in one.items()) or "none")
    )
    for subject, w in s["windows"].items():
        if w.get("left_out_days"):
            last = w["first_day"] + w["days"] - 1
            held = f"held-out day {last} ({w['last_day_readings']} readings)"
            later = w["left_out_days"]
            print(f"  window {subject}: days {w['first_day']}-{last}, {held}; later days {later}")
    print(f"  build: {wall:.2f} s wall, {cpu:.2f} s CPU (median of {repeat})")
    for line in notes.lines:
        print(f"    {line}")
    for fam, levels in s["by_family_level"].items():
        print(
            f"  {fam}: {sum(levels.values())} = "
            + (", ".join(f"{lv} {n}" for lv, n in levels.items()) or "-")
        )
    print(f"  dropped: {s['drop_reasons'] or 'none'}; templates with 0 items: {s['zero_items'] or 'none'}")
    print(f"  templates with items: {len(s['by_template'])}")
    for tid, reasons in s["drops"].items():
        print(f"    {tid}: " + ", ".join(f"{r} {n}" for r, n in reasons.items()))
    wall, cpu, report = timed(lambda: verify_cgm_benchmark(out), repeat)
    print(
        f"  verify: {report.n_verified}/{report.n_items} ok={report.ok}, {wall:.2f} s wall, {cpu:.2f} s CPU"
    )


def main() -> None:
    """Parse the options, make the run, time the builds."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--work", type=Path, default=Path("/tmp/cgm_build"), help="Folder for the run and benchmarks."
    )
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--repeat", type=int, default=3, help="Timed repetitions (after one warm-up).")
    parser.add_argument("--real", action="store_true", help="Also build T1D-UOM and ShanghaiT1DM.")
    parser.add_argument("--pm-pd-run", choices=("normal", "same"), default="normal", help="As `cgm build`.")
    args = parser.parse_args()
    from wearbench.cgmqa import templates

    print(f"cores: {os.cpu_count()} (usable {len(os.sched_getaffinity(0))}), load average {os.getloadavg()}")
    print("templates: " + ", ".join(f"{f} {len(templates(f))}" for f in ("ad", "pm", "pd")))
    run = args.work / "run"
    make_run(run)
    for sampling in ("seed", "full"):
        bench(run, args.work / f"bench-{sampling}", sampling, args.seed, args.repeat, args.pm_pd_run)
    if args.real:
        from wearbench.cgm.sources import import_cgm

        for loader, folder in (("t1d-uom", "t1d_uom"), ("shanghai", "shanghai")):
            data = args.work / f"real-{folder}"
            import_cgm(loader, SHARED / folder, data, grid=5)
            bench(data, args.work / f"bench-{folder}", "seed", args.seed, args.repeat)
    print(f"\nload average at the end {os.getloadavg()}")


if __name__ == "__main__":
    main()
