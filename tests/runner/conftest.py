"""A small benchmark shared by the runner tests (built once per session, ≥ 200 items)."""

from pathlib import Path

import pytest

import wearbench
from wearbench.bench import build_benchmark


@pytest.fixture(scope="session")
def small_bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cohort = wearbench.synth(18, 240, seed=4, reference_users=600)  # >= 30 per age x sex cell
    out = tmp_path_factory.mktemp("bench")
    build_benchmark(cohort, out, seed=0)
    return out
