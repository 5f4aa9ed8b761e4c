"""Benchmark commands through the real entry point: build, verify, solve, export/import."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import wearbench


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wearbench", *map(str, args)], capture_output=True, text=True, timeout=300
    )


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("cli")
    wearbench.synth(12, 200, seed=4, reference_users=200, out=root / "cohort")
    res = run(
        "build", "--cohort", root / "cohort", "--out", root / "bench", "--types", "trend", "--seed", "1", "-q"
    )
    assert res.returncode == 0, res.stderr
    assert "wrote" in res.stdout
    assert "items" in res.stdout
    assert "reasoning: data" in res.stdout
    return root / "bench"


def test_build_reports_counts_and_caps(bench: Path, tmp_path: Path) -> None:
    n = len((bench / "items.jsonl").read_text().splitlines())
    manifest = json.loads((bench / "manifest.json").read_text())
    assert manifest["counts"]["by_type"] == {"trend": n}
    cohort = tmp_path.parent / "cohort"
    capped = run(
        "build", "--cohort", bench.parent / "cohort", "--out", tmp_path / "b", "--types", "trend",
        "--max-per-type", "3", "--workers", "2", "-q",
    )  # fmt: skip
    assert capped.returncode == 0, capped.stderr
    assert "by type: trend 3" in capped.stdout
    assert not cohort.exists() or cohort.is_dir()


def test_unknown_type_suggests_close_matches(bench: Path, tmp_path: Path) -> None:
    res = run("build", "--cohort", bench.parent / "cohort", "--out", tmp_path / "x", "--types", "trnd")
    assert res.returncode == 1
    assert "Traceback" not in res.stderr
    assert res.stderr.strip().count("\n") == 0
    assert "'trend'" in res.stderr


def test_verify_ok_then_fails_on_a_tampered_answer(bench: Path, tmp_path: Path) -> None:
    ok = run("verify", bench, "-q")
    n = len((bench / "items.jsonl").read_text().splitlines())
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert f"verified {n}/{n} (1.000)" in ok.stdout
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "contexts").mkdir()
    for p in bench.rglob("*"):
        if p.is_file():
            (bad / p.relative_to(bench)).write_bytes(p.read_bytes())
    lines = (bad / "items.jsonl").read_text().splitlines()
    item = json.loads(lines[0])
    item["answer"] = "J" if item["answer"] != "J" else "A"
    lines[0] = json.dumps(item)
    (bad / "items.jsonl").write_text("\n".join(lines) + "\n")
    res = run("verify", bad, "-q")
    assert res.returncode == 1
    assert f"verified {n - 1}/{n}" in res.stdout
    assert [ln for ln in res.stdout.splitlines() if ln.startswith("FAILED")] == [
        ln for ln in res.stdout.splitlines() if item["id"] in ln
    ]


def test_solve_prints_accuracy_with_wilson_ci(bench: Path) -> None:
    oracle = run("solve", bench, "--solver", "oracle")
    assert oracle.returncode == 0, oracle.stderr
    assert "oracle: accuracy 1.000 [95% CI" in oracle.stdout
    rand = run("solve", bench, "--solver", "random", "--seed", "3")
    assert rand.returncode == 0
    assert "random: accuracy" in rand.stdout
    assert run("solve", bench, "--solver", "random", "--seed", "3").stdout == rand.stdout
    assert run("solve", bench, "--solver", "psychic").returncode == 2


def test_export_import_export_round_trip(bench: Path, tmp_path: Path) -> None:
    first = tmp_path / "WearableQA_raw.json"
    assert run("export-official", bench, "--out", first).returncode == 0
    imp = run("import-official", first, "--out", tmp_path / "imported")
    assert imp.returncode == 0, imp.stderr
    assert run("validate", tmp_path / "imported" / "cohort").returncode == 0
    again = tmp_path / "again.json"
    assert run("export-official", tmp_path / "imported" / "bench", "--out", again).returncode == 0
    assert again.read_bytes() == first.read_bytes()
    ver = run("verify", tmp_path / "imported" / "bench", "-q")
    assert ver.returncode == 0
    assert "not re-derivable (imported)" in ver.stdout


@pytest.mark.parametrize("command", ["verify", "solve", "export-official"])
def test_missing_bench_is_one_line(command: str, tmp_path: Path) -> None:
    extra = ["--out", str(tmp_path / "o.json")] if command == "export-official" else []
    res = run(command, tmp_path / "nope", *extra)
    assert res.returncode == 1
    assert "Traceback" not in res.stderr
    assert "nope" in res.stderr
