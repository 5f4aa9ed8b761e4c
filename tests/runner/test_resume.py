"""kill -9 in the middle of an eval, then re-run: the store equals an uninterrupted run's."""

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from tests.fake_openai import fake_openai_server

from wearbench.runner import RunStore

N = 200


def _count(rundir: Path) -> int:
    path = rundir / "runs.sqlite"
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{path}?mode=ro", uri=True, timeout=5) as db:
            return int(db.execute("SELECT COUNT(*) FROM results").fetchone()[0])
    except sqlite3.OperationalError:  # tables not created yet
        return 0


def _fields(rundir: Path) -> list[tuple[object, ...]]:
    with RunStore(rundir) as store:
        (run,) = store.runs()
        rows = store.rows(run.run_id)
    return [(r.item_id, r.prompt_hash, r.response, r.letter, r.correct, r.error) for r in rows]


def test_kill_9_mid_run_then_rerun_loses_and_duplicates_nothing(small_bench: Path, tmp_path: Path) -> None:
    with fake_openai_server(delay_s=0.02) as (url, state):
        args = [sys.executable, "-m", "wearbench", "eval", "--bench", str(small_bench),
                "--model", f"openai:fake@{url}", "--limit", str(N), "--concurrency", "4",
                "--ablate", "no_history", "-q", "--out"]  # fmt: skip
        subprocess.run([*args, str(tmp_path / "whole")], check=True, capture_output=True)
        whole_requests = state.requests
        assert whole_requests == N

        proc = subprocess.Popen([*args, str(tmp_path / "cut")], stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 120
        while _count(tmp_path / "cut") < N // 3 and time.monotonic() < deadline and proc.poll() is None:
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        stored = _count(tmp_path / "cut")
        assert N // 3 <= stored < N, "the kill must land mid-run"

        before = state.requests
        subprocess.run([*args, str(tmp_path / "cut")], check=True, capture_output=True)
        asked_again = state.requests - before
        # answered items are never re-asked; calls in flight at the kill may have reached the
        # response cache without a stored row (then they cost nothing on the re-run)
        assert N - stored - 4 <= asked_again <= N - stored

    assert _count(tmp_path / "cut") == N
    assert _fields(tmp_path / "cut") == _fields(tmp_path / "whole")
