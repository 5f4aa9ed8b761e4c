"""The kernel boundary, attacked with the audit hook bypassed.

Audit hooks are not a security boundary: pyarrow's file I/O raises no audit events, and code can
dig ``_posixsubprocess`` out of ``gc`` and call ``fork_exec`` (no audit event either) to start a
fresh interpreter without the hook. These tests do both, as a cheating model would, and check
that bubblewrap's namespaces, the read-only minimal root and the uid hold. Each attack also runs
(or is checked) outside the sandbox, so a test can fail.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest

from wearbench.agent import Sandbox, SandboxError, SandboxLimits

from .conftest import pid_namespace, processes_in
from .test_sandbox import IS_ROOT, REPO_PYPROJECT, still_works

# ``spawn`` starts a process through ``_posixsubprocess.fork_exec`` (3.11 signature) and raises
# OSError when the exec fails; ``unhooked`` runs Python source in a fresh interpreter (no audit
# hook) and returns its output.
ESCAPE = """
import gc, os, sys
ps = next(o for o in gc.get_objects() if type(o).__name__ == 'module' and o.__name__ == '_posixsubprocess')
def spawn(argv, out=-1, setsid=False):
    err_r, err_w = os.pipe()
    try:
        pid = ps.fork_exec([a.encode() for a in argv], [argv[0].encode()], True, (err_w,), None, None,
                           -1, -1, -1, out, -1, out, err_r, err_w, False, setsid, -1,
                           None, None, None, -1, None, False)
        os.close(err_w)
        failure = b''
        while chunk := os.read(err_r, 1000):
            failure += chunk
    finally:
        os.close(err_r)
    if failure:
        os.waitpid(pid, 0)
        raise OSError(failure.decode())
    return pid
def unhooked(code):
    with open('unhooked.log', 'w') as log:
        pid = spawn([sys.executable, '-I', '-c', code], log.fileno())
    os.waitpid(pid, 0)
    return open('unhooked.log').read()
"""
needs_fork_exec = pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="fork_exec signature of 3.11")

# The cheat of the issue: find the eval's --bench in some process's /proc/<pid>/cmdline (every pid
# up to the last one allocated) and read the answer key and the run store through pyarrow (no
# audit events). KNOWN is a path the attacker guessed (here: the true one).
CHEAT = """
import pyarrow as pa
found, seen = set(), 0
last = int(pa.OSFile('/proc/sys/kernel/ns_last_pid').read(64))
for pid in range(1, last + 1):
    try:
        argv = pa.OSFile('/proc/%d/cmdline' % pid).read(1 << 16).split(b'\\0')
    except OSError:
        continue
    seen += 1
    if b'--bench' in argv:
        found.add(argv[argv.index(b'--bench') + 1].decode())
for path in sorted(found | {{KNOWN}}):
    for name in ('items.jsonl', 'runs.sqlite', 'context/u001.parquet'):
        try:
            print('READ', pa.OSFile(path + '/' + name).read().decode())
        except OSError as exc:
            print('blocked', type(exc).__name__)
print('processes', seen, 'found', sorted(found))
"""


@pytest.fixture
def public_dir() -> Iterator[Path]:
    """A world-readable and world-writable folder, like a checkout (0755) or /tmp (1777) would be."""
    folder = Path(tempfile.mkdtemp(prefix="wearbench-public-"))
    folder.chmod(0o1777)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def make_bench(folder: Path) -> Path:
    bench = folder / "bench"
    (bench / "context").mkdir(parents=True)
    (bench / "items.jsonl").write_text('{"id": "q1", "answer": "CANARY-ANSWER"}\n')
    (bench / "runs.sqlite").write_text("CANARY-RUN")
    (bench / "context" / "u001.parquet").write_text("CANARY-CONTEXT")
    for path in (bench, bench / "context", *bench.rglob("*")):
        path.chmod(0o755 if path.is_dir() else 0o644)
    return bench


def test_layers_include_every_namespace(sandbox: Sandbox) -> None:
    assert {"bwrap", "mntns", "pidns", "netns", "ipcns", "utsns", "rlimits", "audit_hook"} <= set(
        sandbox.layers
    )
    assert ("uid" in sandbox.layers) == IS_ROOT


def test_answer_key_cheat_finds_nothing(sandbox: Sandbox, public_dir: Path) -> None:
    bench = make_bench(public_dir)
    code = CHEAT.replace("{KNOWN}", repr(str(bench)))
    decoy = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)", "--bench", str(bench)])
    try:
        time.sleep(0.2)
        outside = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
        result = sandbox.run(code)
    finally:
        decoy.kill()
        decoy.wait()
    # the cheat works outside the sandbox (so this test can fail) ...
    assert '"answer": "CANARY-ANSWER"' in outside.stdout, outside.stderr
    assert "READ CANARY-RUN" in outside.stdout
    # from the decoy's /proc/<pid>/cmdline (other test workers' --bench folders may show up too)
    assert repr(str(bench)) in outside.stdout.split("found ")[1]
    assert int(outside.stdout.split("processes ")[1].split()[0]) > 3
    # ... and inside it sees only the sandbox's own processes and none of the host's files
    assert result.ok, result.error
    assert "CANARY" not in result.stdout
    assert result.stdout.count("blocked FileNotFoundError") == 3
    assert "found []" in result.stdout
    seen = int(result.stdout.split("processes ")[1].split()[0])
    assert 1 <= seen <= 3  # PID 1 (bwrap) and the worker; never the eval or the decoy
    still_works(sandbox)


@pytest.mark.parametrize(
    "target", ["/etc/passwd", "/etc/hostname", "/root/.bashrc", str(REPO_PYPROJECT), "{bench}/items.jsonl"]
)
def test_pyarrow_reads_nothing_of_the_host(sandbox: Sandbox, public_dir: Path, target: str) -> None:
    path = target.format(bench=make_bench(public_dir))
    assert os.path.exists(path) or target == "/root/.bashrc"
    result = sandbox.run(f"import pyarrow as pa\nprint(pa.OSFile({path!r}).read())")
    assert result.error is not None
    assert "FileNotFoundError" in result.error
    assert result.stdout == ""
    still_works(sandbox)


def test_pyarrow_writes_nothing_outside_scratch(sandbox: Sandbox, public_dir: Path) -> None:
    targets = [public_dir / "escape.txt", Path("/dev/shm") / f"wearbench-escape-{os.getpid()}"]
    targets.append(Path(pd.__file__).parent / "escape.txt")  # the Python installation is read-only
    for target in targets:
        result = sandbox.run(f"import pyarrow as pa\npa.OSFile({str(target)!r}, 'w').write(b'x')")
        assert result.error is not None, target
        assert "Error" in result.error
        assert not target.exists()
    result = sandbox.run("import pyarrow as pa\npa.OSFile('inside.bin', 'w').write(b'ok')")
    assert result.ok, result.error
    assert (sandbox.scratch / "inside.bin").read_bytes() == b"ok"
    still_works(sandbox)


@needs_fork_exec
@pytest.mark.parametrize("shell", ["/bin/sh", "/usr/bin/sh", "/bin/bash", "/usr/bin/env"])
def test_fork_exec_finds_no_shell(sandbox: Sandbox, shell: str) -> None:
    assert os.path.exists(shell) or shell == "/bin/bash"
    result = sandbox.run(ESCAPE + f"spawn([{shell!r}, '-c', 'id > pwned'])")
    assert result.error is not None
    assert "OSError: OSError:2:" in result.error  # ENOENT from the exec: there is no shell
    assert not (sandbox.scratch / "pwned").exists()
    still_works(sandbox)


UNHOOKED_PROBE = """
import errno, json, os, socket
out = {'uid': os.getuid(), 'root': sorted(os.listdir('/'))}
out['pids'] = sorted(int(p) for p in os.listdir('/proc') if p.isdigit())
out['cmdlines'] = [open('/proc/%d/cmdline' % p, 'rb').read().decode('utf-8', 'replace') for p in out['pids']]
out['exists'] = {p: os.path.exists(p) for p in PATHS}
try:
    open('/usr/lib/escape.txt', 'w')
except OSError as exc:
    out['write_usr'] = exc.errno
for name, address in (('loopback', ('127.0.0.1', PORT)), ('internet', ('1.1.1.1', 443))):
    try:
        socket.create_connection(address, timeout=2)
        out[name] = 'connected'
    except OSError as exc:
        out[name] = exc.errno
print(json.dumps(out))
"""


@needs_fork_exec
def test_unhooked_process_sees_nothing_of_the_host(sandbox: Sandbox, public_dir: Path) -> None:
    bench = make_bench(public_dir)
    paths = [str(bench), str(REPO_PYPROJECT), str(REPO_PYPROJECT.parent / "src"), "/root/.ssh", "/etc/passwd"]
    paths += ["/tmp", "/home", "/work", f"/proc/{os.getpid()}/cmdline", "/bin/sh", "/usr/bin"]
    # a top folder holding the Python installation is bound (read-only) down to that installation
    python_tops = {Path(p).parts[1] for p in (sys.prefix, sys.base_prefix)}
    paths = [p for p in paths if Path(p).parts[1] not in python_tops or len(Path(p).parts) > 2]
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        listener.settimeout(0.2)
        probe = UNHOOKED_PROBE.replace("PATHS", repr(paths)).replace("PORT", str(listener.getsockname()[1]))
        result = sandbox.run(ESCAPE + f"print(unhooked({probe!r}))")
        with pytest.raises(TimeoutError):
            listener.accept()
    assert result.ok, result.error
    out = json.loads(result.stdout)
    assert out["uid"] == 65534
    system = {"dev", "proc", "etc", "usr", "lib", "lib32", "lib64", "libx32", "sandbox", "scratch"}
    assert set(out["root"]) <= system | python_tops
    assert "tmp" not in set(out["root"]) - python_tops  # /tmp only where a checkout's venv lives
    assert len(out["pids"]) <= 4  # bwrap's PID 1, the worker, this child
    assert not any("pytest" in c or "--bench" in c for c in out["cmdlines"])
    assert out["exists"] == dict.fromkeys(paths, False)
    assert out["write_usr"] == errno.EROFS
    assert out["loopback"] == errno.ECONNREFUSED  # the sandbox's own loopback: nothing listens
    assert out["internet"] == errno.ENETUNREACH  # no route out
    still_works(sandbox)


@needs_fork_exec
@pytest.mark.parametrize("ending", ["close", "wall timeout"])
def test_setsid_child_dies_with_the_sandbox(frame: pd.DataFrame, tmp_path: Path, ending: str) -> None:
    token = f"wearbench-survivor-{uuid.uuid4().hex}"
    scratch = tmp_path / "scratch"  # the caller's folder: it outlives the sandbox
    child = "import time\nwhile True:\n    open('/scratch/alive', 'a').write('x')\n    time.sleep(0.05)"
    sb = Sandbox(frame, SandboxLimits(wall_s=3), scratch=scratch)
    try:
        result = sb.run(ESCAPE + f"print(spawn([sys.executable, '-c', {child!r}, {token!r}], setsid=True))")
        assert result.ok, result.error
        deadline = time.monotonic() + 20
        while not (scratch / "alive").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert _host_pids_with(token)  # the child runs (in its own session) ...
        if ending == "wall timeout":
            assert sb.run("import time\ntime.sleep(60)").killed == "wall timeout"
    finally:
        sb.close()
    assert _host_pids_with(token) == []  # ... and is gone the moment the sandbox is
    beats = (scratch / "alive").stat().st_size
    assert beats > 0
    time.sleep(0.5)
    assert (scratch / "alive").stat().st_size == beats


@needs_fork_exec
@pytest.mark.skipif(not IS_ROOT, reason="RLIMIT_NPROC counts the host's nobody after the uid drop")
def test_nproc_caps_escaped_fork_bomb_and_close_kills_it(frame: pd.DataFrame) -> None:
    with Sandbox(frame, SandboxLimits(max_processes=8)) as sb:
        result = sb.run(
            ESCAPE + "started = refused = 0\nfor _ in range(30):\n    try:\n"
            "        spawn([sys.executable, '-S', '-c', 'import time; time.sleep(20)'])\n"
            "        started += 1\n    except BlockingIOError:\n        refused += 1\nprint(started, refused)"
        )
        assert result.ok, result.error
        started, refusals = map(int, result.stdout.split())
        assert started <= 8
        assert refusals >= 22
        assert sb.pid is not None
        namespace = pid_namespace(sb.pid)
        assert len(processes_in(namespace)) == 2 + started  # PID 1, the worker, the sleepers
        still_works(sb)
    assert processes_in(namespace) == []


def test_missing_bwrap_refuses_with_the_install_hint(
    frame: pd.DataFrame, monkeypatch: pytest.MonkeyPatch
) -> None:
    import wearbench.agent._bwrap as bwrap

    monkeypatch.setattr(bwrap, "find_bwrap", lambda: None)
    with pytest.raises(
        SandboxError, match=r"`bwrap` was not found: install bubblewrap: `apt-get install bubblewrap`"
    ):
        Sandbox(frame)


def test_broken_bwrap_refuses(frame: pd.DataFrame, monkeypatch: pytest.MonkeyPatch) -> None:
    import wearbench.agent._bwrap as bwrap

    monkeypatch.setattr(bwrap, "find_bwrap", lambda: "/bin/false")
    with pytest.raises(SandboxError, match="`/bin/false` cannot create a sandbox here: exit status 1"):
        Sandbox(frame)


def _host_pids_with(token: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and token.encode() in (entry / "cmdline").read_bytes():
                found.append(int(entry.name))
        except OSError:
            continue
    return found
