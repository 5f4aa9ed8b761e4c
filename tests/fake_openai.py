"""A FAKE OpenAI-compatible chat server for runner tests (paid APIs cannot run in tests).

It answers ``POST /v1/chat/completions`` deterministically: the reply letter is a function of
the request's messages, so an interrupted and an uninterrupted run must store identical
answers. It counts requests, can delay each one, and reports usage like a real server.
The real-model path is covered by the llama.cpp server tests; this one isolates the runner.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

LETTERS = "ABCDEFGHIJ"


def fake_reply(messages: list[dict[str, Any]]) -> str:
    """The fake model's deterministic reply to a message list."""
    digest = hashlib.sha256(json.dumps(messages, sort_keys=True).encode()).digest()
    return f"Reasoning omitted. Answer: {LETTERS[digest[0] % 10]}"


class _State:
    def __init__(self, delay_s: float) -> None:
        self.delay_s = delay_s
        self.requests = 0
        self.lock = threading.Lock()


def _handler(state: _State) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # quiet
            return

        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            with state.lock:
                state.requests += 1
            time.sleep(state.delay_s)
            text = fake_reply(body["messages"])
            prompt = sum(len(str(m.get("content", ""))) // 4 for m in body["messages"])
            payload = {
                "id": "chatcmpl-fake",
                "object": "chat.completion",
                "created": 0,
                "model": body.get("model", "fake"),
                "choices": [{"index": 0, "finish_reason": "stop",
                             "message": {"role": "assistant", "content": text}}],
                "usage": {"prompt_tokens": prompt, "completion_tokens": 6, "total_tokens": prompt + 6},
            }  # fmt: skip
            data = json.dumps(payload).encode()
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

    return Handler


@contextmanager
def fake_openai_server(delay_s: float = 0.0) -> Iterator[tuple[str, _State]]:
    """Serve the fake on 127.0.0.1 (free port); yields (base URL, state with ``requests``)."""
    state = _State(delay_s)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", state
    finally:
        server.shutdown()
        server.server_close()
