from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wearbench import UnknownNameError, WearbenchError
from wearbench._registry import registry
from wearbench.cohort import METRIC_NAMES, validate_cohort
from wearbench.sources import (
    REPORT_NAME,
    ImportLog,
    LoadedSource,
    assemble_cohort,
    bedtime_regularity,
    import_source,
    onset_minutes,
)


def _loaded() -> LoadedSource:
    daily = pd.DataFrame(
        {
            "user_id": ["b", "a", "a", "a"],
            "date": ["2024-01-03", "2024-01-01", "2024-01-01", "2024-01-02"],
            "steps": [1000, 100, 200, 500_000],
            "resting_hr": [55, 60, 61, 62],
        }
    )
    demo = pd.DataFrame({"user_id": ["a"], "age": [41], "sex": ["F"]})
    return LoadedSource(daily, demo)


def test_assembly_counts_every_repair_and_fills_the_schema() -> None:
    log = ImportLog()
    cohort = assemble_cohort(_loaded(), log, {"name": "t", "params": {}})
    d = cohort.daily
    assert list(d.columns) == ["user_id", "date", *METRIC_NAMES]
    assert d["user_id"].tolist() == ["a", "a", "b"]
    assert d["resting_hr"].tolist() == [60.0, 62.0, 55.0]  # the duplicate's second row (61) dropped
    assert d["steps"].tolist()[0::2] == [100.0, 1000.0]
    assert np.isnan(d["steps"].iloc[1])  # 500,000 steps is out of range: set missing, counted
    assert log.repairs == {
        "duplicate user-day: kept the first": 1,
        "steps: outside 0–100000 steps, set missing": 1,
    }
    assert log.examples["steps: outside 0–100000 steps, set missing"] == [
        "user a, 2024-01-02, steps = 500000"
    ]
    demo = cohort.demographics.set_index("user_id")
    assert demo.loc["a", "age"] == 41
    assert demo.loc["a", "sex"] == "F"
    assert np.isnan(demo.loc["b", "age"])
    assert demo.loc["b", "sex"] is None


@pytest.fixture
def toy_loader() -> Iterator[str]:
    registry.register("loader", "toy-test-loader", lambda path, log: _loaded())
    yield "toy-test-loader"
    registry._entries["loader"].pop("toy-test-loader")


def test_import_source_writes_a_valid_cohort_and_report(tmp_path: Path, toy_loader: str) -> None:
    (tmp_path / "in.txt").write_text("x")
    _, report = import_source(toy_loader, tmp_path / "in.txt", tmp_path / "cohort")
    assert validate_cohort(tmp_path / "cohort").ok
    assert (tmp_path / "cohort" / REPORT_NAME).is_file()
    assert (report.users, report.days) == (2, 3)
    assert (report.first_date, report.last_date) == ("2024-01-01", "2024-01-03")
    assert report.coverage["resting_hr"] == 1.0
    assert report.coverage["hrv"] == 0.0
    assert any(line.startswith("not in this source: hrv") for line in report.lines())


def test_unknown_loader_and_missing_path_fail_in_one_line(tmp_path: Path, toy_loader: str) -> None:
    with pytest.raises(UnknownNameError):
        import_source("no-such-loader", tmp_path)
    with pytest.raises(WearbenchError, match="no such file"):
        import_source(toy_loader, tmp_path / "missing.csv")


def test_onset_minutes_do_not_wrap_at_midnight() -> None:
    t = pd.Series(pd.to_datetime(["2024-01-01 22:30", "2024-01-02 00:15", "2024-01-02 02:00"]))
    assert onset_minutes(t).tolist() == [630.0, 735.0, 840.0]


def test_bedtime_regularity_is_a_trailing_sd_over_calendar_days() -> None:
    dates = pd.Series(pd.to_datetime(["2024-01-01", "2024-01-02", "2024-01-03", "2024-01-05", "2024-01-12"]))
    onsets = pd.Series([600.0, 660.0, 630.0, 690.0, 600.0])
    sd = bedtime_regularity(dates, onsets)
    assert np.isnan(sd.iloc[0])
    assert np.isnan(sd.iloc[1])  # fewer than three nights
    assert sd.iloc[2] == pytest.approx(np.std([600, 660, 630], ddof=1))
    assert sd.iloc[3] == pytest.approx(np.std([600, 660, 630, 690], ddof=1))
    assert np.isnan(sd.iloc[4])  # 01-06..01-12 holds one night
