"""The demo/cohort report: figures headed in words, and the published-figure caveat."""

from __future__ import annotations

from pathlib import Path

import pytest

import wearbench
from wearbench.audit import audit_planted
from wearbench.cohort import PUBLISHED_CAVEAT, describe_cohort, load_cohort
from wearbench.report._html import FIGURE_TITLES, figure_title, write_html_report, write_markdown_report

PNG = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16  # content is not decoded by the writers


@pytest.fixture(scope="module")
def context(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    out = tmp_path_factory.mktemp("cohort")
    wearbench.synth(4, 90, seed=2, reference_users=0, out=out)
    cohort = load_cohort(out)
    return {
        "desc": describe_cohort(cohort),
        "audit": audit_planted(cohort),
        "content_hash": "0" * 64,
        "seed": 2,
    }


def _figures(folder: Path) -> list[Path]:
    paths = [folder / f"{stem}.png" for stem in ("distributions", "lag_recovery", "extra_plot")]
    for p in paths:
        p.write_bytes(PNG)
    return paths


def test_figure_titles_are_words() -> None:
    assert figure_title(Path("x/distributions.png")) == FIGURE_TITLES["distributions"]
    assert figure_title(Path("extra_plot.png")) == "Extra plot"
    for stem, title in FIGURE_TITLES.items():
        assert " " in title
        assert stem not in title.split()


def test_html_headings_and_caveat(context: dict[str, object], tmp_path: Path) -> None:
    html = write_html_report(tmp_path / "r.html", context, _figures(tmp_path)).read_text(encoding="utf-8")
    assert f"<h3>{FIGURE_TITLES['distributions']}</h3>" in html
    assert "<h3>Planted coupling lags against the lags re-discovered from the data</h3>" in html
    assert "<h3>distributions</h3>" not in html
    assert "<h3>lag_recovery</h3>" not in html
    assert "<th>statistic</th>" in html
    assert "<td>mean of per-user means</td>" in html
    assert "Caveat: A sanity check on scale and direction" in html
    assert "<th>user-day mean</th>" in html


def test_markdown_headings_and_caveat(context: dict[str, object], tmp_path: Path) -> None:
    md = write_markdown_report(tmp_path / "r.md", context, _figures(tmp_path)).read_text(encoding="utf-8")
    assert f"### {FIGURE_TITLES['distributions']}" in md
    assert f"![{FIGURE_TITLES['distributions']}](distributions.png)" in md
    assert "### distributions" not in md
    assert "Caveat: " + PUBLISHED_CAVEAT in md
