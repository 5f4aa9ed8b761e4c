"""Secrets: a key goes only to its provider's host or a URL named with --api-key-env; never stored."""

import os
import subprocess
import sys
from pathlib import Path

from tests.fake_openai import fake_openai_server

from wearbench.bench import read_items
from wearbench.runner import select_items

CANARY = "sk-canary-0f1e2d3c4b5a69788796a5b4c3d2e1f0"


def run(*args: str | Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wearbench", *map(str, args)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )


def _stored_bytes(folder: Path) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file())


def test_local_url_gets_no_key_without_api_key_env(small_bench: Path, tmp_path: Path) -> None:
    env = {**os.environ, "OPENAI_API_KEY": CANARY, "ANTHROPIC_API_KEY": CANARY}
    with fake_openai_server() as (url, state):
        res = run("eval", "--bench", small_bench, "--model", f"openai:m@{url}", "--out", tmp_path / "r",
                  "--limit", "6", "-q", env=env)  # fmt: skip
    assert res.returncode == 0, res.stderr
    assert len(state.seen) == 6
    for headers, body in state.seen:
        assert "authorization" not in {k.lower() for k in headers}
        assert CANARY not in body
        assert CANARY not in "".join(headers.values())


def test_canary_echoed_in_401_never_stored_nor_shown(small_bench: Path, tmp_path: Path) -> None:
    chosen = select_items(read_items(small_bench), 10, seed=0)
    key = chosen[3].question
    env = {**os.environ, "OPENAI_API_KEY": "sk-other-provider-key-000000", "WB_CANARY_KEY": CANARY}
    out = tmp_path / "r"
    with fake_openai_server(faults={key: [401]}, echo=CANARY) as (url, state):
        res = run("eval", "--bench", small_bench, "--model", f"openai:m@{url}", "--out", out, "--limit", "10",
                  "--api-key-env", "WB_CANARY_KEY", "-q", env=env)  # fmt: skip
    # the user named this URL's key, so it was sent (the test can fail), and came back in a 401
    assert {v for h, _ in state.seen for k, v in h.items() if k.lower() == "authorization"} == {
        f"Bearer {CANARY}"
    }
    assert res.returncode == 1
    assert "HTTP 401" in res.stderr
    score = run("score", out, env=env)
    report = run("report", out, "--out", tmp_path / "report.html", env=env)
    assert report.returncode == 0, report.stderr
    shown = res.stdout + res.stderr + score.stdout + score.stderr + report.stdout + report.stderr
    assert CANARY not in shown
    stored = _stored_bytes(out) + (tmp_path / "report.html").read_bytes()
    assert CANARY.encode() not in stored
    assert b"Incorrect API key provided: [REDACTED]" in stored
    assert b"sk-other-provider-key" not in stored
