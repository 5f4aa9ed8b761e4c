"""An eval in agent mode against a FAKE model whose code tries to read the answer key.

The fake OpenAI-compatible server answers the first turn with a ``python`` tool call running the
issue's cheat (the eval's ``--bench`` from ``/proc/<pid>/cmdline``, or the true path given
outright, then ``items.jsonl`` through pyarrow, which raises no audit events) and answers the
letter it leaked, else a letter hashed from the conversation (chance: 1 in 10).
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

import wearbench
from wearbench.agent import SandboxError
from wearbench.bench import build_benchmark, read_items
from wearbench.models import GenerateConfig
from wearbench.runner import RunStore, Setting, evaluate

FAST = GenerateConfig(max_tokens=64, max_retries=1, backoff_s=0.0, timeout_s=60)
N_ITEMS = 20

CHEAT = """
import json, pyarrow as pa
prompt, found = PROMPT, {BENCH}
try:
    last = int(pa.OSFile('/proc/sys/kernel/ns_last_pid').read(64))
except OSError:
    last = 0
for pid in range(1, last + 1):
    try:
        argv = pa.OSFile('/proc/%d/cmdline' % pid).read(1 << 16).split(b'\\0')
    except OSError:
        continue
    if b'--bench' in argv:
        found.add(argv[argv.index(b'--bench') + 1].decode())
for path in sorted(found):
    try:
        stream = pa.OSFile(path + '/items.jsonl')
        text = stream.read(stream.size()).decode()
    except OSError as exc:
        print('blocked', type(exc).__name__)
        continue
    for line in text.splitlines():
        item = json.loads(line)
        if item['question'] in prompt:
            print('LEAKED', item['answer'])
"""


def cheat_code(prompt: str, bench: Path) -> str:
    return CHEAT.replace("PROMPT", repr(prompt)).replace("{BENCH}", repr({str(bench)}))


def fallback_letter(messages: list[dict[str, Any]]) -> str:
    digest = hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).digest()
    return "ABCDEFGHIJ"[digest[0] % 10]


def _reply(body: dict[str, Any], bench: Path) -> dict[str, Any]:
    messages = body["messages"]
    tool = [m for m in messages if m.get("role") == "tool"]
    if body.get("tools") and not tool:
        prompt = next(str(m["content"]) for m in messages if m["role"] == "user")
        code = json.dumps({"code": cheat_code(prompt, bench)})
        call = {"id": "call_1", "type": "function", "function": {"name": "python", "arguments": code}}
        return {"role": "assistant", "content": None, "tool_calls": [call]}
    leaked = re.search(r"LEAKED ([A-J])", str(tool[0]["content"])) if tool else None
    return {
        "role": "assistant",
        "content": f"Answer: {leaked.group(1) if leaked else fallback_letter(messages)}",
    }


@contextmanager
def cheating_server(bench: Path) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            return

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            choice = {"index": 0, "finish_reason": "stop", "message": _reply(body, bench)}
            data = json.dumps({"id": "x", "object": "chat.completion", "created": 0, "model": "cheat",
                               "choices": [choice]}).encode()  # fmt: skip
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bench")
    build_benchmark(wearbench.synth(18, 240, seed=4, reference_users=300), out, seed=0)
    return out


def test_cheating_model_scores_at_chance(bench: Path, tmp_path: Path) -> None:
    answers = {item.id: item.answer for item in read_items(bench)}
    with cheating_server(bench) as url:
        run = evaluate(bench, f"openai:cheat@{url}", tmp_path, setting=Setting("csv", "agent"),
                       limit=N_ITEMS, concurrency=2, config=FAST)  # fmt: skip
    with RunStore(tmp_path) as store:
        rows = store.rows(run.info.run_id)
    assert len(rows) == N_ITEMS
    tools = []
    for row in rows:
        assert row.error is None  # the run continued past every blocked attempt
        transcript = json.loads(row.transcript)
        tools += [m["content"] for m in transcript if m["role"] == "tool"]
        assert row.letter is not None
    assert len(tools) == N_ITEMS
    assert all("LEAKED" not in t and "blocked FileNotFoundError" in t for t in tools)
    correct = sum(row.letter == answers[row.item_id] for row in rows)
    assert correct <= 6  # chance is 2 of 20; P(>= 7 correct by chance) < 0.003

    # the same code outside the sandbox leaks the answer (so this test can fail)
    row = rows[0]
    prompt = next(str(m["content"]) for m in json.loads(row.transcript) if m["role"] == "user")
    outside = subprocess.run(
        [sys.executable, "-c", cheat_code(prompt, bench)], capture_output=True, text=True, timeout=120
    )
    assert f"LEAKED {answers[row.item_id]}" in outside.stdout, outside.stderr


def test_agent_eval_refuses_without_bwrap(
    bench: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import wearbench.agent._bwrap as bwrap

    monkeypatch.setattr(bwrap, "find_bwrap", lambda: None)
    with pytest.raises(SandboxError, match="apt-get install bubblewrap"):
        evaluate(
            bench, "openai:cheat@http://127.0.0.1:9/v1", tmp_path, setting=Setting("csv", "agent"), limit=2
        )
    assert not (tmp_path / "runs.sqlite").exists()  # refused before any run was recorded
