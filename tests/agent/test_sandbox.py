from __future__ import annotations

import os
import socket
import threading
import time
from pathlib import Path

import pandas as pd
import pytest

from wearbench.agent import DEFAULT_PREIMPORTS, ExecResult, Sandbox, SandboxError, SandboxLimits

from .conftest import pid_namespace, processes_in

REPO_PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"
IS_ROOT = os.geteuid() == 0


def still_works(sb: Sandbox) -> None:
    result = sb.run("print(df.shape, round(float(df['steps'].sum())))")
    assert result.ok, result.error
    assert result.stdout == "(10, 2) 45000\n"


def refused(result: ExecResult) -> None:
    assert result.error is not None
    assert "PermissionError: sandbox:" in result.error
    assert result.killed is None


# -- data and state -----------------------------------------------------------------------------


def test_df_present_with_shape_and_values(sandbox: Sandbox) -> None:
    result = sandbox.run(
        "print(df.shape)\nprint(list(df.columns))\n"
        "print(df.index.name, df.index[0].date(), df.index[-1].date())\n"
        "print(df['resting_hr'].tolist())"
    )
    assert result.ok, result.error
    assert result.stdout.splitlines() == [
        "(10, 2)",
        "['steps', 'resting_hr']",
        "date 2024-01-01 2024-01-10",
        str([60.0 + i for i in range(10)]),
    ]


def test_common_analysis_works(sandbox: Sandbox) -> None:
    result = sandbox.run(
        "weekly = df.resample('W').sum()\nprint(weekly['steps'].tolist())\n"
        "print(df.tz_localize('Europe/Berlin').index[0].utcoffset())\n"
        "import statistics\nprint(statistics.linear_regression(range(10), df['steps'].tolist()).slope)\n"
        "import warnings\nwarnings.warn('careful')"
    )
    assert result.ok, result.error
    assert result.stdout == "[21000.0, 24000.0]\n1:00:00\n1000.0\n"
    assert "UserWarning: careful" in result.stderr


def test_state_persists_and_last_expression_is_shown(sandbox: Sandbox) -> None:
    assert sandbox.run("answer_base = 41").stdout == ""
    result = sandbox.run("answer_base + 1")
    assert result.stdout == "42\n"
    assert not result.restarted


def test_exception_is_reported_with_cell_traceback(sandbox: Sandbox) -> None:
    result = sandbox.run("x = 1\ny = x / 0")
    assert result.error is not None
    assert 'File "<cell' in result.error
    assert result.error.rstrip().endswith("ZeroDivisionError: division by zero")
    assert "_worker.py" not in result.error
    still_works(sandbox)


def test_layers_active_here(sandbox: Sandbox) -> None:
    assert {"rlimits", "audit_hook", "wall_timeout"} <= set(sandbox.layers)
    if IS_ROOT:
        assert {"uid", "netns"} <= set(sandbox.layers)
        assert sandbox.run("import os; print(os.getuid(), os.getgid(), os.getgroups())").stdout == (
            "65534 65534 []\n"
        )


# -- network ------------------------------------------------------------------------------------


def test_cannot_connect_to_listening_socket(sandbox: Sandbox) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        listener.settimeout(0.2)
        port = listener.getsockname()[1]
        result = sandbox.run(f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=1)")
        refused(result)
        assert "import refused ('socket')" in result.error  # type: ignore[operator]
        with pytest.raises(TimeoutError):
            listener.accept()
    still_works(sandbox)


@pytest.mark.parametrize(
    "code",
    [
        "import _socket\n_socket.socket()",
        "import socket\nsocket.socket()",
        "import urllib.request\nurllib.request.urlopen('http://127.0.0.1:9')",
        "import asyncio",
    ],
)
def test_cannot_create_sockets(sandbox: Sandbox, code: str) -> None:
    refused(sandbox.run(code))
    still_works(sandbox)


# -- files --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "path",
    [
        "/root/.ssh/id_ed25519",
        "/root/.ssh/authorized_keys",
        str(REPO_PYPROJECT),
        "/etc/shadow",
        "/etc/passwd",
    ],
)
def test_cannot_read_outside_scratch(sandbox: Sandbox, path: str) -> None:
    refused(sandbox.run(f"open({path!r}).read()"))
    refused(sandbox.run(f"import pathlib\npathlib.Path({path!r}).read_bytes()"))
    still_works(sandbox)


def test_cannot_read_test_owned_secret(sandbox: Sandbox, tmp_path: Path) -> None:
    secret = tmp_path / "id_rsa"
    secret.write_text("PRIVATE KEY")
    result = sandbox.run(f"print(open({str(secret)!r}).read())")
    refused(result)
    assert "PRIVATE KEY" not in result.stdout + (result.error or "")
    still_works(sandbox)


def test_cannot_escape_through_symlink_or_relative_path(sandbox: Sandbox) -> None:
    refused(sandbox.run("import os\nos.symlink('/etc/passwd', 'passwd_link')"))
    refused(sandbox.run("open('../../../../../../etc/passwd').read()"))
    for target in ("'/etc'", "'..'", "os.open('/', os.O_RDONLY)"):
        refused(sandbox.run(f"import os\nos.chdir({target})"))
    # a directory descriptor inside the Python installation would allow dir_fd-relative writes
    refused(sandbox.run("import os, sys\nos.open(sys.prefix, os.O_RDONLY)"))
    result = sandbox.run(
        "import os\nhome = os.getcwd()\nos.makedirs('deep', exist_ok=True)\nos.chdir('deep')\n"
        "open('f.txt', 'w').write('ok')\nos.chdir(home)\nprint(open('deep/f.txt').read())"
    )
    assert result.stdout == "ok\n", result.error
    still_works(sandbox)


def test_cannot_write_outside_scratch(sandbox: Sandbox, tmp_path: Path) -> None:
    for target in (tmp_path / "out.txt", Path("/tmp") / f"wearbench-escape-{os.getpid()}.txt"):
        refused(sandbox.run(f"open({str(target)!r}, 'w').write('x')"))
        refused(sandbox.run(f"import os\nos.open({str(target)!r}, os.O_WRONLY | os.O_CREAT)"))
        assert not target.exists()
    refused(sandbox.run(f"import shutil\nshutil.copyfile('/etc/hostname', {str(tmp_path / 'copy')!r})"))
    refused(sandbox.run(f"import os\nos.remove({str(REPO_PYPROJECT)!r})"))
    assert REPO_PYPROJECT.exists()
    still_works(sandbox)


@pytest.mark.parametrize("code", ["import os\nos.listdir('/root')", "import os\nlist(os.scandir('/root'))"])
def test_cannot_list_root(sandbox: Sandbox, code: str) -> None:
    refused(sandbox.run(code))
    still_works(sandbox)


def test_can_read_and_write_inside_scratch(sandbox: Sandbox) -> None:
    result = sandbox.run(
        "df.to_csv('daily.csv')\nimport os\nos.makedirs('sub', exist_ok=True)\n"
        "open('sub/note.txt', 'w').write('hello')\n"
        "print(open('sub/note.txt').read(), sorted(os.listdir('.')), len(pd.read_csv('daily.csv')))"
    )
    assert result.ok, result.error
    assert result.stdout.startswith("hello [")
    assert "'daily.csv'" in result.stdout
    assert result.stdout.rstrip().endswith(" 10")
    assert (sandbox.scratch / "sub" / "note.txt").read_text() == "hello"
    still_works(sandbox)


# -- processes ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "code",
    [
        "import os\nwhile True:\n    os.fork()",
        "import subprocess\nsubprocess.run(['sh', '-c', ':(){ :|:& };:'])",
        "import os\nos.system(':(){ :|:& };:')",
        "import os\nos.posix_spawn('/bin/sh', ['sh', '-c', 'true'], {})",
        "import os\nos.execv('/bin/sh', ['sh'])",
        "import multiprocessing\nmultiprocessing.Pool(4)",
        "import concurrent.futures.process",
        "import ctypes\nctypes.CDLL(None).fork()",
    ],
)
def test_cannot_fork_or_spawn(sandbox: Sandbox, code: str) -> None:
    refused(sandbox.run(code))
    assert sandbox.pid is not None
    assert sandbox.init_pid is not None
    assert processes_in(pid_namespace(sandbox.pid)) == [sandbox.init_pid, sandbox.pid]
    still_works(sandbox)


# -- limits -------------------------------------------------------------------------------------


def test_memory_limit(frame: pd.DataFrame) -> None:
    with Sandbox(frame, SandboxLimits(memory_mb=512)) as sb:
        result = sb.run("blob = bytearray(3 * 1024**3)")
        assert result.memory_error
        assert result.error is not None
        assert result.error.rstrip().endswith("MemoryError")
        assert "[memory limit reached]" in result.to_text()
        result = sb.run("arr = np.ones(400_000_000)")
        assert result.memory_error
        still_works(sb)
        assert not sb.run("1").restarted


def test_cpu_limit_kills_and_restarts(frame: pd.DataFrame) -> None:
    with Sandbox(frame, SandboxLimits(cpu_s=1, wall_s=20)) as sb:
        assert sb.run("kept = 1").ok
        started = time.monotonic()
        result = sb.run("while True:\n    pass")
        assert result.killed == "cpu limit"
        assert not result.timed_out
        assert time.monotonic() - started < 15
        assert "all Python state was lost" in result.to_text()
        after = sb.run("kept")
        assert after.restarted
        assert after.error is not None
        assert "NameError" in after.error
        still_works(sb)


def test_cpu_limit_is_per_call(frame: pd.DataFrame) -> None:
    with Sandbox(frame, SandboxLimits(cpu_s=1, wall_s=20)) as sb:
        spin = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.6:\n    pass"
        for _ in range(3):  # 1.8 CPU-s in total, 0.6 per call
            result = sb.run(spin)
            assert result.ok, result.error
        still_works(sb)


def test_wall_timeout_kills_process_group(frame: pd.DataFrame) -> None:
    with Sandbox(frame, SandboxLimits(wall_s=2)) as sb:
        old_pid = sb.pid
        assert old_pid is not None
        namespace = pid_namespace(old_pid)
        result = sb.run("import time\ntime.sleep(30)")
        assert result.timed_out
        assert result.killed == "wall timeout"
        assert 1.9 < result.duration_s < 6
        assert processes_in(namespace) == []
        still_works(sb)
        assert sb.pid != old_pid


def test_output_is_truncated(sandbox: Sandbox) -> None:
    result = sandbox.run("print('x' * 10_000_000)")
    assert result.truncated
    assert result.ok
    assert len(result.stdout.encode()) == sandbox.limits.max_output_bytes
    assert "[output truncated]" in result.to_text()
    many = sandbox.run("import sys\nfor i in range(200_000):\n    print(i)\n    print(i, file=sys.stderr)")
    assert many.truncated
    assert len(many.stdout.encode()) <= sandbox.limits.max_output_bytes
    assert len(many.stderr.encode()) <= sandbox.limits.max_output_bytes
    still_works(sandbox)


def test_raw_fd_writes_do_not_corrupt_protocol(sandbox: Sandbox) -> None:
    result = sandbox.run("import os\nos.write(1, b'\\x00\\x00\\x00\\x05junk')\nprint('after')")
    assert result.ok, result.error
    assert result.stdout == "after\n"
    still_works(sandbox)


# -- lifecycle ----------------------------------------------------------------------------------


def test_close_kills_worker_and_removes_scratch(frame: pd.DataFrame) -> None:
    sb = Sandbox(frame)
    pid, scratch = sb.pid, sb.scratch
    assert pid is not None
    namespace = pid_namespace(pid)
    assert scratch.is_dir()
    sb.close()
    assert processes_in(namespace) == []
    assert not scratch.exists()
    with pytest.raises(SandboxError, match="closed"):
        sb.run("1")


def test_scratch_under_a_private_folder_works(frame: pd.DataFrame, tmp_path: Path) -> None:
    hidden = tmp_path / "private"
    hidden.mkdir(mode=0o700)  # bound at /scratch: the host path's parents do not matter
    with Sandbox(frame, scratch=hidden / "scratch") as sb:
        result = sb.run("import os\nopen('note.txt', 'w').write('hi')\nprint(os.getcwd())")
        assert result.stdout == "/scratch\n", result.error
    assert (hidden / "scratch" / "note.txt").read_text() == "hi"


def test_limits_validate() -> None:
    with pytest.raises(ValueError, match="cpu_s"):
        SandboxLimits(cpu_s=0)


def test_extra_preimports_are_usable(frame: pd.DataFrame) -> None:
    with Sandbox(frame, preimport=(*DEFAULT_PREIMPORTS, "scipy.stats")) as sb:
        result = sb.run(
            "from scipy import stats\nround(float(stats.pearsonr(df['steps'], df['resting_hr'])[0]), 6)"
        )
        assert result.stdout == "1.0\n", result.error
        still_works(sb)


def test_modules_needing_refused_imports_fail_cleanly(sandbox: Sandbox) -> None:
    result = sandbox.run("import scipy.stats")
    assert result.error is not None
    assert "PermissionError: sandbox: import refused" in result.error
    still_works(sandbox)


def test_worker_killed_between_calls_restarts_transparently(frame: pd.DataFrame) -> None:
    # bwrap --die-with-parent ties the worker to the thread that started it
    box: list[tuple[Sandbox, int]] = []

    def start() -> None:
        sb = Sandbox(frame)
        assert sb.pid is not None
        box.append((sb, pid_namespace(sb.pid)))

    starter = threading.Thread(target=start)
    starter.start()
    starter.join()
    sb, namespace = box[0]
    with sb:
        deadline = time.monotonic() + 10
        while processes_in(namespace) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert processes_in(namespace) == []
        result = sb.run("print(1)")
        assert result.ok, result.error
        assert result.restarted
        assert result.stdout == "1\n"
