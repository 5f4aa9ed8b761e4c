"""``map_shared``: the shared object reaches every task, results in task order, any executor."""

import logging
import os
import signal
import time
from pathlib import Path
from typing import Any

import pytest

from wearbench import WearbenchError
from wearbench.executors import DaskExecutor, LocalExecutor


def scaled(shared: dict[str, int], x: int) -> int:
    return shared["k"] * x


@pytest.mark.parametrize("workers", [1, 2])
def test_local_map_shared_keeps_order(workers: int) -> None:
    ex = LocalExecutor(workers)
    assert list(ex.map_shared(scaled, {"k": 3}, [4, -1, 0, 7, 2])) == [12, -3, 0, 21, 6]
    assert list(ex.map_shared(scaled, {"k": -1}, [])) == []


def test_dask_map_shared_keeps_order_across_maps() -> None:
    pytest.importorskip("distributed")
    with DaskExecutor(n_workers=2) as ex:
        assert list(ex.map_shared(scaled, {"k": 2}, [5, 1, 3])) == [10, 2, 6]
        assert list(ex.map_shared(scaled, {"k": 10}, [1, 2])) == [10, 20]  # a second object
        assert list(ex.map(abs, [-1, 2])) == [1, 2]


def profiled(dask_worker: Any) -> tuple[bool, int]:
    """Whether a worker runs Dask's statistical profiler, and its seconds of profile history."""
    return "profile-cycle" in dask_worker.periodic_callbacks, len(dask_worker.profile_history)


def test_dask_local_workers_keep_no_profile_history() -> None:
    # the profiler kept one call tree per second (1,000 s of them): ~30 MiB per worker in an
    # 800-user build, and nothing reads it without a dashboard
    pytest.importorskip("distributed")
    with DaskExecutor(n_workers=1) as ex:
        assert list(ex.map(time.sleep, [1.5])) == [None]  # a profile cycle is 1 s
        assert list(ex.client.run(profiled).values()) == [(False, 0)]


def touch(path: str) -> str:
    Path(path).write_text("ran", encoding="utf-8")
    return path


def _appears(path: Path, within_s: float = 20.0) -> bool:
    deadline = time.monotonic() + within_s
    while time.monotonic() < deadline:
        if path.exists():
            return True
        time.sleep(0.02)
    return False


def test_a_process_session_serves_several_maps_in_flight(tmp_path: Path) -> None:
    with LocalExecutor(2) as ex:
        a = ex.map_shared(scaled, {"k": 2}, [1, 2, 3])
        b = ex.map_shared(scaled, {"k": 5}, [1, 2])
        c = ex.map(abs, [-3, 4])
        assert list(b) == [5, 10]  # read out of submission order
        assert list(c) == [3, 4]
        assert list(a) == [2, 4, 6]
        scratch = ex._scratch
        assert scratch is not None
        assert sorted(p.name for p in scratch.iterdir()) == ["shared-1.pickle", "shared-2.pickle"]
        marker = tmp_path / "ran"
        pending = ex.map(touch, [str(marker)])
        assert _appears(marker)  # submitted when map was called, before anything was read
        assert list(pending) == [str(marker)]
    assert not scratch.exists()  # the shared objects' files go with the session


def test_serial_runs_a_task_when_its_result_is_read(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    pending = LocalExecutor(1).map(touch, [str(marker)])
    assert not marker.exists()
    assert list(pending) == [str(marker)]
    assert marker.exists()


def test_bare_maps_each_start_their_own_pool() -> None:
    ex = LocalExecutor(2)
    a, b = ex.map_shared(scaled, {"k": 3}, [1, 2]), ex.map(abs, [-7])
    assert next(a) == 3
    assert list(b) == [7]  # b's pool closing does not stop a's
    assert list(a) == [6]
    assert ex._pool is None


def test_dask_session_serves_several_maps_in_flight(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    with DaskExecutor(n_workers=2) as ex:
        a = ex.map_shared(scaled, {"k": 2}, [1, 2, 3])
        b = ex.map_shared(scaled, {"k": 5}, [1, 2])
        marker = tmp_path / "ran"
        c = ex.map(touch, [str(marker)])
        assert _appears(marker)
        assert list(b) == [5, 10]
        assert list(a) == [2, 4, 6]
        assert list(c) == [str(marker)]


def slow_scaled(shared: dict[str, int], x: int) -> int:
    time.sleep(0.3)
    return shared["k"] * x


def _kill_worker(ex: DaskExecutor) -> None:
    """SIGKILL the one worker; its nanny starts a new one, with nothing in memory."""
    [pid] = ex.client.run(os.getpid).values()
    os.kill(pid, signal.SIGKILL)


def test_dask_map_shared_scatters_again_when_the_cluster_loses_every_copy(
    caplog: pytest.LogCaptureFixture,
) -> None:
    # a scattered object has no lineage: killing the worker with its last copy makes the
    # scheduler forget it and cancel the tasks waiting for it ("already forgotten")
    pytest.importorskip("distributed")
    caplog.set_level(logging.WARNING, logger="wearbench.executors")
    with DaskExecutor(n_workers=1) as ex:
        results = ex.map_shared(slow_scaled, {"k": 3}, [1, 2, 3, 4])
        assert next(results) == 3
        _kill_worker(ex)
        assert list(results) == [6, 9, 12]
    [record] = [r for r in caplog.records if r.name.startswith("wearbench")]
    assert "lost the shared object of slow_scaled" in record.getMessage()
    assert "resubmitting 3 of 4 tasks" in record.getMessage()


def test_dask_map_shared_stops_after_rescatters_losses() -> None:
    pytest.importorskip("distributed")
    with DaskExecutor(n_workers=1, rescatters=0) as ex:
        results = ex.map_shared(slow_scaled, {"k": 3}, [1, 2, 3])
        assert next(results) == 3
        _kill_worker(ex)
        with pytest.raises(WearbenchError, match=r"lost the shared object of slow_scaled 1 times"):
            list(results)
