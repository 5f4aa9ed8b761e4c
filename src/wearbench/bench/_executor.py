"""Where per-user work runs: an executor interface, local processes now, a cluster later."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from typing import Protocol, TypeVar

T = TypeVar("T")
R = TypeVar("R")


class Executor(Protocol):
    """Maps a picklable function over tasks, yielding results in task order."""

    def map(self, fn: Callable[[T], R], tasks: Iterable[T]) -> Iterator[R]:
        """Apply ``fn`` to every task; results come back in the order of ``tasks``."""
        ...


class LocalExecutor:
    """Serial (``workers=1``) or a local process pool.

    Args:
        workers: Worker processes; 1 runs in this process.
    """

    def __init__(self, workers: int = 1) -> None:
        if workers < 1:
            raise ValueError(f"workers must be >= 1, got {workers}")
        self.workers = workers

    def map(self, fn: Callable[[T], R], tasks: Iterable[T]) -> Iterator[R]:
        """Apply ``fn`` to every task, in order."""
        if self.workers == 1:
            yield from map(fn, tasks)
            return
        with ProcessPoolExecutor(max_workers=self.workers) as pool:
            yield from pool.map(fn, tasks, chunksize=1)
