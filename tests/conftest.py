"""Suite-wide settings: property tests are derandomised so every run checks the same cases."""

from collections.abc import Iterator

import pytest
from hypothesis import settings

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
