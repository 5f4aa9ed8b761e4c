"""wearbench import through the real entry point."""

import json
import subprocess
import sys
from pathlib import Path

from wearbench.cohort import validate_cohort


def run(*args: str | Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "wearbench", *map(str, args)], capture_output=True, text=True, timeout=300
    )


def test_import_writes_cohort_and_report(shared_data: Path, tmp_path: Path) -> None:
    res = run("import", "whoop", shared_data / "whoop" / "physiological_cycles.csv", "--out", tmp_path / "c")
    assert res.returncode == 0, res.stderr
    assert res.stdout.startswith("whoop: 1 user(s), 49 user-day(s)")
    assert "not in this source:" in res.stdout
    assert validate_cohort(tmp_path / "c").ok
    report = json.loads((tmp_path / "c" / "import_report.json").read_text())
    assert (report["users"], report["days"]) == (1, 49)
    assert report["coverage"]["hrv"] > 0.9
    assert report["coverage"]["steps"] == 0.0


def test_import_errors_are_one_line(tmp_path: Path) -> None:
    truncated = tmp_path / "export.xml"
    truncated.write_text('<?xml version="1.0"?>\n<HealthData locale="en_US">\n<Record type="HKQuantity')
    for args, message in [
        (("import", "whoops", tmp_path, "--out", tmp_path / "c"), "did you mean 'whoop'"),
        (("import", "apple-health", truncated, "--out", tmp_path / "c"), "export.xml"),
        (("import", "pmdata", tmp_path / "none", "--out", tmp_path / "c"), "no such file"),
    ]:
        res = run(*args)
        assert res.returncode != 0
        assert message in res.stderr
        assert "Traceback" not in res.stderr
        assert len(res.stderr.strip().splitlines()) == 1, res.stderr
    assert not (tmp_path / "c").exists()  # nothing partial written
