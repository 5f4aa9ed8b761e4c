from pathlib import Path

import pandas as pd
import pytest

import wearbench
from wearbench.sources import ImportLog, import_source
from wearbench.sources.apple_health import _dedup, collect, write_export
from wearbench.sources.apple_health._load import daily_frame

from ._xml import PHONE, export, rec


def _steps_day(d: int, value: str, src: str, hour: int = 10) -> str:
    return rec(
        "StepCount", f"2024-01-{d:02d} {hour}:00:00 +0000", f"2024-01-{d:02d} {hour}:10:00 +0000", value, src
    )


def test_windowed_dedup_equals_all_at_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cohort = wearbench.synth(n_users=1, n_days=12, seed=2, reference_users=0)
    path = write_export(cohort, "u0001", tmp_path / "export.xml", seed=3, samples_per_day=60)
    whole = daily_frame(collect(path, ImportLog(), keep_all=True))
    monkeypatch.setattr(_dedup, "FLUSH", 16)  # settle a window every few dozen samples
    monkeypatch.setattr(_dedup, "HORIZON", 86400)  # the generator writes each day's steps ≤ 15 h out of order
    log = ImportLog()
    col = collect(path, log)
    assert not col.dedup.unordered
    assert not log.notes
    assert col.dedup._cut  # windows were settled while streaming
    assert sum(len(b) for b in col.dedup.buffers.values()) == 0  # nothing left buffered after finish
    pd.testing.assert_frame_equal(daily_frame(col), whole)
    assert log.repairs["steps: sample overlapped by a better source, dropped"] > 0


def test_out_of_order_records_are_read_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_dedup, "FLUSH", 4)
    monkeypatch.setattr(_dedup, "HORIZON", 3600)
    body = "".join(
        rec("StepCount", f"2024-01-{d:02d} 10:00:00 +0000", f"2024-01-{d:02d} 10:10:00 +0000", "100")
        for d in range(1, 11)
    )
    body += _steps_day(1, "80", PHONE)  # late iPhone duplicate of 1 January's Watch bout: still dropped
    cohort, report = import_source("apple-health", export(tmp_path, body))
    assert cohort.daily["steps"].tolist() == [100.0] * 10
    assert report.repairs["steps: sample overlapped by a better source, dropped"] == 1
    assert any("not in time order" in n for n in report.notes)
