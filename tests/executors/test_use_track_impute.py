"""``wearbench track impute --executor``: the same results, byte for byte, on every executor."""

from pathlib import Path

from tests.executors._track_outputs import track_outputs

from wearbench.sources import synthesize_minutes


def test_same_results_serial_and_processes(tmp_path: Path) -> None:
    cohort = synthesize_minutes(6, 8, 3, tmp_path / "cohort")
    args = ("--data", str(cohort), "--methods", "locf,mean", "--test-share", "0.5", "--seed", "5",
            "--max-days", "4")  # fmt: skip
    serial = track_outputs("impute", tmp_path / "serial", "serial", *args)
    assert serial[0]["results.jsonl"]
    assert track_outputs("impute", tmp_path / "processes", "processes:2", *args) == serial
