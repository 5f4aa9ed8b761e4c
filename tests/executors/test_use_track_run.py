"""``wearbench track run --executor``: every cell's results the same, byte for byte, on every executor."""

from pathlib import Path

from click.testing import CliRunner

from wearbench.cli import cli
from wearbench.sources import synthesize_minutes

GRID = """
root: out
data: cohort
seeds: [0]
tracks:
  forecast:
    methods: [linear]
    options: {test_share: 0.5}
  predict:
    methods: [linear]
    options: {test_share: 0.5}
"""


def cell_files(root: Path) -> dict[str, bytes]:
    """The cells' result files and markers (not their manifests, which hold timings)."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*.json*"))
        if p.parent != root and p.name != "manifest.json"
    }


def test_grid_cells_same_bytes_serial_and_processes(tmp_path: Path) -> None:
    cohort = synthesize_minutes(6, 21, 1, tmp_path / "cohort")
    outputs = []
    for executor in ("serial", "processes:2"):
        here = tmp_path / executor.replace(":", "-")
        here.mkdir()
        (here / "cohort").symlink_to(cohort)
        (here / "grid.yaml").write_text(GRID)
        argv = ["track", "run", "--config", str(here / "grid.yaml"), "--no-report", "--executor", executor]
        result = CliRunner().invoke(cli, argv)
        assert result.exit_code == 0, result.output
        outputs.append(cell_files(here / "out"))
    assert outputs[0] == outputs[1]
    assert any(name.endswith("predictions.jsonl") for name in outputs[0])
    assert any(name.endswith("results.jsonl") for name in outputs[0])
