"""A benchmark builds end to end from real sources and verifies 100% (issue acceptance)."""

from pathlib import Path

import pytest

from wearbench.bench import build_benchmark, verify_benchmark
from wearbench.sources import import_source


# The shared PMData has 10 participants: no peer cell reaches 30 other users, the external table has no
# decile cuts (cohort_position), and its records (< 150 days) are shorter than fitness_prediction's
# 180-day trend history, so only its data-reasoning items remain (about 20; 72 before references
# excluded the user themselves).
@pytest.mark.parametrize(
    ("source", "folder", "min_items"), [("pmdata", "pmdata", 15), ("garmin-uom", "t1d_uom", 15)]
)
def test_real_cohort_builds_a_benchmark_that_verifies(
    source: str, folder: str, min_items: int, shared_data: Path, tmp_path: Path
) -> None:
    _, report = import_source(source, shared_data / folder, tmp_path / "cohort")
    assert report.users >= 10
    result = build_benchmark(tmp_path / "cohort", tmp_path / "bench", seed=0)
    assert result.n_items >= min_items
    check = verify_benchmark(tmp_path / "bench")
    assert check.agreement == 1.0
    assert not check.failures
    assert len(result.manifest["counts"]["by_type"]) >= 4


def test_a_one_month_export_builds_without_crashing(shared_data: Path, tmp_path: Path) -> None:
    # Fitabase: 33 users over one month, some with a few days only (no window for the null tests)
    import_source("fitabase", shared_data / "fitbit_fitabase", tmp_path / "cohort")
    result = build_benchmark(tmp_path / "cohort", tmp_path / "bench", seed=0)
    assert verify_benchmark(tmp_path / "bench").agreement == 1.0
    assert result.n_items >= 1
