"""``wearbench cgm simulate --executor``: the same folder, byte for byte, on every executor."""

from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

from wearbench.cli import cli
from wearbench.executors import LocalExecutor
from wearbench.sim import FaultEvent, FaultPlan, RescueCarbs, run_simulation, simulate
from wearbench.sim.scenario import exercise_sessions


def folder_bytes(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir())}


def simulate_cli(out: Path, executor: str, *args: str) -> dict[str, bytes]:
    argv = ["cgm", "simulate", "--days", "1", "--seed", "5", "--out", str(out), "--executor", executor]
    result = CliRunner().invoke(cli, [*argv, *args])
    assert result.exit_code == 0, result.output
    return folder_bytes(out)


def test_patients_apart_give_the_frame_of_patients_together() -> None:
    names = ["adult#001", "child#002", "adult#001"]  # a repeat too
    faults = FaultPlan((FaultEvent(patient=1, start=300, duration=60, label="positive_bias"),))
    intensity, sessions = exercise_sessions(3, 1, np.random.default_rng(1))
    how = {"faults": faults, "exercise": (intensity, sessions), "rescue": RescueCarbs(), "seed": 2}
    together = simulate(names, 1, **how)  # type: ignore[arg-type]
    apart = simulate(names, 1, **how, executor=LocalExecutor(1))  # type: ignore[arg-type]
    assert apart.equals(together)
    assert simulate(names[:2], 1, controller="pid", executor=LocalExecutor(2)).equals(
        simulate(names[:2], 1, controller="pid")
    )


def test_an_executor_keeps_no_checkpoints() -> None:
    with pytest.raises(Exception, match="checkpoint_every=None"):
        run_simulation(["adult#001"], 1, executor=LocalExecutor(1))


def test_default_layout_same_bytes_serial_and_processes(tmp_path: Path) -> None:
    args = ("--patients", "adult#001..adult#002,child#001", "--faults", "random", "--exercise", "random",
            "--sensor", "GuardianRT")  # fmt: skip
    serial = simulate_cli(tmp_path / "serial", "serial", *args)
    assert simulate_cli(tmp_path / "processes", "processes:2", *args) == serial
    assert "readings.parquet" in serial


@pytest.mark.slow
def test_profile_layout_same_bytes_serial_processes_and_dask(tmp_path: Path) -> None:
    pytest.importorskip("distributed")
    args = ("--profile", "healthloopqa", "--patients", "adult#001,child#003", "--faults", "none")
    serial = simulate_cli(tmp_path / "serial", "serial", *args)
    assert simulate_cli(tmp_path / "processes", "processes:2", *args) == serial
    assert simulate_cli(tmp_path / "dask", "dask-local:2", *args) == serial


def test_a_bad_executor_spec_is_a_usage_error(tmp_path: Path) -> None:
    argv = ["cgm", "simulate", "--out", str(tmp_path / "x"), "--executor", "threads:2"]
    result = CliRunner().invoke(cli, argv)
    assert result.exit_code == 2
    assert "serial, processes:N" in result.output
