"""llama.cpp's OpenAI-compatible server as a context manager (for tests, benchmarks and users).

Needs the ``[local]`` extra (``llama-cpp-python[server]``). Point ``openai:MODEL@URL`` at the
yielded URL to evaluate a local GGUF model over HTTP, exactly as a remote endpoint. The server
runs as ``python -m wearbench.models._llama_server_main``, which registers wearbench's chat
formats (``wearbench-gemma``) before handing over to ``llama_cpp.server``.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from wearbench.models._gemma_format import GEMMA_CHAT_FORMAT
from wearbench.models._types import ModelError

STARTUP_TIMEOUT_S = 60.0


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no stderr)"


def _server_env() -> dict[str, str]:
    # The server process must import this same wearbench (a test's or a checkout's source tree),
    # not another one installed in the environment.
    src = str(Path(__file__).resolve().parents[2])
    path = os.environ.get("PYTHONPATH")
    return {**os.environ, "PYTHONPATH": os.pathsep.join([src, path]) if path else src}


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=1.0) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


@contextlib.contextmanager
def llama_server(
    model_path: Path | str,
    *,
    port: int | None = None,
    chat_format: str = GEMMA_CHAT_FORMAT,
    n_ctx: int = 4096,
    n_threads: int = 2,
) -> Iterator[str]:
    """Run llama.cpp's OpenAI-compatible server (``llama_cpp.server``) on 127.0.0.1.

    The server is started with ``--logits_all False``: its default (True) computes and keeps the
    logits of every prompt token (Gemma 3's 262,144-entry vocabulary: 1 MiB per token), which
    the chat API never returns. For a 2,976-token prompt that took 63 s and 4.4 GiB of server
    memory against 34 s and 0.5 GiB without, on 2 busy cores (``benchmarks/llama_server_cost.py``,
    ``docs/cgm-eval.md``).

    Args:
        model_path: GGUF file.
        port: Port (default: a free one).
        chat_format: llama-cpp-python chat format; the default ``wearbench-gemma`` suits the
            bundled Gemma model (llama-cpp-python's ``gemma`` drops system messages).
        n_ctx: Context window, tokens.
        n_threads: CPU threads.

    Yields:
        The OpenAI base URL, ``http://127.0.0.1:PORT/v1``, once ``GET /v1/models`` answers.

    Raises:
        ModelError: If the server exits or does not answer within 60 s (with its stderr tail).
    """
    port = port or _free_port()
    base_url = f"http://127.0.0.1:{port}/v1"
    command = [
        sys.executable, "-m", "wearbench.models._llama_server_main",
        "--model", str(model_path),
        "--chat_format", chat_format,
        "--n_ctx", str(n_ctx),
        "--n_threads", str(n_threads),
        "--logits_all", "False",
        "--host", "127.0.0.1",
        "--port", str(port),
    ]  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="llama-server-") as tmp:
        log = Path(tmp) / "stderr.log"
        with log.open("wb") as stderr:
            proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=stderr, env=_server_env())
        try:
            deadline = time.monotonic() + STARTUP_TIMEOUT_S
            while not _answers(f"{base_url}/models"):
                if proc.poll() is not None:
                    raise ModelError(
                        f"llama_cpp.server exited with code {proc.returncode} before answering:\n{_tail(log)}"
                    )
                if time.monotonic() > deadline:
                    raise ModelError(
                        f"llama_cpp.server did not answer {base_url}/models within {STARTUP_TIMEOUT_S:g} s:\n"
                        f"{_tail(log)}"
                    )
                time.sleep(0.2)
            yield base_url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)
