"""Minute preprocessing on a 2-worker cluster: a Dask DataFrame pipeline against per-user tasks.

Issue 17 asks whether minute-level preprocessing should run as a Dask DataFrame pipeline or as
per-shard tasks, whichever measures faster. Both sides here compute the same public result on one
synthetic minute cohort (``sources.synthesize_minutes``, written once, untimed): steps 1–4 of
:func:`wearbench.tracks.hourly_user` (wear filter, low-variance filter, zero-to-NaN, hourly
``(24, 38)`` segments), laid out as one *day table*: one row per (user, date) with ``user_id``,
``date``, ``retained`` and the day's hourly segment flattened to 912 float32 columns
``h{hour}_{k}`` (NaN on dropped days).

- tasks: wearbench's existing path. Each task runs ``hourly_user`` (a 32-day row group at a time)
  for 1 or ``--users-per-task`` users and returns their day tables; the tasks go through
  ``executor_from_spec(...).map`` on ``processes:2`` and ``dask-local:2`` (and ``serial`` as the
  one-core reference).
- ddf: ``dask.dataframe.read_parquet`` on the cohort's user files (``dtype_backend="pyarrow"``,
  so the ``fixed_size_list<float32>[1440]`` channels stay Arrow buffers), one partition per user
  file (``--split-row-groups``: per 32-day row group), then ``map_partitions`` running the same
  per-day kernel (``retained_days``, ``zero_to_nan``, ``hourly``) on each partition; the
  partition's user comes from ``partition_info``. The cluster is a LocalCluster like
  ``dask-local:2`` (2 single-threaded worker processes).

The script asserts that every variant's table equals the serial tasks' table
(``assert_frame_equal``, exact). Each variant runs ``--repeat`` times, each time in its own fresh
subprocess; printed per variant: the cluster/pool start-up seconds (Dask workers are spawned
processes, so their start-up includes importing pandas, pyarrow, dask.dataframe and
wearbench.tracks on every worker; ``processes:2`` forks the already-imported parent), the run's
seconds (best and median of the repeats), peak RSS of the main process and of the largest worker
process (Linux ``ru_maxrss``), and the ratio of each run time to the tasks on ``dask-local:2``.

Run: ``python benchmarks/minutes_dask.py`` (40 users x 60 days, 3 repeats; a few minutes on
a quiet 2-core machine, about 20 under heavy load); ``--repeat 1`` for a quick check.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from wearbench.minutes import CHANNEL_NAMES, MINUTES_PER_DAY, N_CHANNELS, minute_user_ids, user_file
from wearbench.tracks import hourly, hourly_user, retained_days, zero_to_nan

#: Hourly segment columns of the day table: hour, then the 38 ``[V | M]`` features.
SEGMENT_COLUMNS = [f"h{h:02d}_{k:02d}" for h in range(24) for k in range(38)]
#: (name, side, spec, users per task) of every variant; ``ddf`` variants ignore users per task.
VARIANTS: list[tuple[str, str, str, int]] = [
    ("tasks serial", "tasks", "serial", 1),
    ("tasks processes:2", "tasks", "processes:2", 1),
    ("tasks processes:2 x8", "tasks", "processes:2", 8),
    ("tasks dask-local:2", "tasks", "dask-local:2", 1),
    ("tasks dask-local:2 x8", "tasks", "dask-local:2", 8),
    ("ddf per file", "ddf", "files", 1),
    ("ddf per row group", "ddf", "row-groups", 1),
]
REFERENCE = "tasks serial"
BASELINE = "tasks dask-local:2"


def day_table(user_id: str, dates: np.ndarray, retained: np.ndarray, segments: np.ndarray) -> pd.DataFrame:
    """One user's (or chunk's) day table: a row per date, the retained days' segments, NaN elsewhere.

    Args:
        user_id: The user.
        dates: ``datetime64[D]`` dates, shape ``(n,)``.
        retained: Retained-day mask, shape ``(n,)``.
        segments: ``(retained.sum(), 24, 38)`` float32 hourly segments of the retained days.

    Returns:
        ``user_id``, ``date``, ``retained`` and the 912 :data:`SEGMENT_COLUMNS`.
    """
    flat = np.full((dates.size, len(SEGMENT_COLUMNS)), np.nan, dtype=np.float32)
    flat[retained] = segments.reshape(-1, len(SEGMENT_COLUMNS))
    head = pd.DataFrame(
        {
            "user_id": np.full(dates.size, user_id, dtype=object),
            "date": dates.astype("datetime64[D]").astype("datetime64[s]"),
            "retained": retained.astype(bool),
        }
    )
    return pd.concat([head, pd.DataFrame(flat, columns=SEGMENT_COLUMNS)], axis=1)


def warm_up() -> None:
    """Import what a task needs (run on every Dask worker before the clock starts)."""
    import dask.dataframe  # noqa: F401
    import pyarrow.parquet  # noqa: F401

    import wearbench.tracks  # noqa: F401


# --- tasks (wearbench's path) --------------------------------------------------------------------


def users_table(task: tuple[str, tuple[str, ...]]) -> pd.DataFrame:
    """Day tables of a shard of users via ``hourly_user`` (an executor task: top level, picklable)."""
    path, uids = task
    frames = []
    for uid in uids:
        h = hourly_user(path, uid)
        frames.append(day_table(uid, h.dates, h.retained, h.segments))
    return pd.concat(frames, ignore_index=True)


def run_tasks(path: str, spec: str, users_per_task: int) -> tuple[pd.DataFrame, float, float]:
    """The day table via the executor; (table, start-up seconds, run seconds)."""
    from wearbench.executors import DaskExecutor, executor_from_spec

    uids = minute_user_ids(path)
    shards = [(path, tuple(uids[i : i + users_per_task])) for i in range(0, len(uids), users_per_task)]
    t0 = time.perf_counter()
    with executor_from_spec(spec) as ex:
        if isinstance(ex, DaskExecutor):
            ex._client.run(warm_up)  # spawned workers: imports counted as start-up, not as run
        t1 = time.perf_counter()
        table = pd.concat(list(ex.map(users_table, shards)), ignore_index=True)
        t2 = time.perf_counter()
    return table, t1 - t0, t2 - t1


# --- Dask DataFrame ------------------------------------------------------------------------------


def _arrow_days(column: pd.Series) -> np.ndarray:
    """``(n, 1440)`` numpy view of a ``fixed_size_list[1440]`` Arrow-backed column."""
    arr = column.array._pa_array.combine_chunks()  # ArrowExtensionArray
    return np.asarray(arr.flatten().to_numpy(zero_copy_only=False)).reshape(-1, MINUTES_PER_DAY)


def partition_table(
    part: pd.DataFrame, owners: list[str], partition_info: dict[str, Any] | None = None
) -> pd.DataFrame:
    """Steps 1–4 on one partition (a user file or one row group): the same per-day kernel.

    Args:
        part: The partition's rows: ``date``, the 19 channels, ``non_wear`` (Arrow-backed).
        owners: User id of every partition, by partition number.
        partition_info: Dask's ``{"number": i, ...}``; None for the meta call.

    Returns:
        The partition's day table.
    """
    uid = owners[partition_info["number"]] if partition_info is not None else ""
    n = len(part)
    dates = np.zeros(0, "datetime64[D]")
    values = np.empty((n, N_CHANNELS, MINUTES_PER_DAY), dtype=np.float32)
    non_wear = np.zeros((n, MINUTES_PER_DAY), dtype=bool)
    if n:
        dates = np.asarray(part["date"].array._pa_array.to_numpy(), dtype="datetime64[D]")
        for c, name in enumerate(CHANNEL_NAMES):
            values[:, c, :] = _arrow_days(part[name])
        non_wear = _arrow_days(part["non_wear"]).astype(bool)
    keep = retained_days(values, non_wear)
    segments = hourly(zero_to_nan(values[keep]))
    return day_table(uid, dates, keep, segments)


def run_ddf(path: str, split: str) -> tuple[pd.DataFrame, float, float]:
    """The day table via ``read_parquet`` + ``map_partitions``; (table, start-up s, run s)."""
    import dask.dataframe as dd
    import pyarrow.parquet as pq

    distributed: Any = importlib.import_module("distributed")  # untyped

    t0 = time.perf_counter()
    cluster = distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    )
    client = distributed.Client(cluster)
    client.run(warm_up)
    t1 = time.perf_counter()
    uids = minute_user_ids(path)
    files = [str(user_file(path, uid)) for uid in uids]
    by_group = split == "row-groups"
    owners = (
        [uid for uid, f in zip(uids, files, strict=True) for _ in range(pq.ParquetFile(f).num_row_groups)]
        if by_group
        else uids
    )
    ddf = dd.read_parquet(files, dtype_backend="pyarrow", split_row_groups=by_group)
    if ddf.npartitions != len(owners):
        raise RuntimeError(f"{ddf.npartitions} partitions for {len(owners)} {split}")
    meta = day_table("", np.zeros(0, "datetime64[D]"), np.zeros(0, bool), np.zeros((0, 24, 38), np.float32))
    out = ddf.map_partitions(partition_table, owners, meta=meta, enforce_metadata=False)
    table = out.compute().reset_index(drop=True)
    t2 = time.perf_counter()
    client.close()
    cluster.close()
    return table, t1 - t0, t2 - t1


# --- driver --------------------------------------------------------------------------------------


def _rss_mib(who: int) -> float:
    return resource.getrusage(who).ru_maxrss / 1024  # Linux: KiB


def variant_worker(path: str, name: str, out: str) -> dict[str, float]:
    """Run one variant in this (fresh) process; write its table to ``out``, return the numbers."""
    _, side, spec, per_task = next(v for v in VARIANTS if v[0] == name)
    table, start, run = run_tasks(path, spec, per_task) if side == "tasks" else run_ddf(path, spec)
    table.to_pickle(out)
    main = _rss_mib(resource.RUSAGE_SELF)
    workers = main if spec == "serial" else _rss_mib(resource.RUSAGE_CHILDREN)
    return {
        "start_s": start,
        "run_s": run,
        "main_mib": main,
        "worker_mib": workers,
        "rows": float(len(table)),
    }


def _run(*args: str) -> dict[str, float] | None:
    """One variant in a fresh subprocess; None (its stderr's tail printed) if it failed."""
    done = subprocess.run([sys.executable, __file__, *args], capture_output=True, text=True)
    if done.returncode != 0:
        print("    failed: " + " | ".join(done.stderr.strip().splitlines()[-3:]), flush=True)
        return None
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def measure(path: Path, names: list[str], repeat: int, tmp: Path) -> dict[str, list[dict[str, float]]]:
    """Every variant ``repeat`` times (interleaved), each run's table checked against the reference.

    A run that fails (e.g. a Dask worker not starting in time on an overloaded machine) is
    reported and left out.
    """
    rows: dict[str, list[dict[str, float]]] = {n: [] for n in names}
    reference: pd.DataFrame | None = None
    for r in range(repeat):
        for name in names:
            out = tmp / "table.pkl"
            result = _run("--variant", str(path), name, str(out))
            load = os.getloadavg()[0]
            if result is None:
                print(f"  run {r + 1}/{repeat} {name}: failed (load average {load:.1f})", flush=True)
                continue
            table = pd.read_pickle(out)
            if reference is None:
                reference = table
            pd.testing.assert_frame_equal(table, reference, check_exact=True)
            rows[name].append(result)
            took = f"{result['run_s']:.2f} s"
            print(f"  run {r + 1}/{repeat} {name}: {took} (table equal, load average {load:.1f})", flush=True)
    return {n: rs for n, rs in rows.items() if rs}


def summary(rows: dict[str, list[dict[str, float]]]) -> None:
    """The table of best/median times, start-up, RSS and the ratio to the tasks on dask-local:2."""
    best = {n: min(r["run_s"] for r in rs) for n, rs in rows.items()}
    base = best.get(BASELINE, next(iter(best.values())))
    head = ("start s", "run s best", "median", "main MiB", "worker MiB", "ratio")
    print(
        f"\n{'variant':24} " + " ".join(f"{h:>{w}}" for h, w in zip(head, (8, 10, 7, 9, 10, 6), strict=True))
    )
    for name, rs in rows.items():
        print(
            f"{name:24} {statistics.median(r['start_s'] for r in rs):8.2f} {best[name]:10.2f} "
            f"{statistics.median(r['run_s'] for r in rs):7.2f} {max(r['main_mib'] for r in rs):9.0f} "
            f"{max(r['worker_mib'] for r in rs):10.0f} {best[name] / base:6.2f}"
        )
    print(f"ratio = best run time / best run time of '{BASELINE}'; all tables equal to '{REFERENCE}'")


def main() -> None:
    """Write the cohort (unless ``--data``), run the variants, print the summary."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--users", type=int, default=40)
    parser.add_argument("--days", type=int, default=60)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--data", type=Path, default=None, help="An existing minute-cohort folder.")
    parser.add_argument("--variants", default=",".join(v[0] for v in VARIANTS))
    args = parser.parse_args()
    names = [n.strip() for n in args.variants.split(",")]
    if REFERENCE not in names:
        names.insert(0, REFERENCE)
    names.remove(REFERENCE)
    names.insert(0, REFERENCE)
    with tempfile.TemporaryDirectory() as tmp:
        data = args.data
        if data is None:
            from wearbench.sources import synthesize_minutes

            data = Path(tmp) / "minutes"
            synthesize_minutes(args.users, args.days, 0, data)
        n = len(minute_user_ids(data))
        print(f"cohort {data}: {n} users, {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f}")
        summary(measure(data, names, args.repeat, Path(tmp)))


def _child(result: dict[str, float]) -> None:
    """Print a subprocess's result and leave without interpreter teardown (apache/arrow#34314)."""
    print(json.dumps(result), flush=True)
    os._exit(0)


if __name__ == "__main__":
    if sys.argv[1:2] == ["--variant"]:
        _child(variant_worker(sys.argv[2], sys.argv[3], sys.argv[4]))
    else:
        main()
