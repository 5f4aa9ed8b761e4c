"""Fixtures for adapter tests: a scripted fake HTTP server and the gemma GGUF file."""

from __future__ import annotations

import importlib.util
import json
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest


@dataclass(frozen=True)
class Reply:
    """One scripted HTTP answer; ``body`` is JSON-encoded unless it is bytes."""

    status: int = 200
    body: Any = b""
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]
    body: Any
    at: float  # time.monotonic() on arrival, seconds


class FakeServer:
    """A local threaded HTTP server that answers requests from a script, in order.

    After the script is used up, its last reply repeats. Every request is recorded.
    """

    def __init__(self, script: Sequence[Reply]) -> None:
        self.script = list(script)
        self.requests: list[Seen] = []
        self._lock = threading.Lock()
        self._closing = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, format: str, *args: Any) -> None:
                pass

            def _answer(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length) if length else b""
                try:
                    body = json.loads(raw) if raw else None
                except ValueError:
                    body = raw
                reply = server._next(
                    Seen(self.command, self.path, dict(self.headers), body, time.monotonic())
                )
                if reply.delay_s and server._closing.wait(reply.delay_s):
                    return
                payload = reply.body if isinstance(reply.body, bytes) else json.dumps(reply.body).encode()
                try:
                    self.send_response(reply.status)
                    ctype = "application/json" if not isinstance(reply.body, bytes) else "text/html"
                    self.send_header("Content-Type", reply.headers.get("Content-Type", ctype))
                    for key, value in reply.headers.items():
                        if key != "Content-Type":
                            self.send_header(key, value)
                    self.send_header("Content-Length", str(len(payload)))
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a scripted timeout)

            do_GET = do_POST = _answer

        class Server(ThreadingHTTPServer):
            daemon_threads = True
            request_queue_size = 128  # listen backlog: many concurrent clients connect at once

        self._httpd = Server(("127.0.0.1", 0), Handler)
        self.port = self._httpd.server_address[1]
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,), daemon=True)
        self._thread.start()

    @property
    def root(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def _next(self, seen: Seen) -> Reply:
        with self._lock:
            index = len(self.requests)
            self.requests.append(seen)
            return self.script[min(index, len(self.script) - 1)]

    def close(self) -> None:
        self._closing.set()
        self._httpd.shutdown()
        self._httpd.server_close()


@pytest.fixture
def fake_http() -> Iterator[Callable[[Sequence[Reply]], FakeServer]]:
    """Start scripted fake servers; all are shut down after the test."""
    servers: list[FakeServer] = []

    def start(script: Sequence[Reply]) -> FakeServer:
        servers.append(FakeServer(script))
        return servers[-1]

    yield start
    for s in servers:
        s.close()


@pytest.fixture
def reply() -> type[Reply]:
    """The :class:`Reply` class (test modules cannot import this conftest)."""
    return Reply


def _llama_server_module() -> ModuleType:
    name = "wearbench_tests_llama_server"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).parents[1] / "llama_server.py")
        if spec is None or spec.loader is None:
            raise RuntimeError("cannot load tests/llama_server.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


@pytest.fixture(scope="session")
def gemma_path() -> Path:
    """The gemma3-270m GGUF file (assembled once); skips only if llama_cpp is not installed."""
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed (make test installs it)")
    path: Path = _llama_server_module().gemma_model_path()
    return path
