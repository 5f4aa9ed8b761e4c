"""The command-line contract other tools rely on, exercised through the real entry point."""

import json
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import wearbench

SMALL = ["--users", "6", "--days", "70", "--reference-users", "60", "--quiet"]


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wearbench", *map(str, args)], capture_output=True, text=True, timeout=300
    )


def manifest_hash(path: Path) -> str:
    return str(json.loads((path / "cohort.json").read_text())["content_hash"])


def test_version() -> None:
    res = run("--version")
    assert res.returncode == 0
    assert wearbench.__version__ in res.stdout


def test_synth_same_seed_same_hash_other_seed_other_hash(tmp_path: Path) -> None:
    a, b, c = tmp_path / "a", tmp_path / "b", tmp_path / "c"
    for out, seed in ((a, "7"), (b, "7"), (c, "8")):
        res = run("synth", *SMALL, "--seed", seed, "--out", out)
        assert res.returncode == 0, res.stderr
        assert manifest_hash(out) in res.stdout
    assert manifest_hash(a) == manifest_hash(b)
    assert manifest_hash(a) != manifest_hash(c)
    for name in ("daily.parquet", "demographics.parquet", "blood.parquet", "reference.parquet"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name


def test_validate_ok_then_one_line_per_problem(tmp_path: Path) -> None:
    out = tmp_path / "cohort"
    assert run("synth", *SMALL, "--seed", "1", "--out", out).returncode == 0
    ok = run("validate", out)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    table = pq.read_table(out / "daily.parquet")
    hr = table.column("resting_hr").to_pylist()
    hr[3] = 400.0
    user = table.column("user_id")[3].as_py()
    date = str(table.column("date")[3].as_py())
    idx = table.schema.get_field_index("resting_hr")
    pq.write_table(table.set_column(idx, "resting_hr", [hr]), out / "daily.parquet")
    bad = run("validate", out)
    assert bad.returncode == 1
    lines = bad.stdout.strip().splitlines()
    hr_lines = [ln for ln in lines if "resting_hr" in ln and "400" in ln]
    assert len(hr_lines) == 1
    assert user in hr_lines[0]
    assert date in hr_lines[0]
    assert "Traceback" not in bad.stderr


def test_describe_json_is_parseable(tmp_path: Path) -> None:
    out = tmp_path / "cohort"
    assert run("synth", *SMALL, "--seed", "2", "--out", out).returncode == 0
    res = run("describe", out, "--format", "json")
    assert res.returncode == 0, res.stderr
    desc = json.loads(res.stdout)
    assert desc["counts"]["users"] == 6
    text = run("describe", out)
    assert text.returncode == 0
    assert "resting_hr" in text.stdout


@pytest.mark.parametrize("command", ["validate", "describe"])
def test_user_errors_print_one_line_without_traceback(tmp_path: Path, command: str) -> None:
    res = run(command, tmp_path / "nope")
    assert res.returncode != 0
    assert "Traceback" not in res.stderr
    assert "nope" in (res.stdout + res.stderr)


def test_bad_option_is_a_usage_error() -> None:
    res = run("synth", "--users", "0", "--out", "x")
    assert res.returncode == 2
    assert "Traceback" not in res.stderr
