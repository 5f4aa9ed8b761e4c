"""The executor interface, the local executor (serial or a process pool) and the spec parser.

:func:`executor_from_spec` parses the ``--executor`` strings.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from types import TracebackType
from typing import Any, Protocol, TypeVar

from wearbench._errors import WearbenchError
from wearbench.executors._dask import DaskExecutor

T = TypeVar("T")
R = TypeVar("R")
S = TypeVar("S")

#: The object :meth:`LocalExecutor.map_shared` installed in this worker process.
_SHARED: list[Any] = []

#: The forms :func:`executor_from_spec` accepts, for help texts and error messages.
EXECUTOR_SPECS = "serial, processes:N, dask://HOST:PORT, dask-local:N"


class Executor(Protocol):
    """Maps a picklable function over tasks, yielding results in task order."""

    def map(self, fn: Callable[[T], R], tasks: Iterable[T]) -> Iterator[R]:
        """Apply ``fn`` to every task; results come back in the order of ``tasks``."""
        ...

    def map_shared(self, fn: Callable[[S, T], R], shared: S, tasks: Iterable[T]) -> Iterator[R]:
        """``fn(shared, task)`` for every task, in order; ``shared`` reaches each worker once."""
        ...


def _install(shared: Any) -> None:
    _SHARED[:] = [shared]


def _with_shared(fn: Callable[[Any, T], R], task: T) -> R:
    return fn(_SHARED[0], task)


class LocalExecutor:
    """Serial (``workers=1``) or a local process pool.

    A context manager too (nothing to open or close), like :class:`DaskExecutor`.

    Args:
        workers: Worker processes; 1 runs in this process.
    """

    def __init__(self, workers: int = 1) -> None:
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        self.workers = workers

    def __enter__(self) -> LocalExecutor:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        return None

    def __repr__(self) -> str:
        return "LocalExecutor(serial)" if self.workers == 1 else f"LocalExecutor(processes:{self.workers})"

    def map(self, fn: Callable[[T], R], tasks: Iterable[T]) -> Iterator[R]:
        """Apply ``fn`` to every task, in order."""
        if self.workers == 1:
            yield from map(fn, tasks)
            return
        with ProcessPoolExecutor(max_workers=self.workers) as pool:
            yield from pool.map(fn, tasks, chunksize=1)

    def map_shared(self, fn: Callable[[S, T], R], shared: S, tasks: Iterable[T]) -> Iterator[R]:
        """``fn(shared, task)`` for every task, in order; each worker process unpickles ``shared`` once."""
        if self.workers == 1:
            yield from (fn(shared, t) for t in tasks)
            return
        with ProcessPoolExecutor(max_workers=self.workers, initializer=_install, initargs=(shared,)) as pool:
            yield from pool.map(functools.partial(_with_shared, fn), tasks, chunksize=1)


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
