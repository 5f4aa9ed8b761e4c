"""`wearbench demo` end to end on a small cohort: files written, deterministic, audit sane."""

from pathlib import Path

from wearbench.report import run_demo


def test_demo_writes_report_and_is_byte_deterministic(tmp_path: Path) -> None:
    first = run_demo(tmp_path / "a", n_users=12, n_days=150, seed=3, reference_users=200)
    second = run_demo(tmp_path / "b", n_users=12, n_days=150, seed=3, reference_users=200)
    names = sorted(p.name for p in (tmp_path / "a").iterdir() if p.is_file())
    assert {"report.html", "report.md", "describe.json", "describe.txt", "planted_audit.json"} <= set(names)
    assert len(first.figures) == 5
    for name in names:
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name
    assert first.content_hash == second.content_hash
    html = first.report_html.read_text()
    assert html.count("data:image/png;base64,") == 5
    assert "Planted couplings" in html
    assert len(first.audit.couplings) > 0
    assert any("validation: ok" in line for line in first.summary_lines())
