"""Throughput and peak memory of the synthetic generator, and its linearity in users x days.

Each size runs in its own subprocess (so ``ru_maxrss`` is that run's peak). Benchmark
users are measured without a reference population (``reference_users=0``); the default
reference population (5,000 users x 120 days, reduced to percentiles) is measured on its
own line. "linearity ratio" = throughput at 2,000 users / throughput at 200 users (1.0 =
cost exactly linear in users x days).

Run: ``python benchmarks/synth.py`` (about 25 s on 2 cores). Timing comes from a plain run;
``traced peak`` (tracemalloc, numpy buffers included) from a second, untimed run.
"""

from __future__ import annotations

import json
import resource
import subprocess
import sys
import time
import tracemalloc

SIZES = ((200, 500, 0), (2_000, 500, 0), (1, 1, 5_000))


def worker(n_users: int, n_days: int, reference_users: int) -> dict[str, float]:
    from wearbench.sources import synthesize

    def once() -> tuple[float, float]:
        t0 = time.perf_counter()
        cohort = synthesize(n_users, n_days, seed=0, reference_users=reference_users, reference_days=120)
        return time.perf_counter() - t0, cohort.daily.memory_usage(deep=True).sum() / 2**20

    synthesize(2, 40, seed=1, reference_users=0)  # warm-up: imports, first-call costs
    base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    seconds, daily_mb = once()
    maxrss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    tracemalloc.start()  # second, untimed run: tracemalloc slows allocation-heavy code
    once()
    _, traced_peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {
        "seconds": seconds,
        "maxrss_mb": maxrss,
        "base_rss_mb": base_rss,
        "traced_peak_mb": traced_peak / 2**20,
        "daily_mb": daily_mb,
    }


def run(n_users: int, n_days: int, reference_users: int) -> dict[str, float]:
    cmd = [sys.executable, __file__, "--worker", str(n_users), str(n_days), str(reference_users)]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    result: dict[str, float] = json.loads(out.strip().splitlines()[-1])
    return result


def main() -> None:
    rates = []
    for n_users, n_days, reference_users in SIZES:
        r = run(n_users, n_days, reference_users)
        if reference_users:
            cells = reference_users * 120
            label = f"reference {reference_users:>5} users x 120 days"
        else:
            cells = n_users * n_days
            label = f"benchmark {n_users:>5} users x {n_days} days"
            rates.append(cells / r["seconds"])
        print(
            f"{label}: {r['seconds']:6.2f} s  {cells / r['seconds']:>10,.0f} user-days/s  "
            f"peak RSS {r['maxrss_mb']:6.0f} MB (after import {r['base_rss_mb']:4.0f} MB)  "
            f"traced peak {r['traced_peak_mb']:6.0f} MB  daily table {r['daily_mb']:5.0f} MB"
        )
    print(f"linearity ratio (throughput 2000 users / 200 users): {rates[1] / rates[0]:.2f}")


if __name__ == "__main__":
    if len(sys.argv) == 5 and sys.argv[1] == "--worker":
        print(json.dumps(worker(*(int(a) for a in sys.argv[2:]))))
    else:
        main()
