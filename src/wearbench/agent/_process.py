"""Process plumbing for the sandbox: ``preexec_fn``, deadline reads, CPU watchdog, exit reasons."""

from __future__ import annotations

import os
import resource
import signal
import sys
import time
from pathlib import Path
from typing import Any

from wearbench.agent._types import SandboxLimits

__all__ = ["CpuExceeded", "CpuWatchdog", "death_reason", "make_preexec", "read_exact", "read_roots"]

_CLONE_NEWNET = 0x40000000
_CLONE_NEWUSER = 0x10000000
STARTUP_CPU_S = 60
POLL_S = 0.1


def make_preexec(limits: SandboxLimits, root: bool) -> Any:
    """The ``preexec_fn``: resource limits, then a new network namespace (before the exec)."""
    import ctypes

    unshare = ctypes.CDLL(None, use_errno=True).unshare
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
        if unshare(_CLONE_NEWNET) != 0 and not root:
            unshare(_CLONE_NEWUSER | _CLONE_NEWNET)

    return preexec


def read_roots() -> list[str]:
    """Directories model code may read (not write): the Python installation and the tz database."""
    import site
    import sysconfig
    import zoneinfo

    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    roots.update(sysconfig.get_paths().values())
    roots.update(site.getsitepackages())
    roots.update(p for p in zoneinfo.TZPATH if os.path.isdir(p))
    return sorted(os.path.realpath(r) for r in roots if r)


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
    """Name why a worker died from its exit status."""
    if returncode == -signal.SIGXCPU:
        return "cpu limit"
    if returncode < 0:
        name = signal.Signals(-returncode).name
        if returncode in (-signal.SIGSEGV, -signal.SIGABRT, -signal.SIGBUS):
            return f"crashed with {name} (possibly the memory limit)"
        return f"killed by {name}"
    return f"exited with status {returncode}"
