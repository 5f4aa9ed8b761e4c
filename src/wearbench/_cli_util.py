"""Small shared pieces of the command line: progress on stderr.

On a terminal, progress is a rich bar naming the stage. When stderr is not a terminal (a pipe,
a CI log), it is plain timestamped lines instead, so that a log shows progress as it happens:
one line when a stage starts, one at each further tenth of it (or after 30 s without a line),
and one when it completes::

    2026-12-01 15:50:01 synthesising users: 0/200 (0%)
    2026-12-01 15:50:04 synthesising users: 20/200 (10%)
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TextIO

import click

from wearbench._errors import WearbenchError
from wearbench.executors import EXECUTOR_SPECS, DaskExecutor, LocalExecutor, executor_from_spec

#: Seconds after which a line is printed even without a further tenth of progress.
_HEARTBEAT_S = 30.0


def _stage(label: str, stages: Sequence[str] | None, done: int) -> str:
    """``label: stage`` where ``stages[done]`` names the stage now running (``done`` steps finished)."""
    if not stages:
        return label
    return f"{label}: {stages[min(done, len(stages) - 1)]}"


class LineProgress:
    """A ``(done, total)`` callback writing plain timestamped progress lines.

    Args:
        label: What is progressing (``"generating users"``).
        stream: Where lines go (stderr by default).
        stages: Optional stage names: after ``done`` finished steps, ``stages[done]`` is running.
        then: Optional name of the work that follows the counted steps (``"writing"``), printed
            once all steps are done.
        clock: Seconds since the epoch (``time.time``; injectable for tests).
    """

    def __init__(
        self,
        label: str,
        stream: TextIO | None = None,
        stages: Sequence[str] | None = None,
        then: str | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._label, self._stream, self._stages, self._then, self._clock = label, stream, stages, then, clock
        self._last: tuple[str, int] | None = None  # (stage text, tenth) of the last line
        self._last_time = -float("inf")
        self._done = -1
        self._started = clock()

    def _print(self, now: float, text: str) -> None:
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(now))
        print(f"{stamp} {text}", file=self._stream or sys.stderr, flush=True)

    def start(self) -> None:
        """Print the line that says the work started (before any step is done)."""
        if self._stages:
            self(0, len(self._stages))
            return
        self._print(self._clock(), f"{self._label}: started")

    def finish(self) -> None:
        """Print the line that says the whole command's work ended, with the time it took."""
        now = self._clock()
        self._print(now, f"finished in {now - self._started:.0f} s")

    def __call__(self, done: int, total: int) -> None:
        """Print a line on a new stage, a further tenth, completion, or 30 s after the last line."""
        if done == self._done:
            return
        self._done = done
        text = _stage(self._label, self._stages, done)
        tenth = 10 * done // total if total > 0 else 0
        now = self._clock()
        new = self._last is None or text != self._last[0] or tenth > self._last[1]
        if not (new or done == total or now - self._last_time >= _HEARTBEAT_S):
            return
        self._last, self._last_time = (text, tenth), now
        share = f" ({done / total:.0%})" if total > 0 else ""
        count = f"{done}/{total}{share}" if not self._stages else f"step {min(done + 1, total)}/{total}"
        if self._stages and done >= total:
            text, count = self._label, "done"
        self._print(now, f"{text}: {count}")
        if self._then and done >= total > 0:
            self._print(now, f"{self._then}…")


def note_line(text: str) -> None:
    """Print one timestamped line about a slow step on stderr (above a rich bar, if one is shown)."""
    stamp = time.strftime("%Y-%m-%d %H:%M:%S")
    print(f"{stamp} {text}", file=sys.stderr, flush=True)


@contextmanager
def _progress_bar(
    label: str, enabled: bool, stages: Sequence[str] | None = None, then: str | None = None
) -> Iterator[Callable[[int, int], None] | None]:
    """Yield a ``(done, total)`` callback: a rich bar on a terminal, timestamped lines otherwise.

    Args:
        label: What is progressing, shown before the bar (or at the start of each line).
        enabled: False (``--quiet``) yields None: no output at all.
        stages: Optional stage names (``stages[done]`` runs after ``done`` finished steps),
            shown after the label.
        then: Optional name of the work after the counted steps, shown once they are done.
    """
    if not enabled:
        yield None
        return
    if not sys.stderr.isatty():
        lines = LineProgress(label, stages=stages, then=then)
        lines.start()
        yield lines
        lines.finish()
        return
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task(_stage(label, stages, 0), total=len(stages) if stages else None)

        def update(done: int, total: int) -> None:
            text = then if then and done >= total > 0 else _stage(label, stages, done)
            bar.update(task, completed=done, total=total, description=text)

        yield update


def _parse_executor(_ctx: click.Context, _param: click.Parameter, value: str) -> LocalExecutor | DaskExecutor:
    """``--executor``: the executor SPEC names (a bad spec is a usage error naming the forms)."""
    try:
        return executor_from_spec(value)
    except WearbenchError as err:
        raise click.BadParameter(str(err)) from err


def executor_option(work: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """The ``--executor SPEC`` option (default ``serial``); the command receives the executor.

    Args:
        work: What runs on it, for the help text (``"the patients' loops"``).
    """
    return click.option(
        "--executor",
        default="serial",
        show_default=True,
        callback=_parse_executor,
        help=f"Where {work} run: {EXECUTOR_SPECS} (docs/scale-out.md); the output is the same byte for byte.",
    )
