"""synth-minutes: same seed → identical bytes; users independent of the cohort size; the CLI."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from click.testing import CliRunner

from wearbench.cli import cli
from wearbench.minutes import iter_minute_users, read_minute_manifest
from wearbench.sources import synthesize_minutes


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def test_same_seed_identical_bytes_other_seed_other_hash(tmp_path: Path) -> None:
    synthesize_minutes(3, 5, 7, tmp_path / "a")
    synthesize_minutes(3, 5, 7, tmp_path / "b")
    synthesize_minutes(3, 5, 8, tmp_path / "c")
    a = _files(tmp_path / "a")
    assert set(a) == {"manifest.json", "users/u0001.parquet", "users/u0002.parquet", "users/u0003.parquet"}
    assert a == _files(tmp_path / "b")
    hashes = {read_minute_manifest(tmp_path / x)["content_hash"] for x in "abc"}
    assert len(hashes) == 2


def test_source_names_the_daily_cohort(tmp_path: Path) -> None:
    synthesize_minutes(2, 3, 1, tmp_path / "m", start="2025-02-27")
    source = read_minute_manifest(tmp_path / "m")["source"]
    assert source["name"] == "synthetic-minutes"
    assert (source["seed"], source["n_users"], source["n_days"], source["start"]) == (1, 2, 3, "2025-02-27")
    assert len(source["daily_content_hash"]) == 64
    user = next(iter_minute_users(tmp_path / "m"))
    assert [str(d) for d in user.dates] == ["2025-02-27", "2025-02-28", "2025-03-01"]


def test_a_users_minutes_do_not_depend_on_the_number_of_users(tmp_path: Path) -> None:
    synthesize_minutes(2, 4, 3, tmp_path / "small")
    synthesize_minutes(4, 4, 3, tmp_path / "big")
    small, big = list(iter_minute_users(tmp_path / "small")), list(iter_minute_users(tmp_path / "big"))
    for a, b in zip(small, big[:2], strict=True):
        assert a.values.tobytes() == b.values.tobytes()
        assert np.array_equal(a.non_wear, b.non_wear)


def test_cli_writes_the_folder_and_is_deterministic(tmp_path: Path) -> None:
    runner = CliRunner()
    for name in ("x", "y"):
        args = [
            "track",
            "synth-minutes",
            "--users",
            "2",
            "--days",
            "3",
            "--seed",
            "5",
            "--out",
            str(tmp_path / name),
        ]
        result = runner.invoke(cli, args)
        assert result.exit_code == 0, result.output
        assert "2 users x 3 days" in result.output
    assert _files(tmp_path / "x") == _files(tmp_path / "y")


def test_cli_refuses_a_foreign_folder(tmp_path: Path) -> None:
    (tmp_path / "busy").mkdir()
    (tmp_path / "busy" / "notes.txt").write_text("mine")
    result = CliRunner().invoke(cli, ["track", "synth-minutes", "--out", str(tmp_path / "busy"), "-q"])
    assert result.exit_code != 0
    assert "not empty" in str(result.exception)  # `main` prints it as one line without a traceback
    assert (tmp_path / "busy" / "notes.txt").read_text() == "mine"
