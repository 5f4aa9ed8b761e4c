"""One small full benchmark (every registered type) shared by the validity tests, built once."""

from pathlib import Path

import pytest
from tests.validity.score import Tally, solve_bench

import wearbench
from wearbench.bench import build_benchmark

#: Small enough for ~1 min on 2 cores, large enough that every type yields items.
USERS, DAYS, SYNTH_SEED, BUILD_SEED = 60, 400, 0, 0


@pytest.fixture(scope="session")
def validity_bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cohort = wearbench.synth(USERS, DAYS, seed=SYNTH_SEED, out=tmp_path_factory.mktemp("cohort"))
    out = tmp_path_factory.mktemp("bench")
    build_benchmark(cohort, out, seed=BUILD_SEED)
    return out


@pytest.fixture(scope="session")
def solver_tally(validity_bench: Path) -> Tally:
    return solve_bench(validity_bench)
