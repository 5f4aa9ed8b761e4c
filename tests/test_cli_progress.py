"""Progress on stderr: stage names, and plain timestamped lines when stderr is not a terminal."""

from __future__ import annotations

import io
import re
from pathlib import Path

from click.testing import CliRunner

from wearbench._cli_util import LineProgress, _progress_bar
from wearbench.cli import cli

STAMP = r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d"


def _lines(stream: io.StringIO) -> list[str]:
    return [re.sub(STAMP, "T", line) for line in stream.getvalue().splitlines()]


def test_lines_at_start_each_tenth_and_end() -> None:
    out = io.StringIO()
    clock = iter(range(100)).__next__  # one second per call: never a 30 s heartbeat
    p = LineProgress("generating users", out, clock=lambda: float(clock()))
    p.start()
    for done in range(1, 21):
        p(done, 20)
    # the first count, then one line per further tenth (2, 4, … 20 of 20)
    assert _lines(out) == ["T generating users: started", "T generating users: 1/20 (5%)"] + [
        f"T generating users: {d}/20 ({d / 20:.0%})" for d in range(2, 21, 2)
    ]


def test_heartbeat_after_30_seconds_without_a_tenth() -> None:
    out = io.StringIO()
    times = iter([0.0, 0.0, 10.0, 29.0, 31.0, 40.0])  # construction, then the five calls
    p = LineProgress("eval", out, clock=lambda: next(times))
    for done in (1, 2, 3, 4, 5):
        p(done, 1000)
    # first call prints; 2 and 3 are within 30 s and the same tenth; 4 is 31 s after; 5 is 9 s after 4
    assert _lines(out) == ["T eval: 1/1000 (0%)", "T eval: 4/1000 (0%)"]


def test_stages_are_named_and_the_end_says_done() -> None:
    out = io.StringIO()
    stages = ("synthesising", "building", "reporting")
    p = LineProgress("demo", out, stages=stages, clock=lambda: 0.0)
    p.start()
    for done in (1, 2, 3):
        p(done, 3)
    assert _lines(out) == [
        "T demo: synthesising: step 1/3",
        "T demo: building: step 2/3",
        "T demo: reporting: step 3/3",
        "T demo: done",
    ]


def test_then_names_the_work_after_the_counted_steps_and_finish_times_it() -> None:
    out = io.StringIO()
    times = iter([100.0, 101.0, 102.0, 107.4])  # construction, the two calls, finish
    p = LineProgress("generating users", out, then="writing", clock=lambda: next(times))
    p(1, 2)
    p(2, 2)
    p.finish()
    assert _lines(out) == [
        "T generating users: 1/2 (50%)",
        "T generating users: 2/2 (100%)",
        "T writing…",
        "T finished in 7 s",
    ]


def test_quiet_yields_no_callback() -> None:
    with _progress_bar("x", False) as progress:
        assert progress is None


def test_piped_synth_prints_timestamped_lines_and_quiet_prints_none(tmp_path: Path) -> None:
    runner = CliRunner()  # stderr is a StringIO here, not a terminal, as in CI
    args = ["synth", "--users", "3", "--days", "30", "--reference-users", "0"]
    res = runner.invoke(cli, [*args, "--out", str(tmp_path / "a")])
    assert res.exit_code == 0, res.output
    lines = res.stderr.splitlines()
    assert re.fullmatch(STAMP + " synthesising users: started", lines[0])
    assert re.fullmatch(STAMP + r" synthesising users: 3/3 \(100%\)", lines[-3])
    assert re.fullmatch(STAMP + " writing the cohort…", lines[-2])
    assert re.fullmatch(STAMP + r" finished in \d+ s", lines[-1])
    quiet = runner.invoke(cli, [*args, "--out", str(tmp_path / "b"), "-q"])
    assert quiet.exit_code == 0
    assert quiet.stderr == ""
