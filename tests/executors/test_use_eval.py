"""``wearbench eval --executor``: a baseline's answers, rows and scores the same on every executor."""

from dataclasses import replace
from pathlib import Path

import pytest
from click.testing import CliRunner

from wearbench._errors import WearbenchError
from wearbench.cli import cli
from wearbench.executors import Executor, LocalExecutor
from wearbench.runner import ResultRow, RunStore, evaluate
from wearbench.scoring import score_run


def _rows(out: Path, model: str, executor: Executor | None) -> tuple[list[ResultRow], str]:
    """The run's stored rows with their timing zeroed, and its score line."""
    summary = evaluate(out.parent / "bench", model, out, executor=executor)
    with RunStore(out) as store:
        rows = store.rows(summary.info.run_id)
    score = score_run(rows, summary.items, n_boot=50).summary_line()
    return [replace(r, latency_s=0.0) for r in rows], score


@pytest.fixture
def bench(exec_bench: Path, tmp_path: Path) -> Path:
    (tmp_path / "bench").symlink_to(exec_bench)
    return tmp_path / "bench"


@pytest.mark.parametrize("model", ["baseline:oracle", "baseline:text-only"])
def test_same_rows_and_scores_on_every_executor(bench: Path, model: str) -> None:
    root = bench.parent
    serial = _rows(root / "serial", model, LocalExecutor(1))
    assert len(serial[0]) > 50
    with LocalExecutor(2) as pool:
        assert _rows(root / "processes", model, pool) == serial
    assert _rows(root / "async", model, None) == serial  # the executor-less path too
    if model == "baseline:oracle":
        assert all(r.correct for r in serial[0])


def test_resumes_on_an_executor(bench: Path) -> None:
    out = bench.parent / "run"
    first = evaluate(bench, "baseline:oracle", out, limit=20, executor=LocalExecutor(2))
    assert first.answered == 20
    full = evaluate(bench, "baseline:oracle", out, executor=LocalExecutor(2))
    again = evaluate(bench, "baseline:oracle", out, executor=LocalExecutor(2))
    assert full.answered == len(full.items)
    assert again.answered == 0


def test_a_table_baseline_says_it_leaves_the_executor_unused(
    bench: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level("WARNING", logger="wearbench.runner"):
        evaluate(bench, "baseline:random", bench.parent / "serial", limit=5, executor=LocalExecutor(1))
        assert caplog.messages == []
        evaluate(bench, "baseline:random", bench.parent / "pool", limit=5, executor=LocalExecutor(2))
    assert caplog.messages == [
        "baseline:random computes its answers in this process; "
        "executor LocalExecutor(processes:2) is not used"
    ]


def test_chat_model_refuses_a_parallel_executor(bench: Path) -> None:
    out = bench.parent / "chat"
    with pytest.raises(WearbenchError, match="WearableQA baselines only"):
        evaluate(bench, "openai:gpt-4o-mini", out, executor=LocalExecutor(2))
    assert not out.exists()


def test_cli_output_same_on_every_executor(bench: Path) -> None:
    outputs = []
    for spec in ("serial", "processes:2"):
        args = ["eval", "--bench", str(bench), "--model", "baseline:oracle", "-q",
                "--out", str(bench.parent / spec.replace(":", "")), "--executor", spec]  # fmt: skip
        result = CliRunner().invoke(cli, args)
        assert result.exit_code == 0, result.output
        outputs.append(result.output)
    assert outputs[0] == outputs[1]
    assert "accuracy 1.000" in outputs[0]
