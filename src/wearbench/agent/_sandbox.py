"""A sandboxed, stateful Python worker for model-written code over one user's data.

One :class:`Sandbox` is one agent episode: a separate, long-lived worker process (state persists
between :meth:`Sandbox.run` calls, like a notebook) holding the user's data as ``df``. If the
worker dies (a limit was hit) the result says so and the next call starts a fresh worker with
``df`` reloaded and every other variable lost.

Isolation layers, outermost first. Audit hooks are not a security boundary on their own (code in
the same interpreter can, with effort, reach around them); the kernel layers are the boundary
and the hook mostly turns attempts into clear error messages. Each layer:

* **Resource limits** (``preexec_fn``): ``RLIMIT_AS`` = ``memory_mb`` of address space
  (interpreter + numpy + pandas take about 370 MB of it; an over-allocation raises
  ``MemoryError``, the worker survives), ``RLIMIT_FSIZE`` (largest file written),
  ``RLIMIT_NOFILE``, ``RLIMIT_CORE`` = 0, ``RLIMIT_NPROC`` (processes and threads of the
  worker's uid) and ``RLIMIT_CPU``. Stops runaway memory, disk and fork bombs. Does not stop
  reading anything the uid may read. ``RLIMIT_NPROC`` is not enforced for root (nor for
  ``CAP_SYS_ADMIN``/``CAP_SYS_RESOURCE``), hence the uid drop; it then counts *all* processes
  of uid ``nobody`` on the machine (other sandboxes included).
* **CPU per call**: before each cell the worker sets its own soft ``RLIMIT_CPU`` to the CPU time
  used so far plus ``cpu_s`` (whole seconds, rounded up), so the kernel sends ``SIGXCPU``; the
  hard limit cannot be re-armed per call (the parent's ``prlimit`` on a process of another uid
  needs ``CAP_SYS_RESOURCE``, which containers often drop). As a tamper-proof second layer the
  parent polls the worker's CPU time in ``/proc`` while waiting and kills the process group
  ``1.5`` s past ``cpu_s``.
* **Network namespace** (``preexec_fn``): ``unshare(CLONE_NEWNET)`` via ``ctypes`` (as root;
  otherwise ``CLONE_NEWUSER | CLONE_NEWNET`` if unprivileged user namespaces are allowed). The
  worker sees only a down loopback device: no connection anywhere, including the host's
  ``127.0.0.1``. Skipped silently where not permitted; :attr:`Sandbox.layers` says.
* **Privilege drop** (in the worker, after its imports, before any model code): when started as
  root, ``setgroups([])``, ``setgid``/``setuid`` to ``nobody`` (65534) and
  ``PR_SET_NO_NEW_PRIVS``. It is done in the worker, not in ``preexec_fn``, because the Python
  installation may be unreadable to ``nobody`` (here it lives under a ``0700`` ``/root``); so
  modules not pre-imported (see ``preimport``) may fail to import later. Stops access to
  ``/root`` (``~/.ssh``), ``/etc/shadow`` and anything else not world-readable; does *not*
  stop reading world-readable files (e.g. a ``0755`` repository checkout).
* **Audit hook** (``sys.addaudithook``, in the worker before any model code): refuses
  ``socket.*``, ``ctypes.*``, ``subprocess.Popen``, ``os.system``, ``os.exec*``,
  ``os.posix_spawn``, ``os.spawn*``, ``os.fork``, ``os.forkpty``, ``os.kill``,
  ``resource.setrlimit``; ``open`` for writing outside the scratch directory and for reading
  outside scratch, the Python installation (``sys.prefix``, ``sys.base_prefix``,
  site-packages) and the time-zone database (``zoneinfo.TZPATH``), and opening directories
  outside scratch (a directory fd would allow ``dir_fd``-relative access); ``os.chdir`` outside
  scratch; ``os.listdir``/``os.scandir``/``glob`` outside those; file-changing ``os.*`` and
  ``shutil.*`` events outside scratch; and re-importing ``subprocess``, ``multiprocessing``,
  ``socket``, ``ctypes``, ``asyncio`` … (removed from ``sys.modules``). Does not cover calls
  without audit events: ``os.stat`` reveals whether a path exists, and the module objects stay
  reachable (e.g. through ``gc``), so ``_posixsubprocess.fork_exec`` (no audit event) can still
  start processes; those run as ``nobody``, without network, capped by ``RLIMIT_NPROC`` and
  killed with the process group (unless they call ``setsid``). Sockets stay refused even then
  (``socket.__new__`` is audited in C).
* **Wall timeout**: the worker runs in its own session; past ``wall_s`` the parent kills the
  whole process group (``os.killpg``, ``SIGKILL``), as :meth:`Sandbox.close` does.
* **Environment and output**: a minimal environment (``PATH``, ``HOME`` = ``TMPDIR`` =
  scratch, one BLAS thread), ``cwd`` = scratch, ``python -I`` (no user site, no
  ``PYTHON*`` variables). The cell's ``stdout``/``stderr`` are captured into buffers keeping the
  first ``max_output_bytes``; the worker's own fds 1 and 2 go to ``/dev/null`` and a log file.
  The data pickle lives in a root-owned directory outside scratch, so a restart never loads
  anything the model wrote.

``preexec_fn`` runs between ``fork`` and ``exec``; :meth:`Sandbox.run` may be called from a worker
thread (``asyncio.to_thread``), so it only calls ``setrlimit`` and a ``ctypes`` function resolved
beforehand in the parent.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from wearbench.agent._process import (
    CpuExceeded,
    CpuWatchdog,
    death_reason,
    make_preexec,
    read_exact,
    read_roots,
)
from wearbench.agent._types import DEFAULT_PREIMPORTS, ExecResult, SandboxError, SandboxLimits

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["NOBODY", "Sandbox"]

NOBODY = 65534
_CPU_GRACE_S = 1.5  # the watchdog fires this long after the kernel's SIGXCPU should have
_STARTUP_WALL_S = 60.0
_WORKER = Path(__file__).with_name("_worker.py")


class Sandbox:
    """A long-lived, isolated Python worker holding ``df`` (see the module docstring).

    Args:
        frame: The user's data: date index, one column per metric.
        limits: Resource limits.
        scratch: Working directory of the worker (created if missing, chowned to ``nobody``
            when running as root; every parent must be traversable by that uid). Default: a
            fresh temporary directory removed by :meth:`close`.
        preimport: Modules imported before the privilege drop (later imports may fail).

    Raises:
        SandboxError: The worker did not start (see the message for its log).
    """

    def __init__(
        self,
        frame: pd.DataFrame,
        limits: SandboxLimits = SandboxLimits(),  # noqa: B008 - frozen, immutable
        scratch: Path | None = None,
        preimport: Sequence[str] = DEFAULT_PREIMPORTS,
    ) -> None:
        self.limits = limits
        self._root = os.geteuid() == 0
        self._private = Path(tempfile.mkdtemp(prefix="wearbench-sandbox-"))
        os.chmod(self._private, 0o711)  # traversable (for the default scratch), not listable
        self.scratch = (self._private / "scratch") if scratch is None else Path(scratch).resolve()
        self.scratch.mkdir(parents=True, exist_ok=True)
        if self._root:
            os.chown(self.scratch, NOBODY, NOBODY)
        self._data = self._private / "frame.pkl"
        frame.to_pickle(self._data)
        os.chmod(self._data, 0o600)
        self._preimport = tuple(preimport)
        self._proc: subprocess.Popen[bytes] | None = None
        self._log: IO[bytes] | None = None
        self.layers: tuple[str, ...] = ()
        self._restarted = False
        self._closed = False
        self._lock = threading.Lock()  # one call at a time (runs may come from worker threads)
        try:
            self._start()
        except BaseException:
            self._close()
            raise
        self._restarted = False

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def pid(self) -> int | None:
        """Process id of the current worker (None when none is running)."""
        return None if self._proc is None else self._proc.pid

    def run(self, code: str) -> ExecResult:
        """Run ``code`` in the worker; the value of a final expression is printed.

        Args:
            code: Python source.

        Returns:
            The captured output, error and limit flags. Never raises for problems of the code.

        Raises:
            SandboxError: A replacement worker could not be started, or the sandbox is closed.
        """
        with self._lock:
            return self._run(code)

    def _run(self, code: str) -> ExecResult:
        if self._closed:
            raise SandboxError("sandbox is closed")
        if self._proc is None:
            self._start()
        restarted, self._restarted = self._restarted, False
        started = time.monotonic()
        try:
            reply = self._exchange(code, started + self.limits.wall_s)
        except TimeoutError:
            error, killed = f"wall time limit of {self.limits.wall_s:g} s exceeded", "wall timeout"
        except CpuExceeded:
            error, killed = f"CPU time limit of {self.limits.cpu_s} s exceeded", "cpu limit"
        except SandboxError as exc:
            error, killed = str(exc), "protocol error"
        else:
            if reply is not None:
                return ExecResult(
                    stdout=str(reply["stdout"]),
                    stderr=str(reply["stderr"]),
                    error=reply["error"],
                    truncated=bool(reply["stdout_truncated"] or reply["stderr_truncated"]),
                    memory_error=bool(reply["memory_error"]),
                    restarted=restarted,
                    duration_s=time.monotonic() - started,
                )
            killed = self._kill()
            error = f"the sandbox worker died: {killed}"
        self._kill()
        return ExecResult(
            error=error,
            timed_out=killed == "wall timeout",
            killed=killed,
            restarted=restarted,
            duration_s=time.monotonic() - started,
        )

    def _exchange(self, code: str, deadline: float) -> dict[str, Any] | None:
        """Send one request and read its reply; None when the worker died."""
        proc = self._proc
        if proc is None or proc.stdin is None or proc.stdout is None:
            raise SandboxError("sandbox worker is not running")
        watchdog = CpuWatchdog(proc.pid, self.limits.cpu_s + _CPU_GRACE_S)
        body = json.dumps({"code": code}).encode("utf-8")
        try:
            os.write(proc.stdin.fileno(), struct.pack(">I", len(body)) + body)
        except BrokenPipeError:
            return None
        return self._read_reply(proc.stdout.fileno(), deadline, watchdog)

    def close(self) -> None:
        """Kill the worker and remove the private directory (and scratch, if it made it)."""
        with self._lock:
            self._close()

    def _close(self) -> None:
        if self._proc is not None:
            self._kill()
        if self._log is not None:
            self._log.close()
            self._log = None
        if not self._closed:
            self._closed = True
            shutil.rmtree(self._private, ignore_errors=True)  # holds the default scratch

    # -- worker lifecycle -------------------------------------------------------------------

    def _start(self) -> None:
        """Start a worker and wait for its ``ready`` handshake."""
        self._restarted = True
        config = {
            "scratch": str(self.scratch),
            "data": str(self._data),
            "uid": NOBODY if self._root else None,
            "gid": NOBODY if self._root else None,
            "max_output_bytes": self.limits.max_output_bytes,
            "cpu_s": self.limits.cpu_s,
            "preimport": list(self._preimport),
            "read_roots": read_roots(),
            "parent_netns": os.stat("/proc/self/ns/net").st_ino,
        }
        env = {
            "PATH": "/usr/bin:/bin",
            "HOME": str(self.scratch),
            "TMPDIR": str(self.scratch),
            "LANG": "C.UTF-8",
            "MPLCONFIGDIR": str(self.scratch),
            **dict.fromkeys(("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"), "1"),
        }
        if self._log is not None:
            self._log.close()
        self._log = tempfile.TemporaryFile(prefix="wearbench-sandbox-log-")  # noqa: SIM115 - closed in close()
        self._proc = subprocess.Popen(
            [sys.executable, "-I", "-B", str(_WORKER), json.dumps(config)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._log,
            cwd=self._private,
            env=env,
            close_fds=True,
            start_new_session=True,
            preexec_fn=make_preexec(self.limits, self._root),
        )
        try:
            reply = self._read_reply(self._proc.stdout.fileno(), time.monotonic() + _STARTUP_WALL_S)  # type: ignore[union-attr]
        except (TimeoutError, SandboxError) as exc:
            reply = {"fatal": f"{type(exc).__name__}: {exc}"}
        if reply is None or not reply.get("ready"):
            detail = (reply or {}).get("fatal") or self._log_tail()
            self._kill()
            raise SandboxError(f"sandbox worker failed to start (scratch {self.scratch}): {detail}")
        self.layers = (*reply["layers"], "wall_timeout")

    def _read_reply(
        self, fd: int, deadline: float, watchdog: CpuWatchdog | None = None
    ) -> dict[str, Any] | None:
        """Read one length-prefixed JSON frame; None at end of file."""
        header = read_exact(fd, 4, deadline, watchdog)
        if header is None:
            return None
        (size,) = struct.unpack(">I", header)
        if size > 16 * self.limits.max_output_bytes + 1_000_000:
            raise SandboxError(f"sandbox worker sent an oversized frame ({size} bytes)")
        body = read_exact(fd, size, deadline, watchdog)
        if body is None:
            return None
        try:
            reply: dict[str, Any] = json.loads(body.decode("utf-8"))
        except ValueError as exc:
            raise SandboxError(f"sandbox worker sent a malformed frame: {exc}") from exc
        return reply

    def _kill(self) -> str:
        """Kill the worker's process group, reap it, and say why it died."""
        proc, self._proc = self._proc, None
        if proc is None:
            return "not running"
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                stream.close()
        try:
            _, status, _usage = os.wait4(proc.pid, 0)
        except ChildProcessError:  # reaped elsewhere
            proc.returncode = -signal.SIGKILL
            return "exited"
        proc.returncode = os.waitstatus_to_exitcode(status)
        return death_reason(proc.returncode)

    def _log_tail(self) -> str:
        if self._log is None:
            return ""
        self._log.seek(0)
        return bytes(self._log.read()[-4000:]).decode("utf-8", "replace")
