"""``wearbench verify --executor``: the same report, in item order, on every executor and chunk size."""

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from wearbench.bench import user_chunks, verify_benchmark
from wearbench.cli import cli
from wearbench.executors import LocalExecutor


def test_user_chunks_group_by_user_in_first_appearance_order() -> None:
    assert user_chunks(["a", "b", "a", "c", "b", "a"], 2) == [[0, 2], [5, 1], [4, 3]]
    assert user_chunks([], 3) == []
    with pytest.raises(ValueError, match="chunk size"):
        user_chunks(["a"], 0)


def _tampered(bench: Path, out: Path) -> Path:
    """A copy of ``bench`` with the answers of its 1st and 6th items changed (two failures)."""
    shutil.copytree(bench, out)
    lines = (out / "items.jsonl").read_text(encoding="utf-8").splitlines()
    for n in (0, 5):
        item = json.loads(lines[n])
        item["answer"] = "J" if item["answer"] != "J" else "A"
        lines[n] = json.dumps(item)
    (out / "items.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def test_same_report_serial_processes_and_chunks(exec_bench: Path, tmp_path: Path) -> None:
    bench = _tampered(exec_bench, tmp_path / "bench")
    serial = verify_benchmark(bench)
    assert serial.n_items > 50
    assert len(serial.failures) == 2
    ids = [json.loads(line)["id"] for line in (bench / "items.jsonl").read_text().splitlines()]
    assert [f[0] for f in serial.failures] == [ids[0], ids[5]]  # item order
    seen: list[tuple[int, int]] = []
    with LocalExecutor(2) as pool:
        parallel = verify_benchmark(bench, executor=pool, chunk=5, progress=lambda d, t: seen.append((d, t)))
    assert parallel == serial
    assert seen[-1] == (serial.n_items, serial.n_items)
    assert verify_benchmark(bench, chunk=1) == serial


def test_cli_output_same_on_every_executor(exec_bench: Path) -> None:
    outputs = []
    for spec in ("serial", "processes:2"):
        result = CliRunner().invoke(cli, ["verify", str(exec_bench), "-q", "--executor", spec])
        assert result.exit_code == 0, result.output
        outputs.append(result.output)
    assert outputs[0] == outputs[1]
    assert outputs[0].startswith("verified ")
