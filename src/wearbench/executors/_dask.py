"""A Dask distributed executor: an existing cluster (``dask://HOST:PORT``) or a LocalCluster.

Dask is optional (the ``[dask]`` extra) and imported only when an executor opens.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import CancelledError
from types import TracebackType
from typing import Any, Generic, TypeVar

from wearbench._errors import WearbenchError

T = TypeVar("T")
R = TypeVar("R")
S = TypeVar("S")

_log = logging.getLogger(__name__)


def _apply_shared(task: T, *, fn: Callable[[S, T], R], shared: S) -> R:
    return fn(shared, task)


#: Dask settings of the workers a ``dask-local:N`` executor starts. Without a dashboard nothing
#: reads the workers' statistical profiler, whose history (a call tree per second, twice, the
#: last 1,000 s kept) grew each worker by ~30 MiB over the generation stage of an 800-user build.
LOCAL_WORKER_CONFIG: dict[str, Any] = {"distributed.worker.profile.enabled": False}


def _distributed() -> Any:
    try:
        import distributed
    except ImportError as e:
        raise WearbenchError(
            "the Dask executors need dask[distributed]: pip install 'wearbench[dask]'"
        ) from e
    return distributed


class DaskExecutor:
    """Runs tasks on a Dask cluster; results come back in task order.

    Each task is one Dask task (``client.map``, ``pure=False``). A task whose worker dies is
    rescheduled by the scheduler on another worker; a task that raises is retried ``retries``
    times, then its error is raised here. ``map_shared`` scatters its shared object again, and
    resubmits the tasks that still need it, when the cluster lost every copy (a killed worker
    held the last one: Dask's Active Memory Manager drops the copies that idle workers hold).
    Task functions must be deterministic for the artifact to stay byte-identical (the build's
    are: every random draw is seeded from the task).

    Use it as a context manager to hold one connection (or LocalCluster) across ``map`` calls;
    inside the block each ``map`` submits its tasks when called, so several can be in flight.
    A bare ``map`` opens and closes its own connection when iterated.

    Args:
        address: Scheduler address (``tcp://HOST:PORT``); ``None`` starts a LocalCluster.
        n_workers: LocalCluster worker processes (single-threaded; only without ``address``).
        retries: Retries of a task that raised.
        timeout_s: Seconds to wait for the scheduler when connecting.
        rescatters: Times one ``map_shared`` scatters its shared object again after the cluster
            lost it; one more loss raises ``WearbenchError``.
    """

    def __init__(
        self,
        address: str | None = None,
        *,
        n_workers: int = 2,
        retries: int = 2,
        timeout_s: float = 10.0,
        rescatters: int = 3,
    ) -> None:
        self.address = address
        self.n_workers = n_workers
        self.retries = retries
        self.timeout_s = timeout_s
        self.rescatters = rescatters
        self._client: Any = None
        self._cluster: Any = None

    @property
    def client(self) -> Any:
        """The connected ``distributed.Client`` (``None`` when closed), e.g. for diagnostics."""
        return self._client

    def __repr__(self) -> str:
        where = self.address if self.address else f"dask-local:{self.n_workers}"
        return f"DaskExecutor({where})"

    def __enter__(self) -> DaskExecutor:
        self.open()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def open(self) -> None:
        """Connect to the scheduler (or start the LocalCluster); a no-op when already open.

        Raises:
            WearbenchError: Dask is not installed, or no scheduler answered at ``address``.
        """
        if self._client is not None:
            return
        distributed = _distributed()
        if self.address is None:
            if self.n_workers < 1:
                raise WearbenchError(f"dask-local: n_workers must be >= 1, got {self.n_workers}")
            import dask.config  # installed with distributed

            with dask.config.set(LOCAL_WORKER_CONFIG):  # the nannies hand it to their workers
                self._cluster = distributed.LocalCluster(
                    n_workers=self.n_workers,
                    threads_per_worker=1,
                    processes=True,
                    host="127.0.0.1",
                    dashboard_address=None,
                )
            self._client = distributed.Client(self._cluster)
            return
        try:
            self._client = distributed.Client(self.address, timeout=self.timeout_s)
        except (OSError, TimeoutError) as e:
            raise WearbenchError(f"no Dask scheduler answered at {self.address} ({e})") from e

    def close(self) -> None:
        """Close the connection, and the LocalCluster if this executor started it."""
        if self._client is not None:
            self._client.close()
            self._client = None
        if self._cluster is not None:
            self._cluster.close()
            self._cluster = None

    def map(self, fn: Callable[[T], R], tasks: Iterable[T]) -> Iterator[R]:
        """Apply ``fn`` to every task on the cluster; results in the order of ``tasks``.

        Inside a ``with`` block the tasks are submitted now; a bare call opens (and closes) its
        own connection when iterated.
        """
        if self._client is None:
            return self._bare(lambda ex: ex.map(fn, tasks))
        return _ordered(self._client.map(fn, list(tasks), pure=False, retries=self.retries))

    def map_shared(self, fn: Callable[[S, T], R], shared: S, tasks: Iterable[T]) -> Iterator[R]:
        """``fn(shared, task)`` for every task, in order; ``shared`` is scattered to every worker once.

        Raises:
            WearbenchError: The cluster lost ``shared`` more than ``rescatters`` times.
        """
        if self._client is None:
            return self._bare(lambda ex: ex.map_shared(fn, shared, tasks))
        return _SharedMap(self, fn, shared, list(tasks)).results()

    def _bare(self, start: Callable[[DaskExecutor], Iterator[R]]) -> Iterator[R]:
        """A map outside a ``with`` block, on a connection of its own."""
        with DaskExecutor(
            self.address,
            n_workers=self.n_workers,
            retries=self.retries,
            timeout_s=self.timeout_s,
            rescatters=self.rescatters,
        ) as ex:
            yield from start(ex)


def _name(fn: Callable[..., Any]) -> str:
    """A task function's name, also through ``functools.partial``."""
    inner = getattr(fn, "func", fn)
    return str(getattr(inner, "__name__", type(inner).__name__))


def _ordered(
    futures: list[Any], on_cancel: Callable[[int, CancelledError], None] | None = None
) -> Iterator[Any]:
    """The futures' results in order, each released on the cluster once it is here.

    ``on_cancel(i, error)``, when given, is called for a cancelled future ``i`` and must put a
    new future in its place (``futures`` is the caller's list); without it the error is raised.
    """
    for i in range(len(futures)):
        while True:
            try:
                result = futures[i].result()
                break
            except CancelledError as e:
                if on_cancel is None:
                    raise
                on_cancel(i, e)
        futures[i] = None
        yield result


class _SharedMap(Generic[S, T, R]):
    """The futures of one ``map_shared``; their tasks are submitted when it is made.

    A scattered object has no lineage: when the worker holding its last copy dies, the scheduler
    forgets it and cancels the tasks still waiting for it. Those tasks are resubmitted here on a
    fresh scatter; finished tasks keep their results, so every result is computed from the same
    task and the same object, and the order of results does not change.
    """

    def __init__(self, executor: DaskExecutor, fn: Callable[[S, T], R], shared: S, tasks: list[T]):
        self._ex = executor
        self._fn = fn
        self._shared = shared
        self._tasks = tasks
        self._losses = 0
        self._data: Any = None  # the scattered object's future, held until the last result
        self._futures: list[Any] = self._submit(range(len(tasks)))

    def _submit(self, index: Sequence[int]) -> list[Any]:
        client = self._ex.client
        # in a list: scatter reads a dict as {key: value} and would scatter its values
        [self._data] = client.scatter([self._shared], broadcast=True, hash=False)
        tasks = [self._tasks[i] for i in index]
        return list(
            client.map(
                _apply_shared, tasks, fn=self._fn, shared=self._data, pure=False, retries=self._ex.retries
            )
        )

    def _resubmit(self, first: int, error: CancelledError) -> None:
        """Scatter again and resubmit task ``first`` and every later task that was cancelled."""
        self._losses += 1
        if self._losses > self._ex.rescatters:
            raise WearbenchError(
                f"the Dask cluster lost the shared object of {_name(self._fn)} "
                f"{self._losses} times (rescatters={self._ex.rescatters}); are its workers "
                f"being killed? ({error})"
            ) from error
        futures = self._futures
        again = [first] + [
            i for i in range(first + 1, len(futures)) if futures[i].status in ("cancelled", "lost")
        ]
        _log.warning(
            "the Dask cluster lost the shared object of %s (%s); scattering it again and "
            "resubmitting %d of %d tasks",
            _name(self._fn),
            error,
            len(again),
            len(futures),
        )
        for i, future in zip(again, self._submit(again), strict=True):
            futures[i] = future

    def results(self) -> Iterator[R]:
        """The results in task order, each released on the cluster once it is here."""
        yield from _ordered(self._futures, on_cancel=self._resubmit)
        self._data = None
