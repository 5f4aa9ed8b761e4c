"""The heart-rate fast lane and the cached timestamp parser change speed, never results."""

import datetime as dt
import random
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import wearbench
from wearbench import WearbenchError
from wearbench.sources import ImportLog
from wearbench.sources.apple_health import _parse, collect, write_export
from wearbench.sources.apple_health._fastlane import HeartRateLane
from wearbench.sources.apple_health._load import daily_frame
from wearbench.sources.apple_health._parse import parse_time

from ._xml import PHONE, WATCH, export, rec

Z = " +0000"


def _hr(t: str, value: str = "70", end: str | None = None, src: str = WATCH) -> str:
    return rec("HeartRate", t + Z, (end or t) + Z, value, src, "count/min")


def _load(path: Path) -> tuple[pd.DataFrame, dict[str, Any], int]:
    log = ImportLog()
    col = collect(path, log)
    frame = daily_frame(col)
    report = {
        "rows": dict(log.rows_read),
        "repairs": dict(log.repairs),
        "rejections": dict(log.rejections),
        "examples": {k: list(v) for k, v in log.examples.items()},
        "notes": list(log.notes),
        "workout_hr": [w.avg_hr for w in col.workouts],
    }
    return frame, report, col.hr_count


def _with_and_without_lane(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Any, Any, int]:
    taken: list[int] = []
    real = HeartRateLane.__call__

    def spy(self: HeartRateLane, chunk: bytes, *, active: bool, in_correlation: bool) -> bytes:
        out = real(self, chunk, active=active, in_correlation=in_correlation)
        taken.append(self.count)
        return out

    with monkeypatch.context() as m:
        m.setattr(HeartRateLane, "__call__", spy)
        fast = _load(path)
    with monkeypatch.context() as m:
        m.setattr(HeartRateLane, "__call__", lambda self, chunk, **_: chunk)
        slow = _load(path)
    return fast, slow, max(taken, default=0)


def _same(fast: Any, slow: Any) -> None:
    pd.testing.assert_frame_equal(fast[0], slow[0])
    assert fast[1] == slow[1]
    assert fast[2] == slow[2]


@pytest.mark.parametrize("chunk", [1 << 20, 4096, 777])
def test_generated_export_same_with_and_without_the_lane(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    monkeypatch.setattr(_parse, "CHUNK", chunk)
    monkeypatch.setattr(_parse, "FIRST_CHUNK", min(chunk, 1 << 16))
    cohort = wearbench.synth(n_users=1, n_days=8, seed=4, reference_users=0)
    path = write_export(cohort, "u0001", tmp_path / "export.xml", seed=6, samples_per_day=200)
    fast, slow, taken = _with_and_without_lane(path, monkeypatch)
    _same(fast, slow)
    assert fast[1]["rows"]["Record HeartRate"] == 8 * 200
    assert taken > (1400 if chunk > 4096 else 600)  # most heart-rate records went through the lane


def _tricky_body() -> str:
    entry = (
        ' <Record type="HKQuantityTypeIdentifierHeartRate" {src} unit="count/min"'
        ' creationDate="2024-03-01 10:05:00 +0000" startDate="{t} +0000" endDate="{t} +0000" value="{v}">\n'
        '  <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="1"/>\n </Record>\n'
    )
    body = "".join(_hr(f"2024-03-01 08:{m:02d}:00", str(60 + m)) for m in range(30))  # plain: taken
    body += "".join(entry.format(src=WATCH, t=f"2024-03-01 09:{m:02d}:00", v=70 + m) for m in range(10))
    body += _hr("2024-03-01 10:00:00", "80", end="2024-03-01 10:00:05")  # interval: slow path
    body += _hr("2024-03-01 10:01:00", "abc")  # rejected
    body += _hr("2024-03-01 10:02:00", "1e999")  # rejected (not finite)
    body += _hr("2024-02-30 10:03:00", "70")  # rejected (no such date)
    body += _hr("2024-02-29 10:04:00", "75")  # leap day: valid, slow path
    body += _hr("2024-03-01 10:05:00", "77", src=PHONE)  # second source text
    body += _hr("2024-03-01 10:06:00", "72", end="2024-03-01 10:05:00")  # end before start: rejected
    body += (
        ' <Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="Cuff"'
        ' startDate="2024-03-01 11:00:00 +0000" endDate="2024-03-01 11:00:00 +0000">\n'
        + _hr("2024-03-01 11:00:00", "90")  # a correlation child: not counted
        + " </Correlation>\n"
    )
    body += "".join(_hr(f"2024-03-01 18:{m:02d}:00", str(100 + m)) for m in range(0, 60, 5))
    body += (
        f' <Workout workoutActivityType="HKWorkoutActivityTypeYoga" {WATCH}'
        ' startDate="2024-03-01 18:00:00 +0000" endDate="2024-03-01 18:30:00 +0000">\n </Workout>\n'
    )
    body += " <!-- a comment in the body: the lane stops here -->\n"
    body += "".join(_hr(f"2024-03-02 08:{m:02d}:00", "65") for m in range(5))
    return body


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
@pytest.mark.parametrize("chunk", [2000, 1000])
def test_tricky_records_same_with_and_without_the_lane(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, newline: str, chunk: int
) -> None:
    monkeypatch.setattr(_parse, "CHUNK", chunk)
    monkeypatch.setattr(_parse, "FIRST_CHUNK", min(chunk, 1 << 16))
    path = export(tmp_path, _tricky_body())
    path.write_bytes(path.read_bytes().replace(b"\n", newline.encode()))
    fast, slow, taken = _with_and_without_lane(path, monkeypatch)
    _same(fast, slow)
    report = fast[1]
    # 30 + 10 + 1 + 3 rejected + 1 + 1 + 1 rejected + 12 + 5; the correlation child is not read
    assert report["rows"]["Record HeartRate"] == 64
    assert fast[2] == 64 - 4
    assert report["rejections"] == {
        "HeartRate: value not a number ≥ 0": 2,
        "HeartRate: unreadable startDate/endDate": 1,
        "HeartRate: endDate before startDate": 1,
    }
    assert report["workout_hr"] == [pytest.approx(sum(range(100, 135, 5)) / 7)]  # 18:00-18:30 samples
    assert taken > 0


def test_plain_and_motion_context_records_take_the_lane(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_parse, "FIRST_CHUNK", 1024)  # then one chunk for the rest
    body = _tricky_body().split(
        ' <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Ann’s Apple Watch"'
    )
    plain_and_entries = (
        ' <Record type="HKQuantityTypeIdentifierHeartRate" sourceName="Ann’s Apple Watch"'.join(body[:41])
    )
    fast, slow, taken = _with_and_without_lane(export(tmp_path, plain_and_entries), monkeypatch)
    _same(fast, slow)
    assert fast[1]["rows"]["Record HeartRate"] == 40
    # all but those in the first chunk (read before the root element is seen) and the one it
    # cuts in two: so at least 7 of the 10 with a motion-context entry
    assert taken >= 37


def test_error_positions_are_the_same_with_the_lane(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_parse, "CHUNK", 2048)
    body = "".join(_hr(f"2024-03-01 08:{m:02d}:00") for m in range(40)) + ' <Record type="x" oops>\n'
    body += "".join(_hr(f"2024-03-01 09:{m:02d}:00") for m in range(40))
    path = export(tmp_path, body)
    messages = []
    for lane in (True, False):
        with monkeypatch.context() as m:
            if not lane:
                m.setattr(HeartRateLane, "__call__", lambda self, chunk, **_: chunk)
            with pytest.raises(WearbenchError) as exc:
                collect(path, ImportLog())
            messages.append(str(exc.value))
    assert messages[0] == messages[1]
    assert "line 45, column 22" in messages[0]  # 4 header lines, 40 records, then the bad one


def _reference_time(text: str) -> tuple[int, int]:
    local = dt.datetime.strptime(text[:19], "%Y-%m-%d %H:%M:%S").replace(tzinfo=dt.UTC)
    sign = -1 if text[20] == "-" else 1
    offset = sign * (int(text[21:23]) * 3600 + int(text[23:25]) * 60)
    return int(local.timestamp()) - offset, offset


def test_cached_parse_time_matches_a_reference(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_parse, "_CACHE", 50)  # the caches empty themselves many times
    rng = random.Random(0)
    for _ in range(5000):
        t = dt.datetime(1990, 1, 1) + dt.timedelta(seconds=rng.randrange(0, 60 * 365 * 86400))
        off = rng.choice(["+0000", "+0100", "-0500", "+0530", "-0930", "+1400"])
        text = f"{t:%Y-%m-%d %H:%M:%S} {off}"
        assert parse_time(text) == _reference_time(text)
    assert parse_time("2024-01-01 00:00:00 +0100") == (1704063600, 3600)
    for bad in ("2024-02-30 10:00:00 +0000", "2024-01-01 10:00:00 0000", "2024-01-01 10:00:00", "x" * 25):
        with pytest.raises(ValueError, match=r"time|day|month|year|literal"):
            parse_time(bad)
