"""Fixed cost of ``wearbench eval`` with a free baseline: the whole command, end to end.

``baseline:random`` answers each item in microseconds, so the command's wall time is the
harness's fixed cost: imports, reading and checking the benchmark, the run store, scoring.
Each repeat uses a fresh run folder (a new run, nothing resumed). The benchmark is built at
the default size (200 users x 500 days, seed 0) unless ``--bench`` names one.

Run: ``python benchmarks/eval_fixed_cost.py [--bench BENCH] [--repeats 3]``; compare two trees
by running it with ``PYTHONPATH=TREE/src`` for each.

Measured on a shared 2-core machine (load average ~4), default benchmark of 5,144 items,
medians of 3-5 runs: before (commit c3d641b) 4.05 s wall / 3.42 s CPU; after 1.29 s wall /
1.14 s CPU (``import wearbench.cli`` alone: 0.43 s wall).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _default_bench(root: Path) -> Path:
    import wearbench
    from wearbench.bench import build_benchmark

    wearbench.synth(200, 500, seed=0, out=root / "cohort")
    build_benchmark(root / "cohort", root / "bench", seed=0)
    return root / "bench"


def _timed(argv: list[str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user + system) of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, env=os.environ.copy(), check=False)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()}")
    return elapsed, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _line(label: str, runs: list[tuple[float, float]]) -> str:
    wall = statistics.median(w for w, _ in runs)
    cpu = statistics.median(c for _, c in runs)
    return f"  {label:<42} wall {wall:5.2f} s   cpu {cpu:5.2f} s"


def main() -> None:
    """Print median wall and CPU time of ``eval --model baseline:random`` and of a bare import."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bench", type=Path, default=None, help="Benchmark folder (default: build one).")
    parser.add_argument("--repeats", type=int, default=3, help="Timed runs per measurement.")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        bench = args.bench or _default_bench(Path(tmp))
        n_items = sum(1 for _ in (bench / "items.jsonl").open(encoding="utf-8"))
        python = [sys.executable]
        imports = [_timed([*python, "-c", "import wearbench.cli"]) for _ in range(args.repeats)]
        evals = [
            _timed(
                [
                    *python,
                    "-m",
                    "wearbench",
                    "eval",
                    "--bench",
                    str(bench),
                    "--model",
                    "baseline:random",
                    "--out",
                    str(Path(tmp) / f"run{k}"),
                    "-q",
                ]
            )
            for k in range(args.repeats)
        ]
    print(f"benchmark: {bench} ({n_items} items); {args.repeats} repeats, medians (cpu = user + system)")
    print(_line("python -c 'import wearbench.cli'", imports))
    print(_line("wearbench eval --model baseline:random", evals))


if __name__ == "__main__":
    main()
