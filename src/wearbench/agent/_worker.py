"""Sandbox worker: a stand-alone script the parent starts as ``python -I -B _worker.py CONFIG_JSON``.

It must not import ``wearbench``: it runs under bubblewrap (see ``_bwrap.py``), where only the
Python installation, this file (``/sandbox/worker.py``), the data (``/sandbox/frame.pkl``) and
the scratch folder (``/scratch``) exist. Start-up order:

1. duplicate the protocol pipes (stdin/stdout) to private descriptors and point fds 0 and 1 at
   ``/dev/null`` so model code writing to "stdout" at the C level cannot corrupt the protocol;
2. pre-import numpy, pandas and a list of standard-library modules (model code starts fast);
3. load the user's frame (a read-only pickle, never anything the model wrote);
4. drop privileges (``setgroups([])``, ``setgid``, ``setuid``) when started as root, set
   ``PR_SET_NO_NEW_PRIVS``, ``chdir`` to the scratch directory;
5. forget dangerous modules (``sys.modules``) so re-importing them raises the ``import`` event,
   prune ``sys.path`` to the Python installation, and install the audit hook;
6. report ``ready`` (with the isolation layers that are active) and serve requests.

Protocol: 4-byte big-endian length + UTF-8 JSON, both ways. Request ``{"code": str}``; reply
``{"stdout", "stderr", "error", "stdout_truncated", "stderr_truncated", "memory_error"}``.
"""

from __future__ import annotations

import ast
import builtins
import contextlib
import importlib
import io
import json
import linecache
import math
import os
import resource
import struct
import sys
import traceback
from collections.abc import Callable
from typing import Any

_DENY_EVENTS = frozenset(
    {
        "subprocess.Popen",
        "os.system",
        "os.exec",
        "os.posix_spawn",
        "os.spawn",
        "os.fork",
        "os.forkpty",
        "os.kill",
        "os.killpg",
        "pty.spawn",
        "resource.setrlimit",
        "resource.prlimit",
        "sys.remote_exec",
        "os.startfile",
        "webbrowser.open",
        "urllib.Request",
    }
)
_DENY_PREFIXES = (
    "socket.",
    "ctypes.",
    "_ctypes.",
    "http.client.",
    "ftplib.",
    "smtplib.",
    "poplib.",
    "imaplib.",
)
_DENY_MODULES = (
    "subprocess",
    "_posixsubprocess",
    "multiprocessing",
    "concurrent.futures.process",
    "pty",
    "ctypes",
    "_ctypes",
    "socket",
    "_socket",
    "ssl",
    "_ssl",
    "urllib.request",
    "http.client",
    "ftplib",
    "smtplib",
    "asyncio",
)
# Events whose path arguments are written (must be inside scratch) or read (scratch or Python).
_WRITE_EVENTS = frozenset(
    {
        "os.remove",
        "os.rmdir",
        "os.mkdir",
        "os.chmod",
        "os.chown",
        "os.truncate",
        "os.utime",
        "os.link",
        "os.symlink",
        "os.rename",
        "os.chflags",
        "os.lchmod",
        "os.setxattr",
        "os.removexattr",
        "os.mkfifo",
        "os.mknod",
        "shutil.copyfile",
        "shutil.copymode",
        "shutil.copystat",
        "shutil.copytree",
        "shutil.rmtree",
        "shutil.move",
        "shutil.make_archive",
        "shutil.unpack_archive",
    }
)
_READ_EVENTS = frozenset({"os.listdir", "os.scandir", "os.listxattr", "os.getxattr", "glob.glob"})
_WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_TRUNC
_PR_SET_NO_NEW_PRIVS = 38


class _Bounded(io.TextIOBase):
    """A text sink keeping the first ``limit`` UTF-8 bytes written to it."""

    def __init__(self, limit: int) -> None:
        self._parts: list[str] = []
        self._left = limit
        self.truncated = False

    def write(self, s: str) -> int:
        if not isinstance(s, str):
            raise TypeError(f"write() argument must be str, not {type(s).__name__}")
        if self._left <= 0:
            self.truncated = self.truncated or bool(s)
            return len(s)
        data = s.encode("utf-8", "replace")
        if len(data) > self._left:
            data = data[: self._left]
            self.truncated = True
        self._left -= len(data)
        self._parts.append(data.decode("utf-8", "ignore"))
        return len(s)

    def writable(self) -> bool:
        return True

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return "utf-8"

    def getvalue(self) -> str:
        return "".join(self._parts)


class _Permit:
    """One-shot permissions the worker grants itself (its own per-cell ``setrlimit``)."""

    __slots__ = ("setrlimit",)

    def __init__(self) -> None:
        self.setrlimit = 0


def _make_hook(
    scratch: str, read_roots: tuple[str, ...], permit: _Permit
) -> Callable[[str, tuple[Any, ...]], None]:
    """Build the audit hook: refuse process, network, ctypes events and paths outside the sandbox."""
    realpath, fspath, join, getcwd, isdir = (
        os.path.realpath,
        os.fspath,
        os.path.join,
        os.getcwd,
        os.path.isdir,
    )

    def resolve(path: object, base: str | None = None) -> str | None:
        """Absolute real path (None for a descriptor); relative paths against ``base`` or the cwd."""
        if isinstance(path, int):
            return None
        raw = fspath("." if path is None else path)  # type: ignore[call-overload]
        text = raw.decode("utf-8", "surrogateescape") if isinstance(raw, bytes) else raw
        return realpath(join(base or getcwd(), text))

    def under(full: str, roots: tuple[str, ...]) -> bool:
        return any(full == r or full.startswith(r + os.sep) for r in roots)

    def check_open(path: object, write: bool) -> bool:
        full = resolve(path)
        if full is None or under(full, (scratch,)):
            return True
        return not write and under(full, read_roots) and not isdir(full)  # no directory fds outside

    def check_write(args: tuple[Any, ...], symlink: bool) -> list[object]:
        paths = [a for a in args[:2] if isinstance(a, (str, bytes, os.PathLike))]
        link_dir = os.path.dirname(resolve(paths[1]) or scratch) if symlink and len(paths) == 2 else None
        fulls = [resolve(paths[0], link_dir)] + [resolve(p) for p in paths[1:]] if paths else []
        return [
            p
            for p, f in zip(paths, fulls, strict=True)
            if f is None or f == scratch or not under(f, (scratch,))
        ]

    def deny(event: str, detail: object) -> None:
        raise PermissionError(f"sandbox: {event} refused ({detail!r})")

    def hook(event: str, args: tuple[Any, ...]) -> None:
        if event == "resource.setrlimit" and permit.setrlimit > 0:
            permit.setrlimit -= 1
        elif event in _DENY_EVENTS or event.startswith(_DENY_PREFIXES):
            deny(event, args[0] if args else None)
        elif event == "import" and args and args[0] in _DENY_MODULES:
            deny(event, args[0])
        elif event == "open":
            mode, flags = (args[1] if len(args) > 1 else None), (args[2] if len(args) > 2 else 0)
            write = bool(isinstance(mode, str) and any(c in mode for c in "wax+"))
            if not check_open(args[0], write or bool(isinstance(flags, int) and flags & _WRITE_FLAGS)):
                deny(event, args[0])
        elif event == "os.chdir":
            full = resolve(args[0]) if args else None
            if full is None or not under(full, (scratch,)):
                deny(event, args[0] if args else None)
        elif event in _READ_EVENTS:
            full = resolve(args[0]) if args else None
            if full is not None and not under(full, (scratch, *read_roots)):
                deny(event, args[0])
        elif event in _WRITE_EVENTS and (bad := check_write(args, event == "os.symlink")):
            deny(event, bad[0])

    return hook


def _read_frame(fd: int) -> dict[str, Any] | None:
    """Read one request; None at end of input."""
    header = _read_exact(fd, 4)
    if header is None:
        return None
    (size,) = struct.unpack(">I", header)
    body = _read_exact(fd, size)
    if body is None:
        return None
    request: dict[str, Any] = json.loads(body.decode("utf-8"))
    return request


def _read_exact(fd: int, size: int) -> bytes | None:
    buf = bytearray()
    while len(buf) < size:
        chunk = os.read(fd, size - len(buf))
        if not chunk:
            return None
        buf += chunk
    return bytes(buf)


def _write_frame(fd: int, payload: dict[str, Any]) -> None:
    body = json.dumps(payload).encode("utf-8")
    data = struct.pack(">I", len(body)) + body
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _arm_cpu(cpu_s: int, permit: _Permit) -> None:
    """Set the soft ``RLIMIT_CPU`` to the CPU time used so far plus ``cpu_s`` (kernel ``SIGXCPU``)."""
    usage = resource.getrusage(resource.RUSAGE_SELF)
    hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
    soft = math.ceil(usage.ru_utime + usage.ru_stime + cpu_s)
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    permit.setrlimit += 1
    try:
        resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))
    finally:
        permit.setrlimit = 0


def _run_cell(code: str, namespace: dict[str, Any], cell: int, limit: int) -> dict[str, Any]:
    """Execute one cell like a notebook: the value of a final expression is printed."""
    out, err = _Bounded(limit), _Bounded(limit)
    error: str | None = None
    memory_error = False
    name = f"<cell {cell}>"
    linecache.cache[name] = (len(code), None, code.splitlines(keepends=True), name)
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            tree = ast.parse(code, name, "exec")
            last = tree.body[-1] if tree.body else None
            if isinstance(last, ast.Expr):
                tree.body.pop()
            exec(compile(tree, name, "exec"), namespace)
            if isinstance(last, ast.Expr):
                value = eval(compile(ast.Expression(last.value), name, "eval"), namespace)
                if value is not None:
                    print(repr(value))
        except BaseException as exc:  # report everything (SystemExit, KeyboardInterrupt too)
            memory_error = isinstance(exc, MemoryError)
            error = _format_error(exc)[-limit:]
    return {
        "stdout": out.getvalue(),
        "stderr": err.getvalue(),
        "error": error,
        "stdout_truncated": out.truncated,
        "stderr_truncated": err.truncated,
        "memory_error": memory_error,
    }


def _format_error(exc: BaseException) -> str:
    """The traceback of a cell's exception, without the worker's own frames (the hook's)."""
    info = traceback.TracebackException.from_exception(exc)
    for te in (info, *_chained(info)):
        te.stack = traceback.StackSummary.from_list([f for f in te.stack if f.filename != __file__])
    return "".join(info.format())


def _chained(info: traceback.TracebackException) -> list[traceback.TracebackException]:
    found: list[traceback.TracebackException] = []
    current = info
    while (current := current.__cause__ or current.__context__) is not None and len(found) < 10:  # type: ignore[assignment]
        found.append(current)
    return found


def _drop_privileges(uid: int, gid: int) -> None:
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
    with contextlib.suppress(PermissionError):
        os.setuid(0)
        raise RuntimeError("privilege drop failed: setuid(0) still works")


def _no_new_privs() -> bool:
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return int(libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) == 0
    except (OSError, AttributeError):
        return False


def _setup(config: dict[str, Any], permit: _Permit) -> tuple[dict[str, Any], list[str]]:
    """Imports, data, privilege drop, audit hook; returns the namespace and the active layers."""
    for module in config["preimport"]:
        importlib.import_module(module)
    import pandas as pd

    frame = pd.read_pickle(config["data"])
    layers = ["rlimits"]
    for ns, host_inode in sorted(config["host_ns"].items()):
        if os.stat(f"/proc/self/ns/{ns}").st_ino != host_inode:
            layers.append(f"{ns}ns")
    if _no_new_privs():
        layers.append("no_new_privs")
    if config["uid"] is not None:
        _drop_privileges(config["uid"], config["gid"])
        layers.append("uid")
    scratch = os.path.realpath(config["scratch"])
    os.chdir(scratch)
    roots = tuple(sorted({os.path.realpath(p) for p in config["read_roots"]}))
    sys.path[:] = [p for p in sys.path if any(os.path.realpath(p).startswith(r) for r in roots)]
    for name in list(sys.modules):
        if name.split(".")[0] in _DENY_MODULES or name in _DENY_MODULES:
            del sys.modules[name]
    namespace: dict[str, Any] = {"__name__": "__sandbox__", "__builtins__": builtins, "df": frame, "pd": pd}
    namespace["np"] = sys.modules["numpy"]
    sys.addaudithook(_make_hook(scratch, roots, permit))
    layers.append("audit_hook")
    return namespace, layers


def main() -> None:
    """Entry point: set up, handshake, then serve cells until the input closes."""
    config: dict[str, Any] = json.loads(sys.argv[1])
    proto_in, proto_out = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    try:
        permit = _Permit()
        namespace, layers = _setup(config, permit)
    except BaseException as exc:
        _write_frame(proto_out, {"fatal": "".join(traceback.format_exception(exc))[-4000:]})
        raise SystemExit(1) from exc
    _write_frame(proto_out, {"ready": True, "layers": layers})
    cell = 0
    while (request := _read_frame(proto_in)) is not None:
        cell += 1
        _arm_cpu(config["cpu_s"], permit)
        _write_frame(proto_out, _run_cell(request["code"], namespace, cell, config["max_output_bytes"]))


if __name__ == "__main__":
    main()
