"""A small benchmark with three fabricated runs, and their report (built once per session)."""

from pathlib import Path

import pytest
from tests.report.eval_fakes import fake_runs

import wearbench
from wearbench.bench import build_benchmark, read_items
from wearbench.questions import Item
from wearbench.report import write_eval_report
from wearbench.runner import ResultRow, RunInfo

TYPES = ["trend", "anomaly", "cohort_position", "sleep_phenotype", "recovery_time", "excursion_count"]


@pytest.fixture(scope="session")
def eval_bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cohort, bench = tmp_path_factory.mktemp("cohort"), tmp_path_factory.mktemp("bench")
    wearbench.synth(8, 150, seed=5, reference_users=600, out=cohort)  # >= 30 per age x sex cell
    build_benchmark(cohort, bench, types=TYPES, seed=1)
    return bench


@pytest.fixture(scope="session")
def eval_items(eval_bench: Path) -> list[Item]:
    return read_items(eval_bench)


@pytest.fixture(scope="session")
def eval_runs(eval_items: list[Item], eval_bench: Path) -> list[tuple[RunInfo, list[ResultRow]]]:
    return fake_runs(eval_items, eval_bench)


@pytest.fixture(scope="session")
def eval_report(eval_runs, eval_bench: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("report") / "report.html"
    return write_eval_report(eval_runs, out, bench_dir=eval_bench, n_examples=6, n_boot=300)
