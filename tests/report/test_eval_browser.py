"""The evaluation report renders in headless Chromium with no console errors."""

import pytest
from tests.report.eval_browser import chromium_path, open_report

pytestmark = [
    pytest.mark.skipif(
        chromium_path() is None, reason="no Chromium at /usr/bin/chromium (apt-get install chromium)"
    ),
]


def test_renders_without_console_errors(eval_report, tmp_path):
    pytest.importorskip("playwright.sync_api", reason="playwright not installed (pip install playwright)")
    check = open_report(eval_report, tmp_path / "shot.png")
    assert check.console_errors == []
    assert check.page_errors == []
    assert check.failed_requests == []  # nothing but the file itself and inline data: images
    assert check.counts["leaderboard"] == 3
    assert check.counts["images"] >= 8
    assert check.loaded_images == check.counts["images"]  # every inline PNG decodes
    assert check.counts["broken_images"] == 0
    assert check.counts["examples"] == 6
    assert check.counts["comparisons"] == 3
    assert check.counts["scripts"] == 0
    assert (tmp_path / "shot.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_the_check_sees_errors_and_requests(tmp_path):
    pytest.importorskip("playwright.sync_api", reason="playwright not installed (pip install playwright)")
    page = tmp_path / "bad.html"
    page.write_text(
        "<!doctype html><title>x</title><script>console.error('boom'); missing_fn();</script>"
        "<img src='https://example.invalid/x.png'>",
        encoding="utf-8",
    )
    check = open_report(page)
    assert "boom" in check.console_errors
    assert any("missing_fn" in e for e in check.page_errors)
    assert check.failed_requests == ["https://example.invalid/x.png"]
    assert check.counts["broken_images"] == 1
