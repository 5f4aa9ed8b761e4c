"""A sandboxed, stateful Python worker for model-written code over one user's data.

One :class:`Sandbox` is one agent episode: a separate, long-lived worker process (state persists
between :meth:`Sandbox.run` calls, like a notebook) holding the user's data as ``df``. If the
worker dies (a limit was hit) the result says so and the next call starts a fresh worker with
``df`` reloaded and every other variable lost.

Isolation layers, outermost first. The boundary is the kernel's: namespaces, the uid and the
resource limits. The audit hook is defence in depth (code in the same interpreter can reach
around it, e.g. ``gc`` → ``_posixsubprocess.fork_exec``, or pyarrow's file I/O, which raises no
audit events); it mostly turns attempts into clear error messages.

* **Bubblewrap** (``bwrap``, required: without it the sandbox refuses to start, with the install
  hint): fresh mount, PID, network, IPC, UTS and cgroup namespaces. The file system is an empty
  root holding, read-only, only the shared libraries, the time-zone database, the Python
  installation (prefixes and site-packages) and the user's data, plus the scratch folder
  (read-write, ``/scratch``, empty at first), a private ``/proc`` and a minimal ``/dev``: no
  shell, no repository, benchmark, run store, ``/root`` or ``/tmp``. No network device but a
  down loopback. Closing (or a limit) kills the namespace's PID 1, and the kernel then kills
  every process in it, ``setsid`` children included. Details in :mod:`wearbench.agent._bwrap`.
* **Resource limits** (``preexec_fn``, inherited through ``bwrap``): ``RLIMIT_AS`` =
  ``memory_mb`` of address space (interpreter + numpy + pandas take about 370 MB of it; an
  over-allocation raises ``MemoryError``, the worker survives), ``RLIMIT_FSIZE`` (largest file
  written), ``RLIMIT_NOFILE``, ``RLIMIT_CORE`` = 0, ``RLIMIT_NPROC`` (processes and threads of
  the worker's uid) and ``RLIMIT_CPU``. ``RLIMIT_NPROC`` is not enforced for the host's root,
  hence the uid drop; it then counts *all* processes of uid ``nobody`` on the machine (other
  sandboxes included).
* **CPU per call**: before each cell the worker sets its own soft ``RLIMIT_CPU`` to the CPU time
  used so far plus ``cpu_s`` (whole seconds, rounded up), so the kernel sends ``SIGXCPU``. As a
  tamper-proof second layer the parent polls the worker's CPU time in ``/proc`` while waiting
  and kills the sandbox ``1.5`` s past ``cpu_s``.
* **Privilege drop** (as root, in the worker after its imports and before any model code):
  ``bwrap`` keeps only ``CAP_SETUID``/``CAP_SETGID``; the worker calls ``setgroups([])``,
  ``setgid``/``setuid`` to the host's ``nobody`` (65534), losing every capability, and sets
  ``PR_SET_NO_NEW_PRIVS``. Not as root, ``bwrap``'s user namespace maps the caller to 65534.
* **Audit hook** (``sys.addaudithook``, in the worker before any model code): refuses
  ``socket.*``, ``ctypes.*``, ``subprocess.Popen``, ``os.system``, ``os.exec*``,
  ``os.posix_spawn``, ``os.spawn*``, ``os.fork``, ``os.forkpty``, ``os.kill``,
  ``resource.setrlimit``; ``open`` for writing outside scratch and for reading outside scratch,
  the Python installation and the time-zone database; directory fds, ``os.chdir``, listings
  and file-changing ``os.*``/``shutil.*`` events outside scratch; and re-importing
  ``subprocess``, ``multiprocessing``, ``socket``, ``ctypes``, ``asyncio`` … (removed from
  ``sys.modules``).
* **Wall timeout**: past ``wall_s`` the parent kills the sandbox, as :meth:`Sandbox.close` does.
* **Environment and output**: a minimal environment (``PATH``, ``HOME`` = ``TMPDIR`` =
  scratch, one BLAS thread), ``python -I`` (no user site, no ``PYTHON*`` variables). The
  cell's ``stdout``/``stderr`` are captured into buffers keeping the first
  ``max_output_bytes``; the worker's own fds 1 and 2 go to ``/dev/null`` and a log file. The
  data pickle is bound read-only outside scratch, so a restart never loads anything the model
  wrote.

``preexec_fn`` runs between ``fork`` and ``exec``; :meth:`Sandbox.run` may be called from a worker
thread (``asyncio.to_thread``), so it only calls ``setrlimit``. ``bwrap --die-with-parent`` ties
the sandbox to the thread that started its worker: if that thread ends, the worker is killed
and the next call restarts it (``restarted`` says so).
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

from wearbench.agent._bwrap import (
    INSIDE_DATA,
    INSIDE_SCRATCH,
    INSIDE_WORKER,
    bwrap_args,
    require_bwrap,
    runtime_roots,
    tz_roots,
    worker_pid,
)
from wearbench.agent._process import (
    CpuExceeded,
    CpuWatchdog,
    death_reason,
    make_preexec,
    read_exact,
    wait_exit,
)
from wearbench.agent._types import DEFAULT_PREIMPORTS, ExecResult, SandboxError, SandboxLimits

if TYPE_CHECKING:
    import pandas as pd

NOBODY = 65534
_CPU_GRACE_S = 1.5  # the watchdog fires this long after the kernel's SIGXCPU should have
_STARTUP_WALL_S = 60.0
_EXIT_GRACE_S = 2.0  # a worker that died by itself: wait this long for bwrap to report why
_NAMESPACES = ("mnt", "pid", "net", "ipc", "uts")
_WORKER = Path(__file__).with_name("_worker.py")


class Sandbox:
    """A long-lived, isolated Python worker holding ``df`` (see the module docstring).

    Args:
        frame: The user's data: date index, one column per metric.
        limits: Resource limits.
        scratch: Host folder bound read-write at ``/scratch``, the worker's working directory
            (created if missing, chowned to ``nobody`` when running as root). Default: a fresh
            temporary directory removed by :meth:`close`.
        preimport: Modules imported before the privilege drop.

    Raises:
        SandboxError: ``bwrap`` is missing or cannot sandbox here (the message has the install
            hint), or the worker did not start (the message has its log).
    """

    def __init__(
        self,
        frame: pd.DataFrame,
        limits: SandboxLimits = SandboxLimits(),  # noqa: B008 - frozen, immutable
        scratch: Path | None = None,
        preimport: Sequence[str] = DEFAULT_PREIMPORTS,
    ) -> None:
        self.limits = limits
        self._bwrap = require_bwrap()
        self._root = os.geteuid() == 0
        self._private = Path(tempfile.mkdtemp(prefix="wearbench-sandbox-"))
        self.scratch = (self._private / "scratch") if scratch is None else Path(scratch).resolve()
        self.scratch.mkdir(parents=True, exist_ok=True)
        if self._root:
            os.chown(self.scratch, NOBODY, NOBODY)
        self._data = self._private / "frame.pkl"
        frame.to_pickle(self._data)
        os.chmod(self._data, 0o600)
        self._preimport = tuple(preimport)
        self._proc: subprocess.Popen[bytes] | None = None  # the bwrap monitor
        self._pids: tuple[int, int] | None = None  # host pids: namespace PID 1, worker
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
        """Host process id of the current worker (None when none is running)."""
        return None if self._pids is None else self._pids[1]

    @property
    def init_pid(self) -> int | None:
        """Host process id of the sandbox's PID 1 (its death ends every process inside)."""
        return None if self._pids is None else self._pids[0]

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
        if self._proc is not None and self._proc.poll() is not None:
            self._kill()  # died between calls (e.g. the thread that started it ended)
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
            killed = self._kill(_EXIT_GRACE_S)
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
        if proc is None or proc.stdin is None or proc.stdout is None or self.pid is None:
            raise SandboxError("sandbox worker is not running")
        watchdog = CpuWatchdog(self.pid, self.limits.cpu_s + _CPU_GRACE_S)
        body = json.dumps({"code": code}).encode("utf-8")
        try:
            os.write(proc.stdin.fileno(), struct.pack(">I", len(body)) + body)
        except BrokenPipeError:
            return None
        return self._read_reply(proc.stdout.fileno(), deadline, watchdog)

    def close(self) -> None:
        """Kill every process of the sandbox; remove the private directory (and scratch, if made)."""
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
        if self._log is not None:
            self._log.close()
        self._log = tempfile.TemporaryFile(prefix="wearbench-sandbox-log-")  # noqa: SIM115 - closed in close()
        options = bwrap_args(self.scratch, _WORKER, self._data, self._root)
        command = [sys.executable, "-I", "-B", INSIDE_WORKER, json.dumps(self._config())]
        args_read, args_write = os.pipe()  # options via --args: the sandbox's /proc/1/cmdline stays short
        try:
            with open(args_write, "wb", closefd=True) as pipe:  # small: fits the pipe's buffer
                pipe.write("\0".join([*options, ""]).encode())
            self._proc = subprocess.Popen(
                [self._bwrap, "--args", str(args_read), "--", *command],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=self._log,
                cwd=self._private,
                env=_environment(),
                close_fds=True,
                pass_fds=(args_read,),
                start_new_session=True,
                preexec_fn=make_preexec(self.limits),
            )
        finally:
            os.close(args_read)
        self._handshake()

    def _config(self) -> dict[str, Any]:
        """The worker's settings (paths as seen inside the sandbox)."""
        return {
            "scratch": INSIDE_SCRATCH,
            "data": INSIDE_DATA,
            "uid": NOBODY if self._root else None,
            "gid": NOBODY if self._root else None,
            "max_output_bytes": self.limits.max_output_bytes,
            "cpu_s": self.limits.cpu_s,
            "preimport": list(self._preimport),
            "read_roots": [*runtime_roots(), *tz_roots()],
            "host_ns": {ns: os.stat(f"/proc/self/ns/{ns}").st_ino for ns in _NAMESPACES},
        }

    def _handshake(self) -> None:
        """Wait for the worker's ``ready`` and find its host pids; kill it on failure."""
        proc = self._proc
        if proc is None or proc.stdout is None:
            raise SandboxError("sandbox worker is not running")
        try:
            reply = self._read_reply(proc.stdout.fileno(), time.monotonic() + _STARTUP_WALL_S)
        except (TimeoutError, SandboxError) as exc:
            reply = {"fatal": f"{type(exc).__name__}: {exc}"}
        self._pids = worker_pid(proc.pid)
        if reply is None or not reply.get("ready") or self._pids is None:
            detail = (reply or {}).get("fatal") or self._log_tail() or "its processes were not found"
            self._kill(_EXIT_GRACE_S if reply is None else 0.0)
            raise SandboxError(f"sandbox worker failed to start (scratch {self.scratch}): {detail}")
        self.layers = ("bwrap", *reply["layers"], "wall_timeout")

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

    def _kill(self, grace_s: float = 0.0) -> str:
        """End every process of the sandbox, reap ``bwrap``, and say why the worker died.

        Args:
            grace_s: Seconds to let ``bwrap`` exit by itself first (the worker already died:
                its exit status says why).
        """
        proc, self._proc = self._proc, None
        pids, self._pids = self._pids, None
        if proc is None:
            return "not running"
        code = wait_exit(proc.pid, grace_s)
        if code is None and pids is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pids[0], signal.SIGKILL)  # PID 1: the kernel ends the whole namespace
            code = wait_exit(proc.pid, 5.0)  # bwrap exits once PID 1 is gone (its children first)
        if code is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGKILL)  # --die-with-parent takes the namespace down
            code = wait_exit(proc.pid, None)
        for stream in (proc.stdin, proc.stdout):
            if stream is not None:
                stream.close()
        proc.returncode = -signal.SIGKILL if code is None else code
        return "exited" if code is None else death_reason(code)

    def _log_tail(self) -> str:
        if self._log is None:
            return ""
        self._log.seek(0)
        return bytes(self._log.read()[-4000:]).decode("utf-8", "replace")


def _environment() -> dict[str, str]:
    """The worker's whole environment (bwrap passes it on)."""
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": INSIDE_SCRATCH,
        "TMPDIR": INSIDE_SCRATCH,
        "LANG": "C.UTF-8",
        "MPLCONFIGDIR": INSIDE_SCRATCH,
        **dict.fromkeys(("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"), "1"),
    }
