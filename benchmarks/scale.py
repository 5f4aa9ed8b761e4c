"""Build time and memory against cohort size, serial / 2 processes / a 2-worker Dask cluster.

For each size (default 100, 200, 400, 800, 1600 and 3200 users x 365 days) a synthetic cohort is
written shard by shard (256 users per shard, untimed), then ``build_benchmark`` runs with every
registered question type and every gate, once per executor, each build in its own subprocess.
Printed per build: seconds, items, peak RSS of the main process and of the largest worker
process (the main process itself when serial); then per executor the scaling exponent in users
(slope of log time against log users; 1.0 = linear) and how much the workers' peak memory grew
from the smallest to the largest cohort, and from the first cohort whose users fill a worker's
shard cache (two 256-user shards) to the largest. Issue 17 asks for an exponent <= 1.1 and flat
memory per worker.

Run: ``python benchmarks/scale.py`` (about 1.5 h on 2 cores);
``python benchmarks/scale.py --users 100,200,400 --executors processes:2`` for a part;
``python benchmarks/scale.py --users 20000 --executors dask-local:2 --keep /big/disk`` for the
20,000-user build (the cohort and benchmark stay in ``--keep``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

USERS = (100, 200, 400, 800, 1600, 3200)
DAYS = 365
EXECUTORS = ("serial", "processes:2", "dask-local:2")
SHARD_USERS = 256
REFERENCE_USERS = 1000
#: Largest growth of the workers' peak RSS called flat (from the first cohort with a full cache).
FLAT = 1.10
#: Users from which a worker's two cached shards are full.
FULL_CACHE_USERS = 2 * SHARD_USERS


def _rss_mib(who: int) -> float:
    return resource.getrusage(who).ru_maxrss / 1024  # Linux: KiB


def synth_worker(n_users: int, days: int, out: str) -> dict[str, float]:
    """Write the sharded cohort; its time and this process's peak RSS."""
    import wearbench

    t0 = time.perf_counter()
    wearbench.synth(n_users, days, seed=0, reference_users=REFERENCE_USERS, out=out, shard_users=SHARD_USERS)
    return {"seconds": time.perf_counter() - t0, "rss_mib": _rss_mib(resource.RUSAGE_SELF)}


def build_worker(cohort: str, out: str, spec: str) -> dict[str, float]:
    """One build on one executor: seconds, items, peak RSS of this process and of its workers."""
    from wearbench.bench import build_benchmark
    from wearbench.executors import executor_from_spec

    t0 = time.perf_counter()
    with executor_from_spec(spec) as ex:
        result = build_benchmark(cohort, out, seed=0, executor=ex)
    seconds = time.perf_counter() - t0
    main = _rss_mib(resource.RUSAGE_SELF)
    workers = main if spec == "serial" else _rss_mib(resource.RUSAGE_CHILDREN)
    return {"seconds": seconds, "items": float(result.n_items), "main_mib": main, "worker_mib": workers}


def _run(*args: str) -> dict[str, float]:
    cmd = [sys.executable, __file__, *args]
    done = subprocess.run(cmd, check=True, capture_output=True, text=True)
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def slope(xs: list[float], ys: list[float]) -> float:
    """Least-squares slope of log y against log x."""
    lx, ly = [math.log(x) for x in xs], [math.log(y) for y in ys]
    mx, my = sum(lx) / len(lx), sum(ly) / len(ly)
    return sum((a - mx) * (b - my) for a, b in zip(lx, ly, strict=True)) / sum((a - mx) ** 2 for a in lx)


Rows = dict[str, list[dict[str, float]]]


def measure(users: list[int], executors: list[str], days: int, root: Path, serial_up_to: int) -> Rows:
    """Every build of the grid, printed as it finishes."""
    rows: Rows = {spec: [] for spec in executors}
    for n in users:
        cohort = root / f"cohort-{n}"
        made = _run("--synth", str(n), str(days), str(cohort))
        print(f"cohort {n:>6} users x {days} days: written in {made['seconds']:.1f} s", flush=True)
        for spec in executors:
            if spec == "serial" and n > serial_up_to:
                print(f"  {spec:<13} skipped (--serial-up-to {serial_up_to})", flush=True)
                continue
            r = _run("--build", str(cohort), str(root / f"bench-{n}"), spec)
            r["users"] = float(n)
            rows[spec].append(r)
            print(
                f"  {spec:<13} {r['seconds']:8.1f} s  {int(r['items']):>7} items  "
                f"main {r['main_mib']:7.0f} MiB  largest worker {r['worker_mib']:7.0f} MiB",
                flush=True,
            )
    return rows


def summary(rows: Rows) -> None:
    """Exponent and worker-memory growth per executor, against the issue's limits.

    Memory is judged from the first cohort of at least :data:`FULL_CACHE_USERS` users on: below
    it the rise is a worker's shard cache (two shards) filling, which is bounded by design.
    """
    for spec, rs in rows.items():
        if len(rs) < 2:
            continue
        exponent = slope([r["users"] for r in rs], [r["seconds"] for r in rs])
        print(
            f"{spec:<13} exponent {exponent:.2f} ({'ok' if exponent <= 1.1 else 'ABOVE 1.1'}) over "
            f"{int(rs[0]['users'])}-{int(rs[-1]['users'])} users; largest worker "
            f"{rs[0]['worker_mib']:.0f} -> {rs[-1]['worker_mib']:.0f} MiB "
            f"(x{rs[-1]['worker_mib'] / rs[0]['worker_mib']:.2f})"
        )
        full = [r for r in rs if r["users"] >= FULL_CACHE_USERS]
        if len(full) >= 2:
            growth = full[-1]["worker_mib"] / full[0]["worker_mib"]
            print(
                f"{'':<13} with the shard cache full ({int(full[0]['users'])}-{int(full[-1]['users'])} "
                f"users): {full[0]['worker_mib']:.0f} -> {full[-1]['worker_mib']:.0f} MiB "
                f"(x{growth:.2f}, {'flat' if growth <= FLAT else 'GROWS'})"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--users", default=",".join(map(str, USERS)))
    parser.add_argument("--executors", default=",".join(EXECUTORS))
    parser.add_argument("--days", type=int, default=DAYS)
    parser.add_argument("--keep", type=Path, default=None, help="Folder for cohorts and benchmarks (kept).")
    parser.add_argument(
        "--serial-up-to", type=int, default=10**9, help="Run the serial builds only up to this many users."
    )
    args = parser.parse_args()
    users = [int(u) for u in args.users.split(",")]
    executors = args.executors.split(",")
    if args.keep is not None:
        args.keep.mkdir(parents=True, exist_ok=True)
        summary(measure(users, executors, args.days, args.keep, args.serial_up_to))
        return
    with tempfile.TemporaryDirectory() as tmp:
        summary(measure(users, executors, args.days, Path(tmp), args.serial_up_to))


def _child(result: dict[str, float]) -> None:
    """Print a subprocess's result and leave without interpreter teardown (apache/arrow#34314)."""
    print(json.dumps(result), flush=True)
    os._exit(0)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--synth"]:
        _child(synth_worker(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]))
    elif sys.argv[1:2] == ["--build"]:
        _child(build_worker(sys.argv[2], sys.argv[3], sys.argv[4]))
    else:
        main()
