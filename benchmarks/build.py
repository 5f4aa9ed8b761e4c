"""Build time of a WearableQA-style benchmark against cohort size, with every registered type.

For 50, 100, 200 and 400 users x 500 days, a synthetic cohort is written (untimed), then
``build_benchmark`` runs with all registered question types and every gate (null test, shortcut
audit included) on ``workers=2``; each size runs in its own subprocess. Printed: items, seconds,
questions per second, and the scaling exponent in users (slope of log time against log users;
1.0 = linear).

``python benchmarks/build.py --speedup`` instead builds 200 users x 500 days with 1 and with 2
workers (each in its own subprocess) and prints both times and the 2-worker speed-up (issue 17
asks for >= 1.8x); ``--speedup --repeat N`` runs N alternating pairs and prints the median
ratio (use it on a shared machine).

Run: ``python benchmarks/build.py`` (or ``make bench``).
"""

from __future__ import annotations

import json
import math
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

USERS = (50, 100, 200, 400)
DAYS = 500
WORKERS = 2


def worker(n_users: int, workers: int = WORKERS) -> dict[str, float]:
    import wearbench
    from wearbench.bench import build_benchmark

    with tempfile.TemporaryDirectory() as tmp:
        cohort = Path(tmp) / "cohort"
        wearbench.synth(n_users, DAYS, seed=0, reference_users=1000, out=cohort)
        t0 = time.perf_counter()
        cpu0 = _cpu_s()
        result = build_benchmark(cohort, Path(tmp) / "bench", seed=0, workers=workers)
        seconds, cpu = time.perf_counter() - t0, _cpu_s() - cpu0
    return {
        "seconds": seconds,
        "cpu_s": cpu,
        "items": float(result.n_items),
        "types": float(len(result.manifest["types"])),
    }


def _cpu_s() -> float:
    """CPU seconds (user + system) of this process and its finished worker processes."""
    own, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def run(n_users: int, workers: int = WORKERS) -> dict[str, float]:
    cmd = [sys.executable, __file__, "--worker", str(n_users), str(workers)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    result: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return result


def slope(xs: list[float], ys: list[float]) -> float:
    """Least-squares slope of log y against log x."""
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly, strict=True)) / sum((a - mx) ** 2 for a in lx)


def main() -> None:
    times = []
    for n_users in USERS:
        r = run(n_users)
        times.append(r["seconds"])
        print(
            f"build {n_users:>4} users x {DAYS} days ({int(r['types'])} types, workers={WORKERS}): "
            f"{r['seconds']:7.2f} s  {int(r['items']):>6} items  {r['items'] / r['seconds']:8.1f} questions/s"
        )
    print(f"scaling exponent in users (slope of log time vs log users): {slope(list(USERS), times):.2f}")


def speedup(n_users: int = 200, repeat: int = 1) -> None:
    """Print the build time with 1 and 2 workers at ``n_users`` and the ratio.

    With ``repeat`` > 1 the pairs alternate (1 worker, 2 workers, 1, 2, ...) and the median of
    the pairs' ratios is printed too: on a shared machine one core's speed drifts by tens of
    percent from minute to minute, and a pair run back to back sees the same drift. Each build's
    CPU seconds (its process and its workers) are printed beside its time: the same build
    needs about the same CPU work with 1 or 2 workers, so a 2-worker build that used markedly
    more CPU seconds ran on a contended host (the vCPUs were slowed), not into a serial stage.
    """
    ratios = []
    for k in range(repeat):
        one, two = run(n_users, 1), run(n_users, 2)
        ratios.append(one["seconds"] / two["seconds"])
        print(
            f"build {n_users} users x {DAYS} days: 1 worker {one['seconds']:6.2f} s "
            f"(CPU {one['cpu_s']:5.1f} s), 2 workers {two['seconds']:6.2f} s (CPU {two['cpu_s']:5.1f} s, "
            f"{two['cpu_s'] / one['cpu_s']:.2f}x the work), speed-up {ratios[-1]:.2f}x"
            + (f"  (pair {k + 1} of {repeat})" if repeat > 1 else ""),
            flush=True,
        )
    if repeat > 1:
        print(f"median speed-up over {repeat} pairs: {statistics.median(ratios):.2f}x")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--worker":
        print(json.dumps(worker(int(sys.argv[2]), int(sys.argv[3]))))
    elif sys.argv[1:2] == ["--speedup"]:
        speedup(repeat=int(sys.argv[3]) if sys.argv[2:3] == ["--repeat"] else 1)
    else:
        main()
