"""Open a report in headless Chromium (Playwright driving the system /usr/bin/chromium, offline).

``python -m tests.report.eval_browser OUT.png`` (from the repository root) builds a benchmark,
fabricates three runs, writes their evaluation report and screenshots it (the image in
docs/evaluation-report.md).
"""

import shutil
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
        "--disable-sync", "--no-first-run", "--disable-quic"]  # fmt: skip
COUNTED = {
    "leaderboard": "#leaderboard-table tbody tr",
    "images": "img, svg",
    "broken_images": "img:not([src^='data:image/'])",
    "examples": "article.example",
    "scripts": "script",
    "comparisons": "#comparison-table tbody tr",
}


def chromium_path() -> str | None:
    """The system Chromium, if installed."""
    return CHROMIUM if Path(CHROMIUM).is_file() else shutil.which("chromium")


@dataclass
class PageCheck:
    """What the browser saw."""

    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)
    failed_requests: list[str] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=dict)
    loaded_images: int = 0


def open_report(html: Path, png: Path | None = None, width: int = 1280, height: int = 900) -> PageCheck:
    """Load ``html`` from disk, collect console errors, page errors and requests, optionally screenshot."""
    from playwright.sync_api import sync_playwright

    check = PageCheck()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium_path(), args=ARGS)
        page = browser.new_page(viewport={"width": width, "height": height})
        page.on("console", lambda m: check.console_errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: check.page_errors.append(str(e)))
        page.on(
            "request",
            lambda r: None if r.url.startswith(("file:", "data:")) else check.failed_requests.append(r.url),
        )
        page.goto(html.resolve().as_uri(), wait_until="load")
        check.counts = {k: page.locator(sel).count() for k, sel in COUNTED.items()}
        check.loaded_images = page.evaluate(
            "[...document.images].filter(i => i.complete && i.naturalWidth > 0).length"
        )
        if png is not None:
            page.screenshot(path=str(png), full_page=False)
        browser.close()
    return check


def screenshot_report(html: Path, png: Path, width: int = 1280, height: int = 1500) -> Path:
    """Screenshot the top ``width`` × ``height`` pixels of a report."""
    open_report(html, png, width, height)
    return png


def _demo(png: Path) -> None:
    import wearbench
    from wearbench.bench import build_benchmark, read_items
    from wearbench.report import write_eval_report

    sys.path.insert(0, str(Path(__file__).parent))
    from tests.report.eval_fakes import fake_runs

    with tempfile.TemporaryDirectory() as tmp:
        cohort, bench = Path(tmp) / "cohort", Path(tmp) / "bench"
        wearbench.synth(20, 200, seed=3, out=cohort)
        build_benchmark(cohort, bench, seed=0)
        items = read_items(bench)
        html = write_eval_report(fake_runs(items, bench), Path(tmp) / "report.html", bench_dir=bench)
        screenshot_report(html, png)
        print(f"wrote {png}")


if __name__ == "__main__":
    _demo(Path(sys.argv[1]))
