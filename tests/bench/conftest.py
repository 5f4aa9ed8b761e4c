"""A small trend-only benchmark shared by the bench tests (built once per session)."""

from pathlib import Path

import pytest

import wearbench
from wearbench.bench import build_benchmark


@pytest.fixture(scope="session")
def trend_cohort(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("cohort")
    wearbench.synth(14, 200, seed=11, reference_users=300, out=out)
    return out


@pytest.fixture(scope="session")
def trend_bench(trend_cohort: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("bench")
    build_benchmark(trend_cohort, out, types=["trend"], seed=2)
    return out
