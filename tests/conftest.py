"""Suite-wide settings: property tests are derandomised so every run checks the same cases."""

import importlib.util
import sys
from collections.abc import Iterator
from pathlib import Path

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
    name = "wearbench_tests_llama_server"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name("llama_server.py"))
        if spec is None or spec.loader is None:
            raise RuntimeError("cannot load tests/llama_server.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    helpers = sys.modules[name]
    with helpers.llama_server(helpers.gemma_model_path()) as base_url:
        yield base_url
