"""Process plumbing for the sandbox: ``preexec_fn``, deadline reads, CPU watchdog, exit reasons."""

from __future__ import annotations

import os
import resource
import signal
import time
from pathlib import Path
from typing import Any

from wearbench.agent._types import SandboxLimits

STARTUP_CPU_S = 60
POLL_S = 0.1


def make_preexec(limits: SandboxLimits) -> Any:
    """The ``preexec_fn``: resource limits (inherited by ``bwrap`` and the worker)."""
    mib = 1024 * 1024
    hard_cpu = resource.getrlimit(resource.RLIMIT_CPU)[1]  # kept: raising it needs CAP_SYS_RESOURCE
    settings = [
        (resource.RLIMIT_AS, (limits.memory_mb * mib, limits.memory_mb * mib)),
        (resource.RLIMIT_CPU, (STARTUP_CPU_S, hard_cpu)),
        (resource.RLIMIT_FSIZE, (limits.max_file_mb * mib, limits.max_file_mb * mib)),
        (resource.RLIMIT_NOFILE, (limits.max_open_files, limits.max_open_files)),
        (resource.RLIMIT_NPROC, (limits.max_processes, limits.max_processes)),
        (resource.RLIMIT_CORE, (0, 0)),
    ]

    def preexec() -> None:
        for which, value in settings:
            resource.setrlimit(which, value)

    return preexec


def wait_exit(pid: int, timeout_s: float | None) -> int | None:
    """Reap child ``pid`` within ``timeout_s`` (None: wait forever); its exit code, or None.

    The code is negative for a signal (as ``Popen.returncode``); None also when the child was
    already reaped elsewhere.
    """
    deadline = None if timeout_s is None else time.monotonic() + timeout_s
    while True:
        try:
            done, status = os.waitpid(pid, 0 if deadline is None else os.WNOHANG)
        except ChildProcessError:
            return None
        if done:
            return os.waitstatus_to_exitcode(status)
        if deadline is not None and time.monotonic() >= deadline:
            return None
        time.sleep(0.01)


class CpuExceeded(Exception):
    """The parent's watchdog saw the worker use more CPU time than allowed for the call."""


class CpuWatchdog:
    """Parent-side CPU limit per call, read from ``/proc`` (the worker cannot tamper with it)."""

    def __init__(self, pid: int, allowed_s: float) -> None:
        self.pid = pid
        self.limit = _cpu_seconds(pid) + allowed_s

    def check(self) -> None:
        """Raise :class:`CpuExceeded` once the worker's CPU time passes the limit."""
        if _cpu_seconds(self.pid) > self.limit:
            raise CpuExceeded(f"worker {self.pid} passed {self.limit:.1f} CPU-s")


def read_exact(fd: int, size: int, deadline: float, watchdog: CpuWatchdog | None = None) -> bytes | None:
    """Read ``size`` bytes by ``deadline``, polling ``watchdog``; None at end of file.

    Raises:
        TimeoutError: The deadline passed first.
        CpuExceeded: The watchdog fired.
    """
    import select

    buf = bytearray()
    while len(buf) < size:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError(f"no reply within the deadline ({len(buf)}/{size} bytes read)")
        if not select.select([fd], [], [], min(left, POLL_S))[0]:
            if watchdog is not None:
                watchdog.check()
            continue
        chunk = os.read(fd, size - len(buf))
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a live process, seconds (0.0 if unreadable)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def death_reason(returncode: int) -> str:
    """Name why a worker died from its exit status (``bwrap`` reports a signal N as 128 + N)."""
    if 128 < returncode < 128 + signal.NSIG:
        returncode = 128 - returncode
    if returncode == -signal.SIGXCPU:
        return "cpu limit"
    if returncode < 0:
        try:
            name = signal.Signals(-returncode).name
        except ValueError:
            name = f"signal {-returncode}"
        if returncode in (-signal.SIGSEGV, -signal.SIGABRT, -signal.SIGBUS):
            return f"crashed with {name} (possibly the memory limit)"
        return f"killed by {name}"
    return f"exited with status {returncode}"
