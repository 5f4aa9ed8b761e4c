"""Shared helpers of the ``track --executor`` tests: run a track command, read what must not move."""

import json
from pathlib import Path

from click.testing import CliRunner

from wearbench.cli import cli

#: Manifest keys that are wall-clock timings (they differ between any two runs).
TIMINGS = ("seconds", "seconds_total")


Outputs = tuple[dict[str, bytes], dict[str, object]]


def track_outputs(command: str, out: Path, executor: str, *args: str) -> Outputs:
    """``wearbench track COMMAND ... --out OUT --executor EXECUTOR``: its files but the manifest
    (and the run store), and the manifest without timings."""
    argv = ["track", command, *args, "--out", str(out), "--executor", executor, "-q"]
    result = CliRunner().invoke(cli, argv)
    assert result.exit_code == 0, result.output
    kept = sorted(p for p in out.iterdir() if p.name not in ("manifest.json", "runs.sqlite"))
    files = {p.name: p.read_bytes() for p in kept}
    manifest = json.loads((out / "manifest.json").read_text())
    return files, {k: v for k, v in manifest.items() if k not in TIMINGS}
