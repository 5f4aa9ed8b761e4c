"""Kernel isolation layers, checked with the audit hook deliberately bypassed."""

from __future__ import annotations

import errno
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest

from wearbench.agent import Sandbox, SandboxLimits

from .test_sandbox import IS_ROOT, REPO_PYPROJECT, process_group_size, still_works

# Audit hooks are not a security boundary: code can dig module objects out of ``gc`` and call
# ``_posixsubprocess.fork_exec`` (which has no audit event). These tests do exactly that and check
# that the kernel layers (uid ``nobody``, RLIMIT_NPROC, process-group kill) still hold.
ESCAPE = """
import gc, os
ps = next(o for o in gc.get_objects() if type(o).__name__ == 'module' and o.__name__ == '_posixsubprocess')
def spawn(argv):
    err_r, err_w = os.pipe()
    try:
        return ps.fork_exec([a.encode() for a in argv], [argv[0].encode()], True, (), None, None,
                            -1, -1, -1, -1, -1, -1, err_r, err_w, False, False, -1,
                            None, None, None, -1, None, False)
    finally:
        os.close(err_r)
        os.close(err_w)
"""
needs_root_311 = pytest.mark.skipif(
    not IS_ROOT or sys.version_info[:2] != (3, 11), reason="uid drop needs root; fork_exec signature of 3.11"
)


@needs_root_311
def test_uid_drop_holds_when_hook_is_bypassed(sandbox: Sandbox, tmp_path: Path) -> None:
    marker = f"wearbench-escape-{os.getpid()}"
    script = (
        f"id -u; cat /etc/shadow; ls /root; touch {REPO_PYPROJECT.parent}/{marker}; "
        f"touch {tmp_path}/{marker}; cat {REPO_PYPROJECT} >/dev/null && echo REPO_READABLE"
    )
    result = sandbox.run(
        ESCAPE
        + f"pid = spawn(['/bin/sh', '-c', '{{ ' + {script!r} + '; }} > escape.log 2>&1'])\n"
        + "print(os.waitpid(pid, 0)[1])"
    )
    assert result.ok, result.error
    log = (sandbox.scratch / "escape.log").read_text()
    assert log.splitlines()[0] == "65534"
    assert "/etc/shadow: Permission denied" in log
    assert "/root" in log
    assert "Permission denied" in log.split("/etc/shadow", 1)[1]
    assert not (REPO_PYPROJECT.parent / marker).exists()
    assert not (tmp_path / marker).exists()
    # The repository here is world-readable: the uid drop alone does not hide it (the hook does).
    assert ("REPO_READABLE" in log) == bool(REPO_PYPROJECT.stat().st_mode & 0o004)
    still_works(sandbox)


@needs_root_311
def test_nproc_caps_escaped_fork_bomb_and_close_kills_it(frame: pd.DataFrame) -> None:
    with Sandbox(frame, SandboxLimits(max_processes=8)) as sb:
        result = sb.run(
            ESCAPE + "started = refused = 0\nfor _ in range(30):\n    try:\n"
            "        spawn(['/bin/sleep', '20'])\n        started += 1\n    except BlockingIOError:\n"
            "        refused += 1\nprint(started, refused)"
        )
        assert result.ok, result.error
        started, refusals = map(int, result.stdout.split())
        assert started <= 8
        assert refusals >= 22
        pgid = sb.pid
        assert pgid is not None
        assert process_group_size(pgid) == 1 + started
        still_works(sb)
    deadline = time.monotonic() + 5
    while process_group_size(pgid) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert process_group_size(pgid) == 0


@pytest.mark.skipif(not IS_ROOT, reason="CLONE_NEWNET needs root here")
def test_network_namespace_blocks_loopback_without_hook() -> None:
    from wearbench.agent._process import make_preexec

    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        port = listener.getsockname()[1]
        code = (
            "import socket\ntry:\n"
            f"    socket.create_connection(('127.0.0.1', {port}), timeout=2)\n    print('connected')\n"
            "except OSError as exc:\n    print('errno', exc.errno)"
        )
        done = subprocess.run(
            [sys.executable, "-I", "-c", code],
            preexec_fn=make_preexec(SandboxLimits(), root=True),
            capture_output=True,
            text=True,
            timeout=30,
            check=True,
        )
    assert done.stdout.strip() == f"errno {errno.ENETUNREACH}"
