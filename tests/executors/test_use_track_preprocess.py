"""``wearbench track preprocess --executor``: the same counts, in the folder's order, on every executor."""

from pathlib import Path

from click.testing import CliRunner

from wearbench.cli import cli
from wearbench.sources import synthesize_minutes


def test_same_counts_serial_and_processes(tmp_path: Path) -> None:
    cohort = synthesize_minutes(4, 3, 0, tmp_path / "cohort")
    outputs = []
    for executor in ("serial", "processes:2"):
        argv = ["track", "preprocess", "--data", str(cohort), "--format", "json", "--executor", executor]
        result = CliRunner().invoke(cli, argv)
        assert result.exit_code == 0, result.output
        outputs.append(result.output)
    assert outputs[0] == outputs[1]
    assert '"user_id"' in outputs[0]
