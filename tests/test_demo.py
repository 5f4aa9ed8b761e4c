"""`wearbench demo` end to end on a small cohort: files written, deterministic, audit sane."""

from pathlib import Path

from scipy.stats import binomtest

from wearbench.report import run_demo


def test_demo_writes_report_and_is_byte_deterministic(tmp_path: Path) -> None:
    first = run_demo(tmp_path / "a", n_users=12, n_days=150, seed=3, reference_users=200, local_model=False)
    second = run_demo(tmp_path / "b", n_users=12, n_days=150, seed=3, reference_users=200, local_model=False)
    names = sorted(p.name for p in (tmp_path / "a").iterdir() if p.is_file())
    assert {
        "report.html",
        "report.md",
        "describe.json",
        "describe.txt",
        "planted_audit.json",
        "bench_summary.json",
        "eval-report.html",
    } <= set(names)
    assert len(first.figures) == 6
    for name in names:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    assert first.content_hash == second.content_hash
    html = first.report_html.read_text()
    assert html.count("data:image/png;base64,") == 6
    assert "Planted couplings" in html
    assert len(first.audit.couplings) > 0
    assert any("validation: ok" in line for line in first.summary_lines())


def test_demo_builds_and_verifies_a_benchmark(tmp_path: Path) -> None:
    result = run_demo(tmp_path, n_users=12, n_days=150, seed=4, reference_users=200, local_model=False)
    bench = result.bench
    assert result.bench_dir == tmp_path / "bench"
    assert (tmp_path / "bench" / "items.jsonl").is_file()
    assert bench["n_items"] == sum(bench["by_type"].values()) > 0
    assert bench["verify"]["failed"] == 0
    assert bench["verify"]["agreement"] == 1.0
    assert bench["oracle"]["accuracy"] == 1.0
    assert 0.0 <= bench["random"]["lo"] <= bench["random"]["hi"] <= 1.0
    assert "folds" in bench["shortcut_audit"]
    html = result.report_html.read_text()
    assert "Benchmark checks and reference solvers" in html
    assert "shortcut audit" in html
    assert any(line.startswith("verified ") for line in result.summary_lines())


def test_demo_evaluates_the_baselines(tmp_path: Path) -> None:
    result = run_demo(tmp_path, n_users=12, n_days=150, seed=5, reference_users=200, local_model=False)
    evals = result.evals
    n = result.bench["n_items"]
    assert evals["baseline:oracle"]["accuracy"] == 1.0
    assert evals["baseline:oracle"]["n"] == n
    # a 135-item demo: random and text-only must be consistent with chance (binomial p > 0.001;
    # the 95% CI of one seeded draw excludes 0.10 one time in twenty by design)
    for spec in ("baseline:random", "baseline:text-only"):
        r = evals[spec]
        assert binomtest(round(r["accuracy"] * r["n"]), r["n"], 0.1).pvalue > 0.001, spec
    assert not any(r["parse_failures"] for k, r in evals.items() if k != "report")
    html = (tmp_path / "eval-report.html").read_text()
    assert "baseline:text-only" in html
    assert any(line.startswith("eval baseline:oracle: 1.000") for line in result.summary_lines())
