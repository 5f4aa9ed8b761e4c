"""Small shared pieces of the command line: the progress bar."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

__all__ = ["_progress_bar", "_show_progress"]


@contextmanager
def _progress_bar(label: str, enabled: bool) -> Iterator[Callable[[int, int], None] | None]:
    """Yield a ``(done, total)`` callback driving a rich progress bar on stderr."""
    if not enabled:
        yield None
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    columns = (TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(label, total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


def _show_progress(quiet: bool) -> bool:
    return not quiet and sys.stderr.isatty()
