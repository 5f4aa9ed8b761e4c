import sqlite3
from pathlib import Path

import pytest

from wearbench import WearbenchError
from wearbench.models import ModelOutput, ToolCall
from wearbench.runner import ResultRow, RunInfo, RunStore, Setting


def _info(run_id: str = "run-1") -> RunInfo:
    return RunInfo(run_id, "baseline:x", Setting("csv", "cot", ("no_blood",)), {"seed": 0}, "b", "h", 3)


def _row(item: str, *, error: str | None = None, letter: str | None = "B") -> ResultRow:
    failed = letter is None and error is None
    return ResultRow(
        "run-1", item, "u1", "baseline:x", "s", "ph", "Answer: B", letter, letter == "B", failed,
        10, 2, None, 0.5, 1, error, "[]", False, {"k": 1},
    )  # fmt: skip


def test_rows_round_trip_and_are_never_duplicated(tmp_path: Path) -> None:
    with RunStore(tmp_path) as store:
        store.ensure_run(_info())
        store.ensure_run(_info())  # idempotent
        assert store.add(_row("i2"))
        assert store.add(_row("i1", letter=None))
        assert not store.add(_row("i2", letter="C"))  # first write wins
        rows = store.rows("run-1")
        assert [r.item_id for r in rows] == ["i1", "i2"]
        assert rows[1] == _row("i2")
        assert rows[0].parse_failed
        assert rows[0].letter is None
        assert store.runs() == [_info()]
        assert store.run("run-").setting == Setting("csv", "cot", ("no_blood",))


def test_errored_rows_are_retried_on_resume(tmp_path: Path) -> None:
    with RunStore(tmp_path) as store:
        store.add(_row("i1"))
        store.add(_row("i2", error="gave up after 5 retries", letter=None))
        assert store.done("run-1") == {"i1"}
        assert store.drop_errors("run-1") == 1
        assert [r.item_id for r in store.rows("run-1")] == ["i1"]


def test_response_cache_round_trips_outputs(tmp_path: Path) -> None:
    out = ModelOutput("hi", (ToolCall("c1", "python", '{"code": "1"}'),), 5, 1, 0.01, 0.2, 2, "stop", "m")
    with RunStore(tmp_path) as store:
        assert store.cached("k") is None
        store.cache("k", "m", out)
        store.cache("k", "m", ModelOutput("other"))
        assert store.cached("k") == out


def test_a_store_survives_reopening(tmp_path: Path) -> None:
    with RunStore(tmp_path) as store:
        store.ensure_run(_info())
        store.add(_row("i1"))
    with RunStore(tmp_path) as store:
        assert store.done("run-1") == {"i1"}
    assert sqlite3.connect(tmp_path / "runs.sqlite").execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_unknown_run_and_corrupt_store_give_one_line_errors(tmp_path: Path) -> None:
    with RunStore(tmp_path) as store, pytest.raises(WearbenchError, match="0 runs match 'nope'"):
        store.run("nope")
    bad = tmp_path / "bad"
    bad.mkdir()
    (bad / "runs.sqlite").write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(WearbenchError, match="not a usable run store"):
        RunStore(bad)


def test_setting_key_round_trips_and_rejects_unknown_names() -> None:
    s = Setting("markdown+stats", "multiview", ("no_history", "no_blood", "no_blood"))
    assert s.ablations == ("no_blood", "no_history")
    assert s.key() == "repr=markdown+stats|mode=multiview|ablate=no_blood,no_history"
    assert Setting.from_key(s.key()) == s
    assert Setting.from_key(Setting().key()) == Setting()
    with pytest.raises(WearbenchError, match="unknown mode"):
        Setting("csv", "shout")  # type: ignore[arg-type]
    with pytest.raises(WearbenchError, match="unknown ablation 'no_x'"):
        Setting("csv", "direct", ("no_x",))
