"""A small mixed benchmark shared by the interop tests (built once per session)."""

from pathlib import Path

import pytest

import wearbench
from wearbench.bench import build_benchmark


@pytest.fixture(scope="session")
def mixed_bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Trend, anomaly, cohort-position and blood-state items: series, reference and blood panels."""
    cohort = tmp_path_factory.mktemp("cohort")
    wearbench.synth(6, 200, seed=3, reference_users=600, out=cohort)  # >= 30 per age band x sex cell
    out = tmp_path_factory.mktemp("bench")
    build_benchmark(cohort, out, types=["trend", "anomaly", "cohort_position", "blood_state"], seed=0)
    return out
