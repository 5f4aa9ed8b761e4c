"""Sharded synthesis equals the single-file synthetic cohort."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
from click.testing import CliRunner

import wearbench
from wearbench.cli import cli
from wearbench.cohort import load_cohort, read_manifest


def test_sharded_synth_equals_single_file(tmp_path: Path) -> None:
    args = {"n_users": 10, "n_days": 60, "seed": 3, "reference_users": 30}
    whole = wearbench.synth(**args)
    handle = wearbench.synth(**args, out=tmp_path / "c", shard_users=3)
    assert handle.shard_users[0] == ("u0001", "u0002", "u0003")
    assert len(handle.shard_users) == 4
    loaded = load_cohort(tmp_path / "c")
    for name in ("daily", "demographics", "blood", "reference"):
        pd.testing.assert_frame_equal(
            getattr(loaded, name), getattr(load_cohort(_single(whole, tmp_path)), name)
        )
    assert loaded.truth == whole.truth
    assert dict(loaded.source) == dict(whole.source)


def _single(cohort: wearbench.Cohort, tmp_path: Path) -> Path:
    return wearbench.save_cohort(cohort, tmp_path / "single")


def test_cli_shard_users(tmp_path: Path) -> None:
    out = tmp_path / "c"
    args = ["synth", "--users", "5", "--days", "40", "--reference-users", "20", "--out", str(out), "-q"]
    result = CliRunner().invoke(cli, [*args, "--shard-users", "2"])
    assert result.exit_code == 0, result.output
    manifest = read_manifest(out)
    assert manifest["layout"] == "sharded"
    assert len(manifest["shards"]) == 3
    assert manifest["content_hash"] in result.output
