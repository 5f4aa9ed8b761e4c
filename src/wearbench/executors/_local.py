"""The executor interface, the local executor (serial or a process pool) and the spec parser.

:func:`executor_from_spec` parses the ``--executor`` strings.
"""

from __future__ import annotations

import pickle
import re
import shutil
import tempfile
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol, TypeVar

from wearbench._errors import WearbenchError
from wearbench.executors._dask import DaskExecutor

T = TypeVar("T")
R = TypeVar("R")
S = TypeVar("S")

#: The shared objects this worker process has loaded, by file (the most recent few).
_SHARED: OrderedDict[str, Any] = OrderedDict()
#: Shared objects a worker keeps (a build has two in flight: without and with its pool).
_KEEP_SHARED = 4

#: The forms :func:`executor_from_spec` accepts, for help texts and error messages.
EXECUTOR_SPECS = "serial, processes:N, dask://HOST:PORT, dask-local:N"


class Executor(Protocol):
    """Maps a picklable function over tasks, yielding results in task order.

    Used as a context manager, an executor holds its workers for the whole block, and a parallel
    one submits every task of a ``map`` when it is called: several maps can then be in flight
    at once, and the workers run the tasks roughly in submission order while this process does
    other work. The serial executor runs a task when its result is asked for.
    """

    def map(self, fn: Callable[[T], R], tasks: Iterable[T]) -> Iterator[R]:
        """Apply ``fn`` to every task; results come back in the order of ``tasks``."""
        ...

    def map_shared(self, fn: Callable[[S, T], R], shared: S, tasks: Iterable[T]) -> Iterator[R]:
        """``fn(shared, task)`` for every task, in order; ``shared`` reaches each worker once."""
        ...


def _shared(path: str) -> Any:
    """The object pickled at ``path``, loaded once per worker process."""
    if path not in _SHARED:
        while len(_SHARED) >= _KEEP_SHARED:
            _SHARED.popitem(last=False)
        _SHARED[path] = pickle.loads(Path(path).read_bytes())
    _SHARED.move_to_end(path)
    return _SHARED[path]


def _with_shared(fn: Callable[[Any, T], R], path: str, task: T) -> R:
    return fn(_shared(path), task)


def _results(futures: list[Future[R]]) -> Iterator[R]:
    """The futures' results in order, each future dropped once its result is handed on."""
    pending = futures[::-1]
    futures.clear()
    while pending:
        yield pending.pop().result()


class LocalExecutor:
    """Serial (``workers=1``) or a local process pool.

    As a context manager, a process pool's workers are started once and serve every ``map`` of
    the block (tasks submitted when each ``map`` is called); a bare ``map`` starts and stops
    its own pool. ``map_shared`` pickles the shared object once into a temporary file that each
    worker reads once (the file is deleted when the block ends).

    Args:
        workers: Worker processes; 1 runs in this process.
    """

    def __init__(self, workers: int = 1) -> None:
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        self.workers = workers
        self._pool: ProcessPoolExecutor | None = None
        self._scratch: Path | None = None
        self._n_shared = 0

    def __enter__(self) -> LocalExecutor:
        self.open()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return "LocalExecutor(serial)" if self.workers == 1 else f"LocalExecutor(processes:{self.workers})"

    def open(self) -> None:
        """Start the process pool (its workers fork at the first task); a no-op when serial or open."""
        if self.workers > 1 and self._pool is None:
            self._pool = ProcessPoolExecutor(max_workers=self.workers)
            self._scratch = Path(tempfile.mkdtemp(prefix="wearbench-shared-"))

    def close(self) -> None:
        """Stop the pool (cancelling tasks not started) and delete the shared objects' files."""
        if self._pool is not None:
            self._pool.shutdown(wait=True, cancel_futures=True)
            self._pool = None
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None

    def map(self, fn: Callable[[T], R], tasks: Iterable[T]) -> Iterator[R]:
        """Apply ``fn`` to every task, in order."""
        if self.workers == 1:
            return map(fn, tasks)
        if self._pool is None:
            return _bare(self.workers, lambda ex: ex.map(fn, tasks))
        return _results([self._pool.submit(fn, t) for t in tasks])

    def map_shared(self, fn: Callable[[S, T], R], shared: S, tasks: Iterable[T]) -> Iterator[R]:
        """``fn(shared, task)`` for every task, in order; each worker process unpickles ``shared`` once."""
        if self.workers == 1:
            return (fn(shared, t) for t in tasks)
        if self._pool is None or self._scratch is None:
            return _bare(self.workers, lambda ex: ex.map_shared(fn, shared, tasks))
        self._n_shared += 1
        path = self._scratch / f"shared-{self._n_shared}.pickle"
        path.write_bytes(pickle.dumps(shared, protocol=pickle.HIGHEST_PROTOCOL))
        return _results([self._pool.submit(_with_shared, fn, str(path), t) for t in tasks])


def _bare(workers: int, start: Callable[[LocalExecutor], Iterator[R]]) -> Iterator[R]:
    """A map outside a ``with`` block: its own pool, started when iterated, stopped at the end."""
    with LocalExecutor(workers) as ex:
        yield from start(ex)


def _count(spec: str, value: str) -> int:
    if not re.fullmatch(r"[0-9]+", value) or int(value) < 1:
        raise WearbenchError(f"executor {spec!r}: N must be a whole number >= 1, got {value!r}")
    return int(value)


def executor_from_spec(spec: str) -> LocalExecutor | DaskExecutor:
    """The executor an ``--executor`` string names.

    Args:
        spec: ``serial``; ``processes:N`` (N local processes); ``dask://HOST:PORT`` (the Dask
            scheduler at ``tcp://HOST:PORT``); ``dask-local:N`` (a Dask LocalCluster of N
            single-threaded worker processes, started and closed by the executor).

    Returns:
        An executor, not yet connected (use it as a context manager to hold one connection or
        cluster across several ``map`` calls).

    Raises:
        WearbenchError: A spec of none of these forms, naming the forms.
    """
    text = spec.strip()
    if text == "serial":
        return LocalExecutor(1)
    kind, sep, rest = text.partition(":")
    if sep and kind == "processes":
        return LocalExecutor(_count(spec, rest))
    if sep and kind == "dask-local":
        return DaskExecutor(n_workers=_count(spec, rest))
    if text.startswith("dask://"):
        host, _, port = text[len("dask://") :].rpartition(":")
        if not host or not re.fullmatch(r"[0-9]+", port) or not 0 < int(port) < 65536:
            raise WearbenchError(f"executor {spec!r}: expected dask://HOST:PORT with a port 1-65535")
        return DaskExecutor(f"tcp://{host}:{int(port)}")
    raise WearbenchError(f"unknown executor {spec!r}; expected one of: {EXECUTOR_SPECS}")
