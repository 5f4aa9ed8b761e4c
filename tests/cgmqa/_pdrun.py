"""A small simulated folder for the rerun and PD tests: 2 patients x 3 days of the healthloopqa
profile (hcl-mpc, no faults, seed 42), written by ``wearbench cgm simulate`` as a user would."""

from __future__ import annotations

from pathlib import Path

from click.testing import CliRunner

from wearbench.cli import cli

PATIENTS = ("adult#003", "child#001")
DAYS = 3


def simulate_folder(out: Path, *, faults: str = "none", seed: int = 42) -> Path:
    """Write the folder with the CLI and return it."""
    args = ["cgm", "simulate", "--profile", "healthloopqa", "--patients", ",".join(PATIENTS),
            "--days", str(DAYS), "--controller", "hcl-mpc", "--faults", faults, "--seed", str(seed),
            "--out", str(out)]  # fmt: skip
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 0, result.output
    return out
