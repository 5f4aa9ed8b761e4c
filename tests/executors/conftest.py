"""A small WearableQA benchmark for the eval and verify executor tests (built once per session)."""

from pathlib import Path

import pytest

import wearbench
from wearbench.bench import build_benchmark


@pytest.fixture(scope="session")
def exec_bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """8 users x 150 days, every question type (~70 items of 8 users)."""
    cohort = wearbench.synth(8, 150, seed=3)
    out = tmp_path_factory.mktemp("exec_bench")
    build_benchmark(cohort, out, seed=0)
    return out
