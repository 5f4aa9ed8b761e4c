"""Time of ``wearbench cgm build`` (seed and full sampling) and ``wearbench verify`` on a 20 x 30 run.

The run is the issue's acceptance run: ``wearbench cgm simulate --profile healthloopqa --days 30
--controller hcl-mpc --faults random --seed 42`` (20 patients), made in ``--work`` unless it is
already there. Each build and verification runs ``--repeat`` times in this process after one
untimed warm-up (template registration, imports); the script prints the median wall-clock and CPU
seconds (``time.perf_counter`` / ``time.process_time``), the item counts per family and level, the
drop counts, and the artifact's size. With ``--real`` it also imports T1D-UOM and ShanghaiT1DM from
the shared data folder on the 5-minute grid and builds and verifies each (seed sampling).

Every registered template is built: the numbers include the prediction (PD) templates and their
counterfactual re-simulations only when PD templates are registered (the script prints how many
templates of each family it found).

Run: ``python benchmarks/cgm_build.py [--real]`` (about 30 s with the simulation on a 2-core
machine; the simulation alone takes about 15 s).
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


def bench(data: Path, out: Path, sampling: str, seed: int, repeat: int) -> None:
    """Build and verify one benchmark; print its times and counts."""
    from wearbench.cgmqa import build_cgm_benchmark, verify_cgm_benchmark

    wall, cpu, result = timed(lambda: build_cgm_benchmark(data, out, seed=seed, sampling=sampling), repeat)
    s = result.stats
    print(f"\n{data.name} {sampling}: {result.n_items} items from {s['n_patients']} patients, ", end="")
    print(f"{size_mb(out):.1f} MB")
    print(f"  build: {wall:.2f} s wall, {cpu:.2f} s CPU (median of {repeat})")
    for fam, levels in s["by_family_level"].items():
        print(
            f"  {fam}: {sum(levels.values())} = "
            + (", ".join(f"{lv} {n}" for lv, n in levels.items()) or "-")
        )
    print(f"  dropped: {s['drop_reasons'] or 'none'}; templates with 0 items: {s['zero_items'] or 'none'}")
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
    args = parser.parse_args()
    from wearbench.cgmqa import templates

    print(f"cores: {os.cpu_count()} (usable {len(os.sched_getaffinity(0))}), load average {os.getloadavg()}")
    print("templates: " + ", ".join(f"{f} {len(templates(f))}" for f in ("ad", "pm", "pd")))
    run = args.work / "run"
    make_run(run)
    for sampling in ("seed", "full"):
        bench(run, args.work / f"bench-{sampling}", sampling, args.seed, args.repeat)
    if args.real:
        from wearbench.cgm.sources import import_cgm

        for loader, folder in (("t1d-uom", "t1d_uom"), ("shanghai", "shanghai")):
            data = args.work / f"real-{folder}"
            import_cgm(loader, SHARED / folder, data, grid=5)
            bench(data, args.work / f"bench-{folder}", "seed", args.seed, args.repeat)
    print(f"\nload average at the end {os.getloadavg()}")


if __name__ == "__main__":
    main()
