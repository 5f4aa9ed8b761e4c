"""fit loader on real Garmin .FIT files, checked against the reference CSV decodes."""

import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from wearbench.cohort import Cohort
from wearbench.sources import ImportReport, import_source
from wearbench.sources.garmin import read_fit

FIT = "garmin_fit"
pytest.importorskip("fitdecode")


@pytest.fixture(scope="module")
def fit(shared_data: Path) -> tuple[Cohort, ImportReport]:
    return import_source("fit", shared_data / FIT)


def _day(cohort: Cohort, day: str) -> pd.Series:
    d = cohort.daily
    return d[d["date"] == pd.Timestamp(day)].iloc[0]


@pytest.mark.parametrize(
    "name", ["garmin-edge-500-activity", "garmin-fenix-5-run", "garmin-fenix-5-walk", "garmin-fenix-5-bike"]
)
def test_records_match_reference_decode(shared_data: Path, name: str) -> None:
    ref = pd.read_csv(shared_data / FIT / f"{name}-records.csv")
    decoded = read_fit(shared_data / FIT / f"{name}.fit")
    assert decoded.file_type == "activity"
    assert decoded.counts["record"] == len(ref)  # 10686, 21, 17, 19
    (session,) = decoded.messages["session"]
    assert session["total_distance"] == pytest.approx(ref["distance"].iloc[-1])
    assert session["max_heart_rate"] == ref["heart_rate"].max()


def test_sessions_become_exercise(fit: tuple[Cohort, ImportReport]) -> None:
    cohort, report = fit
    # edge-500: one cycling session, total_timer_time 10641.06 s, 1954 kcal, avg HR 162 (no local_timestamp)
    ride = _day(cohort, "2011-09-25")
    assert (ride["exercise_count"], ride["active_kcal"], ride["exercise_avg_hr"]) == (1, 1954, 162)
    assert ride["exercise_minutes"] == pytest.approx(10641.06 / 60)
    # fenix-5 walk (45.379 s, avg HR 75, 4 kcal) and run (56.887 s, avg HR 90, 5 kcal), 11 Jun 2017 PDT
    both = _day(cohort, "2017-06-11")
    assert both["exercise_count"] == 2
    assert both["active_kcal"] == 9
    assert both["exercise_minutes"] == pytest.approx((45.379 + 56.887) / 60)
    assert both["exercise_avg_hr"] == pytest.approx((75 * 45.379 + 90 * 56.887) / (45.379 + 56.887))
    assert report.repairs == {"fit: activity file without local_timestamp: sessions put on UTC days": 1}


def test_monitoring_steps_from_daily_counters(fit: tuple[Cohort, ImportReport]) -> None:
    # MonitoringFile.fit (vivofit, local = UTC-6): day-end totals stamped 28 Dec 06:00 UTC = local midnight:
    # walking 3142 steps + running 31 steps, active_calories 68 + 1
    cohort, report = fit
    day = _day(cohort, "2014-12-27")
    assert day["steps"] == 3173
    assert day["active_kcal"] == 69
    assert pd.Timestamp("2014-12-28") not in set(cohort.daily["date"])
    assert report.rows_read["fit: monitoring"] == 337
    assert report.rows_read["fit: weight file"] == 2
    assert any("weight-scale" in n for n in report.notes)


def test_a_single_file_loads(shared_data: Path) -> None:
    cohort, _ = import_source("fit", shared_data / FIT / "activity-small-fenix2-run.fit")
    row = cohort.daily.iloc[0]
    assert (cohort.n_users, str(row["date"].date()), row["exercise_minutes"]) == (1, "2015-08-15", 47.2)
    assert row["active_kcal"] == 516


def test_import_is_silent_and_lazy() -> None:
    code = (
        "import sys, wearbench.sources.loaders, wearbench.sources.garmin; print('fitdecode' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert (out.stdout, out.stderr) == ("False\n", "")
