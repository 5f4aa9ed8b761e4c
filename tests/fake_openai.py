"""A FAKE OpenAI-compatible chat server for runner tests (paid APIs cannot run in tests).

It answers ``POST /v1/chat/completions`` deterministically: the reply letter is a function of
the request's messages, so an interrupted and an uninterrupted run must store identical
answers. It counts requests, can delay each one, and reports usage like a real server. When
tools are offered and none has been called yet it calls the ``python`` tool once (agent mode);
asked to pick a representation (multiview) it names ``markdown``. ``faults`` injects HTTP
failures: a request whose message text contains a key of ``faults`` gets the listed statuses in
turn (0 = a garbage 200 body), then normal answers; ``always_fail`` keys get 500 forever;
``reject`` answers every request with that status. A 401 body echoes the request's
``Authorization`` header and ``echo`` (as a provider that quotes the key back would). Every
request's headers and body are kept in ``state.seen`` (secrets tests).
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
    def __init__(
        self,
        delay_s: float,
        faults: dict[str, list[int]],
        always_fail: set[str],
        reject: int | None = None,
        echo: str = "",
    ) -> None:
        self.delay_s = delay_s
        self.requests = 0
        self.reject, self.echo = reject, echo
        self.seen: list[tuple[dict[str, str], str]] = []
        self.faults = {k: list(v) for k, v in faults.items()}
        self.always_fail = always_fail
        self.lock = threading.Lock()

    def fault_for(self, text: str) -> int | None:
        """The injected status for a request with this message text, if any (consumes one fault)."""
        with self.lock:
            if any(k in text for k in self.always_fail):
                return 500
            for key, statuses in self.faults.items():
                if key in text and statuses:
                    return statuses.pop(0)
        return None


def _answer(body: dict[str, Any]) -> dict[str, Any]:
    messages = body["messages"]
    last = str(messages[-1].get("content", ""))
    if body.get("tools") and not any(m.get("role") == "tool" for m in messages):
        code = json.dumps({"code": "print(df.shape)"})
        call = {"id": "call_1", "type": "function", "function": {"name": "python", "arguments": code}}
        return {"role": "assistant", "content": None, "tool_calls": [call]}
    if "Reply with the name of one representation only" in last:
        return {"role": "assistant", "content": "markdown"}
    return {"role": "assistant", "content": fake_reply(messages)}


def _handler(state: _State) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:  # quiet
            return

        def do_POST(self) -> None:
            raw = self.rfile.read(int(self.headers["Content-Length"])).decode()
            body = json.loads(raw)
            with state.lock:
                state.requests += 1
                state.seen.append((dict(self.headers.items()), raw))
            time.sleep(state.delay_s)
            fault = state.reject or state.fault_for(
                " ".join(str(m.get("content", "")) for m in body["messages"])
            )
            if fault == 401:
                auth = self.headers.get("Authorization", "")
                message = f"Incorrect API key provided: {state.echo}. You sent {auth!r}."
                self._send(
                    401, json.dumps({"error": {"message": message, "type": "invalid_request_error"}}).encode()
                )
                return
            if fault is not None:
                self._send(200 if fault == 0 else fault, b"<html>bad gateway</html>")
                return
            message = _answer(body)
            prompt = sum(len(str(m.get("content", ""))) // 4 for m in body["messages"])
            payload = {
                "id": "chatcmpl-fake",
                "object": "chat.completion",
                "created": 0,
                "model": body.get("model", "fake"),
                "choices": [{"index": 0, "finish_reason": "stop", "message": message}],
                "usage": {"prompt_tokens": prompt, "completion_tokens": 6, "total_tokens": prompt + 6},
            }  # fmt: skip
            self._send(200, json.dumps(payload).encode())

        def _send(self, status: int, data: bytes) -> None:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            if status == 429:
                self.send_header("Retry-After", "0")
            self.end_headers()
            self.wfile.write(data)

    return Handler


@contextmanager
def fake_openai_server(
    delay_s: float = 0.0,
    faults: dict[str, list[int]] | None = None,
    always_fail: set[str] | None = None,
    *,
    reject: int | None = None,
    echo: str = "",
) -> Iterator[tuple[str, _State]]:
    """Serve the fake on 127.0.0.1 (free port); yields (base URL, state with ``requests``)."""
    state = _State(delay_s, faults or {}, always_fail or set(), reject, echo)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(state))
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/v1", state
    finally:
        server.shutdown()
        server.server_close()
