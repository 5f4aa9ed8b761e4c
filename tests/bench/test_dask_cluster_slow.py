"""A real Dask cluster on loopback (a ``dask scheduler`` and two ``dask worker`` processes).

A build through ``dask://`` gives the serial build's bytes, also when one worker is killed
(SIGKILL) while it runs a task: the scheduler reschedules that task on the other worker.
"""

import functools
import importlib
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest

import wearbench
from wearbench.bench import build_benchmark
from wearbench.cohort import Cohort, save_cohort
from wearbench.executors import executor_from_spec

distributed = pytest.importorskip("distributed")
DASK = Path(sys.executable).parent / "dask"
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not DASK.is_file(), reason=f"no dask command next to {sys.executable}"),
]
SRC = str(Path(wearbench.__file__).resolve().parents[1])


def files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


#: A task wrapper the cluster's processes import (from the test's folder, on their PYTHONPATH).
SLOW_MODULE = """
import time


def slow(fn, delay_s, task):
    time.sleep(delay_s)  # so that a kill lands while a task runs
    return fn(task)


def slow_shared(fn, delay_s, shared, task):
    time.sleep(delay_s)
    return fn(shared, task)
"""


class Cluster:
    """The scheduler's address, the worker processes by name (``w1``, ``w2``), the folder."""

    def __init__(self, address: str, workers: dict[str, subprocess.Popen[bytes]], folder: Path) -> None:
        self.address = address
        self.workers = workers
        self.folder = folder


def _start(args: list[str], tmp: Path, log: str) -> subprocess.Popen[bytes]:
    path = [SRC, str(tmp), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(path)}
    with (tmp / log).open("wb") as out:
        return subprocess.Popen([str(DASK), *args], cwd=tmp, env=env, stdout=out, stderr=subprocess.STDOUT)


@pytest.fixture
def cluster(tmp_path: Path) -> Iterator[Cluster]:
    sched_file = tmp_path / "scheduler.json"
    (tmp_path / "wb_slow_task.py").write_text(SLOW_MODULE)
    procs = [
        _start(
            [
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--no-dashboard",
                "--scheduler-file",
                str(sched_file),
            ],
            tmp_path,
            "scheduler.log",
        )
    ]
    try:
        deadline = time.monotonic() + 30
        while not sched_file.is_file() or not sched_file.read_text().strip():
            assert time.monotonic() < deadline, (tmp_path / "scheduler.log").read_text()
            time.sleep(0.1)
        time.sleep(0.2)  # the file is written whole, but give the writer a moment
        address = json.loads(sched_file.read_text())["address"]
        assert address.startswith("tcp://127.0.0.1:")
        workers = {}
        for name in ("w1", "w2"):
            workers[name] = _start(
                ["worker", "--scheduler-file", str(sched_file), "--host", "127.0.0.1", "--nworkers", "1",
                 "--nthreads", "1", "--no-nanny", "--no-dashboard", "--name", name,
                 "--local-directory", str(tmp_path / name)],
                tmp_path,
                f"{name}.log",
            )  # fmt: skip
            procs.append(workers[name])
        with distributed.Client(address, timeout=30) as client:
            client.wait_for_workers(2, timeout=60)
        yield Cluster(address, workers, tmp_path)
    finally:
        for p in reversed(procs):
            if p.poll() is None:
                p.terminate()
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


@pytest.fixture(scope="module")
def cohort() -> Cohort:
    return wearbench.synth(10, 200, seed=11, reference_users=200)


@pytest.fixture(scope="module")
def serial(cohort: Cohort, tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    out = tmp_path_factory.mktemp("serial") / "bench"
    build_benchmark(cohort, out, seed=1)
    return files(out)


def test_build_through_a_loopback_cluster_equals_serial(
    cluster: Cluster, cohort: Cohort, serial: dict[str, bytes], tmp_path: Path
) -> None:
    port = cluster.address.rsplit(":", 1)[1]
    with executor_from_spec(f"dask://127.0.0.1:{port}") as ex:
        build_benchmark(cohort, tmp_path / "dask", seed=1, executor=ex)
    got = files(tmp_path / "dask")
    assert got.keys() == serial.keys()
    assert {"items.jsonl", "manifest.json", "datasheet.md"} <= got.keys()
    for name in got:
        assert got[name] == serial[name], name


def test_workers_read_a_sharded_folder_and_build_the_serial_artifact(
    cluster: Cluster, cohort: Cohort, tmp_path: Path
) -> None:
    save_cohort(cohort, tmp_path / "shards", shard_users=3)  # 4 shards; the workers read them
    build_benchmark(tmp_path / "shards", tmp_path / "serial", seed=1)
    with executor_from_spec(cluster.address.replace("tcp://", "dask://")) as ex:
        build_benchmark(tmp_path / "shards", tmp_path / "dask", seed=1, executor=ex, chunk_users=2)
    assert files(tmp_path / "dask") == files(tmp_path / "serial")


class _SlowTasks:
    """Wraps an executor; every task sleeps ``delay_s`` first."""

    def __init__(self, inner: Any, delay_s: float) -> None:
        self.inner = inner
        self.delay_s = delay_s

    def map(self, fn: Callable[[Any], Any], tasks: Iterable[Any]) -> Iterator[Any]:
        slow = importlib.import_module("wb_slow_task").slow
        return self.inner.map(functools.partial(slow, fn, self.delay_s), tasks)  # type: ignore[no-any-return]

    def map_shared(self, fn: Callable[[Any, Any], Any], shared: Any, tasks: Iterable[Any]) -> Iterator[Any]:
        slow = importlib.import_module("wb_slow_task").slow_shared
        return self.inner.map_shared(functools.partial(slow, fn, self.delay_s), shared, tasks)  # type: ignore[no-any-return]


def test_killing_a_worker_mid_build_gives_the_same_artifact(
    cluster: Cluster,
    cohort: Cohort,
    serial: dict[str, bytes],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.syspath_prepend(str(cluster.folder))
    monkeypatch.delitem(sys.modules, "wb_slow_task", raising=False)
    victim = cluster.workers["w2"]
    killed: list[int] = []
    with distributed.Client(cluster.address, timeout=30) as watcher:
        addr = {w["name"]: a for a, w in watcher.scheduler_info()["workers"].items()}["w2"]

        def progress(done: int, total: int) -> None:
            if killed:
                return
            deadline = time.monotonic() + 30
            while not watcher.processing([addr]).get(addr):  # wait until w2 holds a task
                assert time.monotonic() < deadline, "w2 never got a task"
                time.sleep(0.02)
            os.kill(victim.pid, signal.SIGKILL)
            killed.append(done)

        with executor_from_spec(cluster.address.replace("tcp://", "dask://")) as ex:
            build_benchmark(
                cohort,
                tmp_path / "dask",
                seed=1,
                executor=_SlowTasks(ex, 0.4),
                progress=progress,
                chunk_users=1,  # ten generation tasks
            )
        assert victim.wait(timeout=10) == -signal.SIGKILL
        assert killed == [1]  # killed after the first of 10 results, while w2 ran a task
        assert [w["name"] for w in watcher.scheduler_info()["workers"].values()] == ["w1"]
    got = files(tmp_path / "dask")
    assert got.keys() == serial.keys()
    for name in got:
        assert got[name] == serial[name], name
