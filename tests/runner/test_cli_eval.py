"""eval / score / report / export through the real entry point."""

import json
import subprocess
import sys
from pathlib import Path

import pyarrow.parquet as pq

from wearbench.bench import read_items


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wearbench", *map(str, args)], capture_output=True, text=True, timeout=300
    )


def test_eval_score_report_round_trip(small_bench: Path, tmp_path: Path) -> None:
    n = len(read_items(small_bench))
    res = run("eval", "--bench", small_bench, "--model", "baseline:oracle", "--out", tmp_path / "r", "-q")
    assert res.returncode == 0, res.stderr
    assert f"{n} item(s) answered now" in res.stdout
    assert "1.000" in res.stdout
    score = run("score", tmp_path / "r", "--format", "json")
    assert score.returncode == 0, score.stderr
    data = json.loads(score.stdout)
    assert {
        "kind",
        "score",
        "accuracy",
        "ci_low",
        "ci_high",
        "n",
        "parse_failures",
        "breakdowns",
    } <= data.keys()
    assert (data["kind"], data["score"], data["accuracy"]) == ("wearableqa", 100.0, 1.0)
    assert (data["n"], data["parse_failures"]) == (n, 0)
    assert data["ci_low"] < 100.0 == data["ci_high"]  # Wilson, in percent like the score
    text = run("score", tmp_path / "r")
    assert "reasoning" in text.stdout
    rep = run("report", tmp_path / "r", "--out", tmp_path / "report.html")
    assert rep.returncode == 0, rep.stderr
    assert "baseline:oracle" in (tmp_path / "report.html").read_text()


def test_eval_rejects_bad_input_in_one_line(small_bench: Path, tmp_path: Path) -> None:
    for args, message in [
        (("--model", "baseline:oracle"), "give exactly one of --bench BENCH or --official FILE"),
        (("--bench", small_bench, "--model", "baseline:orcale"), "did you mean 'oracle'"),
        (("--bench", small_bench, "--model", "baseline:oracle", "--repr", "cvs"), "did you mean 'csv'"),
        (("--bench", tmp_path / "none", "--model", "baseline:oracle"), "none"),
    ]:
        res = run("eval", *args, "--out", tmp_path / "r", "-q")
        assert res.returncode != 0
        assert message in res.stderr
        assert "Traceback" not in res.stderr
        assert len(res.stderr.strip().splitlines()) == 1, res.stderr


def test_official_file_is_evaluated_directly(small_bench: Path, tmp_path: Path) -> None:
    official = tmp_path / "WearableQA_raw.json"
    assert run("export-official", small_bench, "--out", official).returncode == 0
    res = run("eval", "--official", official, "--model", "baseline:random", "--out", tmp_path / "r", "-q")
    assert res.returncode == 0, res.stderr
    data = json.loads(run("score", tmp_path / "r", "--format", "json").stdout)
    assert data["n"] == len(read_items(small_bench))


def test_exports_write_loadable_files(small_bench: Path, tmp_path: Path) -> None:
    assert run("export", "hf", small_bench, "--out", tmp_path / "hf").returncode == 0
    table = pq.read_table(next((tmp_path / "hf" / "data").glob("*.parquet")))
    assert table.num_rows == len(read_items(small_bench))
    assert run("export", "inspect", small_bench, "--out", tmp_path / "insp").returncode == 0
    assert (tmp_path / "insp" / "wearbench_task.py").is_file()
