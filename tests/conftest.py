"""Suite-wide settings: property tests are derandomised so every run checks the same cases.

Native thread pools get one thread per test process (set before numpy, torch or numba load):
pytest-xdist already runs one process per core, and torch, OpenMP, BLAS and numba each sizing
their pool to the machine oversubscribed the cores several times over.
"""

import os
from collections.abc import Iterator

import pytest
from hypothesis import settings

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"):
    os.environ.setdefault(_var, "1")  # none of pytest, hypothesis, os has loaded numpy yet

settings.register_profile("wearbench", derandomize=True, deadline=None, database=None)
settings.load_profile("wearbench")


@pytest.fixture(scope="session")
def llama_base_url() -> Iterator[str]:
    """OpenAI base URL of a llama.cpp server on gemma3-270m (started once per session/worker).

    Skips only when llama-cpp-python is not installed (``make test`` installs it).
    """
    pytest.importorskip("llama_cpp", reason="llama-cpp-python is not installed (make test installs it)")
    from tests.llama_server import gemma_model_path, llama_server

    with llama_server(gemma_model_path()) as base_url:
        yield base_url
