"""``wearbench track forecast --executor``: the same results, byte for byte, on every executor."""

from pathlib import Path

import pytest
from tests.executors._track_outputs import track_outputs

from wearbench.sources import synthesize_minutes


@pytest.fixture(scope="module")
def cohort(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return synthesize_minutes(6, 21, 1, tmp_path_factory.mktemp("minutes") / "cohort")


def test_same_results_serial_processes_and_dask(cohort: Path, tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    args = ("--data", str(cohort), "--methods", "seasonal_naive,linear", "--test-share", "0.5")
    serial = track_outputs("forecast", tmp_path / "serial", "serial", *args)
    assert serial[0]["results.jsonl"]
    assert track_outputs("forecast", tmp_path / "processes", "processes:2", *args) == serial
    assert track_outputs("forecast", tmp_path / "dask", "dask-local:2", *args) == serial
