"""Runs fail loudly: circuit breaker, exit status, no phantom runs, manifest check."""

import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from tests.fake_openai import fake_openai_server

from wearbench._errors import WearbenchError
from wearbench.bench import read_items
from wearbench.models import GenerateConfig, ModelError
from wearbench.runner import RunStopped, RunStore, evaluate, select_items


def run(*args: str | Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wearbench", *map(str, args)], capture_output=True, text=True, timeout=120,
        env=env,
    )  # fmt: skip


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_closed_port_exits_nonzero_fast_and_records_nothing(small_bench: Path, tmp_path: Path) -> None:
    out = tmp_path / "r"
    started = time.monotonic()
    res = run("eval", "--bench", small_bench, "--model", f"openai:m@http://127.0.0.1:{_closed_port()}/v1",
              "--out", out, "-q")  # fmt: skip
    assert time.monotonic() - started < 30
    assert res.returncode == 1
    assert res.stderr.strip().splitlines() == [res.stderr.strip()]  # one clear line
    assert "permanent failures in a row (limit 5)" in res.stderr
    assert "connection refused" in res.stderr
    assert not out.exists()  # no phantom run, not even an empty store


def test_failed_start_in_a_used_folder_adds_no_run(small_bench: Path, tmp_path: Path) -> None:
    out = tmp_path / "r"
    assert (
        run("eval", "--bench", small_bench, "--model", "baseline:random", "--out", out, "-q").returncode == 0
    )
    res = run("eval", "--bench", small_bench, "--model", f"openai:m@http://127.0.0.1:{_closed_port()}/v1",
              "--out", out, "-q")  # fmt: skip
    assert res.returncode == 1
    with RunStore(out) as store:
        assert [r.model for r in store.runs()] == ["baseline:random"]
    score = run("score", out)
    assert "run: ?" not in score.stdout
    assert "baseline:random" in score.stdout


def test_missing_key_leaves_no_run(
    small_bench: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ModelError, match="no API key; set OPENAI_API_KEY"):
        evaluate(small_bench, "openai:gpt-4o-mini", tmp_path / "r", limit=3)
    assert not (tmp_path / "r").exists()


def test_breaker_stops_after_n_permanent_failures(small_bench: Path, tmp_path: Path) -> None:
    with (
        fake_openai_server(reject=403) as (url, state),
        pytest.raises(
            RunStopped, match=r"stopped: 3 permanent failures in a row \(limit 3\); last: .*HTTP 403"
        ),
    ):
        evaluate(small_bench, f"openai:m@{url}", tmp_path / "r", limit=30, concurrency=1,
                 max_permanent_failures=3)  # fmt: skip
    assert state.requests == 3  # no retries of a permanent failure, nothing after the breaker
    assert not (tmp_path / "r").exists()


def test_errored_items_make_eval_exit_nonzero_and_show_in_score(small_bench: Path, tmp_path: Path) -> None:
    chosen = select_items(read_items(small_bench), 12, seed=0)
    key = chosen[5].question
    failing = sum(key in i.question for i in chosen)
    with fake_openai_server(always_fail={key}) as (url, _):
        res = run("eval", "--bench", small_bench, "--model", f"openai:m@{url}", "--out", tmp_path / "r",
                  "--limit", "12", "--retries", "0", "-q")  # fmt: skip
    assert res.returncode == 1
    assert f"INCOMPLETE: {failing} item(s) errored" in res.stdout
    assert f"{failing} item(s) still errored" in res.stderr
    assert "HTTP 500" in res.stderr
    score = run("score", tmp_path / "r")
    assert f"INCOMPLETE: {failing} item(s) errored" in score.stdout
    assert f"error ×{failing}: openai:m@{url}: gave up after 0 retries: " in score.stdout


def test_run_with_errors_only_is_kept_out_of_the_store(small_bench: Path, tmp_path: Path) -> None:
    with fake_openai_server(reject=500) as (url, _):
        res = run("eval", "--bench", small_bench, "--model", f"openai:m@{url}", "--out", tmp_path / "r",
                  "--limit", "4", "--retries", "0", "-q")  # fmt: skip
    assert res.returncode == 1
    assert "no answer landed, no run recorded: 4 item(s) failed" in res.stderr
    assert "accuracy 0.000" not in res.stdout
    assert not (tmp_path / "r").exists()


def test_eval_refuses_a_benchmark_that_differs_from_its_manifest(small_bench: Path, tmp_path: Path) -> None:
    bench = tmp_path / "bench"
    shutil.copytree(small_bench, bench)
    evaluate(bench, "baseline:random", tmp_path / "ok", limit=3)  # an exact copy is accepted
    lines = (bench / "items.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    first = read_items(small_bench)[0]
    wrong = "A" if first.answer != "A" else "B"
    lines[0] = json.dumps({**json.loads(lines[0]), "answer": wrong}) + "\n"
    (bench / "items.jsonl").write_text("".join(lines), encoding="utf-8")
    with pytest.raises(WearbenchError, match=r"files do not match manifest.json \(changed: items.jsonl\)"):
        evaluate(bench, "baseline:random", tmp_path / "r", config=GenerateConfig())
    res = run("eval", "--bench", bench, "--model", "baseline:oracle", "--out", tmp_path / "r", "-q",
              env={**os.environ})  # fmt: skip
    assert res.returncode == 1
    assert len(res.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "r").exists()
    context = next((bench / "contexts").iterdir())
    context.unlink()
    with pytest.raises(WearbenchError, match=f"missing: contexts/{context.name}"):
        evaluate(bench, "baseline:random", tmp_path / "r")
