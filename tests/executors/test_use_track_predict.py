"""``wearbench track predict --executor``: the same predictions, byte for byte, on every executor."""

from pathlib import Path

from tests.executors._track_outputs import track_outputs

from wearbench.sources import synthesize_minutes


def test_same_predictions_serial_and_processes(tmp_path: Path) -> None:
    cohort = synthesize_minutes(12, 8, 0, tmp_path / "cohort")
    args = ("--data", str(cohort), "--methods", "linear")
    serial = track_outputs("predict", tmp_path / "serial", "serial", *args)
    assert serial[0]["predictions.jsonl"]
    assert track_outputs("predict", tmp_path / "processes", "processes:2", *args) == serial
