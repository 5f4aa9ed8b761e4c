"""The bubblewrap (``bwrap``) command line that isolates the sandbox worker.

The worker runs in fresh mount, PID, network, IPC, UTS and cgroup namespaces whose root is an
empty ``tmpfs`` holding only, read-only: the system's shared libraries (``/usr/lib*`` and the
``/lib*`` links), ``/etc/ld.so.cache``, the time-zone database, the Python installation (the
interpreter's prefix, the virtual environment's prefix and every site-packages directory,
each bound at its own path and nothing of its parent folders), the worker script and the
user's data; read-write: the scratch folder, at ``/scratch``. Also a private ``/proc`` (only the
sandbox's processes) and a minimal ``/dev``. No shell, no ``/usr/bin``, no ``/tmp``, no
``/home``, ``/root``, repository, benchmark or run folder.

Users. Run as root, ``bwrap`` makes no user namespace: mapping the sandbox to the host's uid 0
would exempt it from ``RLIMIT_NPROC`` (the kernel never applies it to root), so instead every
capability but ``CAP_SETUID``/``CAP_SETGID`` is dropped and the worker switches itself to the
host's ``nobody`` (65534) before it runs model code. Run as another user, ``bwrap`` makes a user
namespace (uid and gid 65534 inside) and forbids nested ones (``--disable-userns``).

Processes. ``bwrap`` (the monitor) forks the namespace's PID 1 (``bwrap`` again), which forks
the worker. Killing PID 1 makes the kernel kill every process in the namespace, including those
that called ``setsid``; ``--die-with-parent`` does the same when the monitor, or the thread that
started it, goes away. The monitor's exit status is the worker's (``128 + signal`` for a signal).
"""

from __future__ import annotations

import functools
import os
import shutil
import site
import subprocess
import sys
import sysconfig
import zoneinfo
from collections.abc import Iterable, Sequence
from pathlib import Path

from wearbench.agent._types import SandboxError

INSIDE_SCRATCH = "/scratch"
INSIDE_WORKER = "/sandbox/worker.py"
INSIDE_DATA = "/sandbox/frame.pkl"
INSTALL_HINT = (
    "install bubblewrap: `apt-get install bubblewrap` (Debian/Ubuntu), `dnf install bubblewrap` "
    "(Fedora), or `make sysdeps`"
)
_SYSTEM_DIRS = ("/usr/lib", "/usr/lib64", "/usr/lib32", "/usr/libx32")
_SYSTEM_LINKS = ("/lib", "/lib64", "/lib32", "/libx32")
_SYSTEM_FILES = ("/etc/ld.so.cache",)
_NOBODY = "65534"


def find_bwrap() -> str | None:
    """Path of the ``bwrap`` executable (``PATH``, then ``/usr/bin``, ``/bin``), or None."""
    search = os.pathsep.join(p for p in (os.environ.get("PATH", ""), "/usr/bin", "/bin") if p)
    return shutil.which("bwrap", path=search)


def require_bwrap() -> str:
    """The ``bwrap`` path, after checking once per process that it can build a sandbox here.

    Raises:
        SandboxError: ``bwrap`` is missing, or it cannot create the namespaces on this machine.
    """
    found = find_bwrap()
    if found is None:
        raise SandboxError(
            f"agent mode runs model code under bubblewrap, and `bwrap` was not found: {INSTALL_HINT}"
        )
    problem = _probe(found, os.geteuid() == 0)
    if problem:
        raise SandboxError(
            f"agent mode needs bubblewrap, and `{found}` cannot create a sandbox here: {problem}"
        )
    return found


@functools.cache
def _probe(bwrap: str, root: bool) -> str:
    """Start a trivial sandbox (the real mounts, ``python -c pass``); the error text, or ''."""
    argv = [
        bwrap,
        *_namespace_args(root),
        *_mount_args(runtime_roots()),
        "--",
        sys.executable,
        "-I",
        "-S",
        "-c",
        "",
    ]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{type(exc).__name__}: {exc}"
    if done.returncode == 0:
        return ""
    lines = (done.stderr or done.stdout).strip().splitlines()
    return f"exit status {done.returncode}: {lines[-1] if lines else 'no message'}"


def runtime_roots() -> list[str]:
    """Folders of the Python installation that model code may read: prefixes and site-packages.

    Raises:
        SandboxError: One of them is ``/`` or holds the current working directory (binding it
            would expose the repository, benchmark or run folder).
    """
    roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    roots.update(sysconfig.get_paths().values())
    roots.update(site.getsitepackages())
    roots.add(os.path.dirname(os.path.realpath(sys.executable)))
    found = sorted({os.path.realpath(r) for r in roots if r and os.path.isdir(r)})
    kept = [r for r in found if not any(r.startswith(o + os.sep) for o in found)]  # outermost only
    cwd = os.path.realpath(os.getcwd())
    for root in kept:
        if root == os.sep or cwd == root or cwd.startswith(root + os.sep):
            raise SandboxError(
                f"the Python installation folder {root} holds the working directory {cwd} (or is /); "
                "the sandbox would expose it: run from another folder or use a virtual environment "
                "outside the repository"
            )
    return kept


def tz_roots() -> list[str]:
    """Existing time-zone database folders (``zoneinfo.TZPATH``)."""
    return sorted({os.path.realpath(p) for p in zoneinfo.TZPATH if os.path.isdir(p)})


def bwrap_args(scratch: Path, worker: Path, data: Path, root: bool) -> list[str]:
    """``bwrap`` options (without the command) for one worker; see the module docstring.

    Args:
        scratch: Host folder bound read-write at :data:`INSIDE_SCRATCH`.
        worker: The worker script, bound read-only at :data:`INSIDE_WORKER`.
        data: The user's data, bound read-only at :data:`INSIDE_DATA`.
        root: Running as root (no user namespace; the worker drops to ``nobody`` itself).
    """
    files = [*_mount_args(runtime_roots())]
    files += _dirs([INSIDE_WORKER, INSIDE_DATA])
    files += ["--ro-bind", str(worker), INSIDE_WORKER, "--ro-bind", str(data), INSIDE_DATA]
    files += ["--bind", str(scratch), INSIDE_SCRATCH, "--chdir", INSIDE_SCRATCH]
    return [*_namespace_args(root), *files]


def _namespace_args(root: bool) -> list[str]:
    common = ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts", "--unshare-cgroup-try"]
    common += ["--hostname", "sandbox", "--die-with-parent", "--new-session"]
    if root:
        return [*common, "--cap-drop", "ALL", "--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID"]
    return [*common, "--unshare-user", "--uid", _NOBODY, "--gid", _NOBODY, "--disable-userns"]


def _mount_args(python_roots: Sequence[str]) -> list[str]:
    """Read-only system libraries, time zones and Python; a private ``/proc`` and ``/dev``."""
    binds = [d for d in (*_SYSTEM_DIRS, *_SYSTEM_FILES, *tz_roots()) if os.path.exists(d)]
    links = [(os.readlink(p), p) for p in _SYSTEM_LINKS if os.path.islink(p)]
    binds += [p for p in _SYSTEM_LINKS if os.path.isdir(p) and not os.path.islink(p)]
    binds += python_roots
    args = _dirs(binds)
    for target, link in links:
        args += ["--symlink", target, link]
    for path in binds:
        args += ["--ro-bind", path, path]
    return [*args, "--proc", "/proc", "--dev", "/dev"]


def _dirs(paths: Iterable[str]) -> list[str]:
    """``--dir`` options (mode 0755) for every ancestor of ``paths`` (bwrap would make them 0700)."""
    needed: set[str] = set()
    for path in paths:
        parent = os.path.dirname(path)
        while parent not in ("", os.sep):
            needed.add(parent)
            parent = os.path.dirname(parent)
    args: list[str] = []
    for folder in sorted(needed, key=lambda p: (p.count(os.sep), p)):
        args += ["--perms", "0755", "--dir", folder]
    return args


def worker_pid(monitor_pid: int) -> tuple[int, int] | None:
    """Host pids of the namespace's PID 1 and of the worker under ``monitor_pid``, or None."""
    init = _only_child(monitor_pid)
    worker = None if init is None else _only_child(init)
    return None if init is None or worker is None else (init, worker)


def _only_child(pid: int) -> int | None:
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return None
    return int(children[0]) if len(children) == 1 else None
