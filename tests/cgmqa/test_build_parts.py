"""Pieces of the CGM benchmark build: patient draws, windows, context files, drop reasons.

The hand-made CGM folder (:func:`hand_folder`) holds two one-day subjects and nothing else:

- ``a``: 100 mg/dL at every point but point 0 (250): mean (287·100 + 250)/288 = 100.52 → 100.5;
- ``b``: 120 mg/dL at every point, point 1 missing: mean 120.0, max 120.0.

It has no labels, insulin or events, so the AD templates that need fault labels and the PM
templates that need exercise, meals, boluses or insulin are dropped with that reason.
"""

from __future__ import annotations

import hashlib
import json
import lzma
from datetime import datetime
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wearbench import WearbenchError
from wearbench.cgmqa import (
    SEED_PATIENTS,
    Bolus,
    Exercise,
    Meal,
    PatientRecord,
    Window,
    build_cgm_benchmark,
    draw_patients,
    read_cgm_items,
    record_window,
    templates,
    verify_cgm_benchmark,
)
from wearbench.cgmqa._context import context_files, context_texts, events_csv, readings_csv

START = datetime(2024, 1, 1)


def hand_folder(root: Path) -> Path:
    """The two-subject folder of the module docstring, with a simulator-style manifest."""
    root.mkdir(parents=True)
    times = pd.date_range(START, periods=288, freq="5min")
    a = np.full(288, 100.0)
    a[0] = 250.0
    b = np.full(288, 120.0)
    b[1] = np.nan
    frame = pd.DataFrame(
        {"subject_id": ["a"] * 288 + ["b"] * 288, "time": list(times) * 2, "glucose": np.concatenate([a, b])}
    )
    frame.to_parquet(root / "readings.parquet", index=False)
    sha = hashlib.sha256((root / "readings.parquet").read_bytes()).hexdigest()
    manifest = {"source": "wearbench.sim", "params": {"profile": "hand"}, "files": {"readings.parquet": sha}}
    (root / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    return root


def test_seed_sampling_draws_the_documented_patient_counts() -> None:
    subjects = [f"p{i:02d}" for i in range(20)]
    assert SEED_PATIENTS == {
        ("ad", "descriptive"): 10,
        ("ad", "memory"): 5,
        ("ad", "pattern"): 5,
        ("pm", "descriptive"): 8,
        ("pm", "memory"): 9,
        ("pd", "pattern"): 16,
    }
    for (family, level), n in SEED_PATIENTS.items():
        d = draw_patients(family, level, subjects, "seed", 42)
        assert len(d.chosen) == n
        assert list(d.chosen) == sorted(set(d.chosen))
        assert set(d.chosen) <= set(subjects)
        assert d.note() == f"drew {n} of 20 eligible"
        assert draw_patients(family, level, subjects, "seed", 42) == d
    # PM memory is family 1, level 1 of (descriptive, memory, pattern)
    picked = np.random.default_rng([42, 1, 1]).choice(20, size=9, replace=False)
    assert draw_patients("pm", "memory", subjects, "seed", 42).chosen == tuple(
        subjects[i] for i in sorted(picked)
    )
    assert draw_patients("pm", "memory", subjects, "seed", 43).chosen != tuple(
        subjects[i] for i in sorted(picked)
    )


def test_fewer_eligible_patients_than_asked_takes_all_and_says_so() -> None:
    d = draw_patients("ad", "descriptive", ["x", "y", "z"], "seed", 0)
    assert d.chosen == ("x", "y", "z")
    assert d.short
    assert d.note() == "only 3 eligible, fewer than the 10 asked for: took all"
    full = draw_patients("pm", "memory", [f"p{i}" for i in range(20)], "full", 0)
    assert len(full.chosen) == 20
    assert full.wanted is None
    assert full.note() == "all 20 patients"


def test_record_window_keeps_the_days_with_most_readings() -> None:
    bg = np.full(5 * 288, 100.0)
    bg[:288] = np.nan  # day 1 empty
    bg[288 : 288 + 10] = np.nan  # day 2 lacks 10 readings
    rec = PatientRecord("s", START, bg)
    # 2-day windows: days 1-2 hold 278, days 2-3 566, days 3-4 576, days 4-5 576 -> days 3-4 (earliest)
    assert record_window(rec, days=2) == Window("s", 3, 2)
    assert record_window(rec, days=5) == Window("s", 1, 5)
    assert record_window(rec, days=30) == Window("s", 1, 5)  # shorter than 30 days: whole
    assert record_window(rec, days=2).key == "s_d3-4"
    assert Window("adult#003", 1, 30).key == "adult_003_d1-30"


def test_a_real_window_ends_on_its_last_complete_day() -> None:
    """Complete: >= 231 of 288 readings (80 %); a partial last calendar day is not held out."""
    bg = np.full(4 * 288, 100.0)
    bg[3 * 288 + 100 :] = np.nan  # day 4: 100 readings (a sensor removed at 08:20)
    bg[2 * 288 : 2 * 288 + 58] = np.nan  # day 3: 230 readings, one short of complete
    rec = PatientRecord("s", START, bg)
    assert record_window(rec) == Window("s", 1, 4)  # simulated data: the whole record
    assert record_window(rec, complete_end=True) == Window("s", 1, 2)
    bg[2 * 288 + 57] = 100.0  # day 3: 231 readings, complete
    assert record_window(PatientRecord("s", START, bg), complete_end=True) == Window("s", 1, 3)
    # 2-day windows ending on a complete day: days 1-2 (576) and 2-3 (519): days 1-2
    assert record_window(PatientRecord("s", START, bg), days=2, complete_end=True) == Window("s", 1, 2)
    empty = PatientRecord("s", START, np.full(288, np.nan))
    assert record_window(empty, complete_end=True) == Window("s", 1, 1)  # no complete day: as before


def test_context_files_hold_the_grid_and_the_events_in_time_order() -> None:
    bg = np.full(288, 100.0)
    bg[1] = np.nan
    bg[2] = 101.26  # stored to 0.1 mg/dL
    bg[3] = 99.96
    insulin = np.full(288, 12.5)
    insulin[3] = 21.041666666666668  # stored to 0.01 mU/min
    rec = PatientRecord(
        "s",
        START,
        bg,
        insulin=insulin,
        meals=(Meal(481.0, 45.0, "breakfast"),),
        boluses=(Bolus(481.0, 23 / 6, "rapid"),),  # 3.8333… U, stored as 3.83
        exercise=(Exercise(600.0, 30.0, "running", 7.5), Exercise(900.0, 20.0, "cycling", 90.0)),
    )
    lines = readings_csv(rec).decode().splitlines()
    assert lines[:5] == [
        "minute,day,time,glucose_mgdl,insulin_mu_per_min",
        "0,1,00:00,100,12.5",
        "5,1,00:05,,12.5",
        "10,1,00:10,101.3,12.5",
        "15,1,00:15,100,21.04",
    ]
    assert lines[-1] == "1435,1,23:55,100,12.5"
    assert len(lines) == 289
    assert events_csv(rec).decode().splitlines() == [
        "minute,day,time,kind,type,amount,unit,duration_min",
        "481,1,08:01,meal,breakfast,45,g,",
        "481,1,08:01,bolus,rapid,3.83,U,",
        "600,1,10:00,exercise,running,7.5,km/h,30",
        "900,1,15:00,exercise,cycling,90,W,20",
    ]
    two = PatientRecord("s", START, np.concatenate([bg, bg]), meals=(Meal(1440.0 + 481, 45.0, "breakfast"),))
    files = context_files(two, Window("s", 2, 1), "contexts")
    assert sorted(files) == ["contexts/s_d2-2.events.csv.xz", "contexts/s_d2-2.readings.csv.xz"]
    # day 2 of the record is day 1 of the window: minutes renumbered from its start
    events = lzma.decompress(files["contexts/s_d2-2.events.csv.xz"]).decode()
    assert events.splitlines()[1] == "481,1,08:01,meal,breakfast,45,g,"


def test_a_prediction_context_ends_at_now() -> None:
    """Readings at t <= now; insulin samples [t, t + 5) that end by now; events before now."""
    rec = PatientRecord(
        "s",
        START,
        np.full(288, 100.0),
        insulin=np.full(288, 12.5),
        meals=(Meal(11.0, 20.0, "breakfast"), Meal(12.0, 30.0, "breakfast")),
        exercise=(Exercise(13.0, 30.0, "running", 7.5),),
    )
    files = context_texts(rec, Window("s", 1, 1, until=12), "contexts")
    assert sorted(files) == [
        "contexts/s_d1-1_until12.events.csv.xz",
        "contexts/s_d1-1_until12.readings.csv.xz",
    ]
    assert files["contexts/s_d1-1_until12.readings.csv.xz"].decode().splitlines() == [
        "minute,day,time,glucose_mgdl,insulin_mu_per_min",
        "0,1,00:00,100,12.5",
        "5,1,00:05,100,12.5",
        "10,1,00:10,100,",  # its sample runs to 00:15, past now (00:12)
    ]
    assert files["contexts/s_d1-1_until12.events.csv.xz"].decode().splitlines() == [
        "minute,day,time,kind,type,amount,unit,duration_min",
        "11,1,00:11,meal,breakfast,20,g,",  # the meal at now (12) and the run after it are not shown
    ]
    on_grid = context_texts(rec, Window("s", 1, 1, until=10), "c")["c/s_d1-1_until10.readings.csv.xz"]
    assert on_grid.decode().splitlines()[-1] == "10,1,00:10,100,"


@pytest.fixture(scope="module")
def hand_bench(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    root = tmp_path_factory.mktemp("hand")
    data = hand_folder(root / "data")
    build_cgm_benchmark(data, root / "bench", seed=3, families="ad,pm", sampling="full")
    return data, root / "bench"


def test_hand_answers_and_drop_reasons(hand_bench: tuple[Path, Path]) -> None:
    _, bench = hand_bench
    items = {i["id"]: i for i in read_cgm_items(bench)}
    assert items["pm_0-a"]["answer"] == 100.5
    assert items["pm_0-b"]["answer"] == 120.0
    assert items["pm_1-a"]["answer"] == 250.0
    assert items["pm_0-a"]["context"] == {
        "readings": "contexts/a_d1-1.readings.csv.xz",
        "events": "contexts/a_d1-1.events.csv.xz",
        "first_day": 1,
        "days": 1,
    }
    manifest = json.loads((bench / "manifest.json").read_text())
    drops = manifest["drops"]
    assert drops["ad_4"] == {"needs fault labels": 2}
    assert drops["pm_28"] == {"needs exercise": 2}
    assert drops["pm_21"] == {"needs meals": 2}
    assert drops["pm_41"] == {"needs insulin per sample": 2}
    assert drops["pm_38"] == {"no answer on this record": 2}  # weeks 2 and 3 of a 1-day record
    # every (template, patient) pair is either an item or a counted drop
    for t in templates("ad") + templates("pm"):
        n = manifest["counts"]["by_template"].get(t.id, 0)
        assert n + sum(drops.get(t.id, {}).values()) == 2, t.id
        if "faults" in t.needs:
            assert drops[t.id] == {"needs fault labels": 2}
    sheet = (bench / "datasheet.md").read_text()
    assert "| pm_28 | memory | number | smape | yes | 0 | 2 | needs exercise (2) |" in sheet
    assert verify_cgm_benchmark(bench).ok


def test_bad_inputs_fail_with_one_line(tmp_path: Path, hand_bench: tuple[Path, Path]) -> None:
    data, _ = hand_bench
    with pytest.raises(WearbenchError, match=r"no readings\.parquet, not a CGM folder"):
        build_cgm_benchmark(tmp_path, tmp_path / "b")
    with pytest.raises(WearbenchError, match=r"families \['zz'\]: unknown; valid: ad, pm, pd"):
        build_cgm_benchmark(data, tmp_path / "b", families="pm,zz")
    with pytest.raises(WearbenchError, match="sampling 'some' is unknown; valid: seed, full"):
        build_cgm_benchmark(data, tmp_path / "b", sampling="some")
    (tmp_path / "foreign").mkdir()
    (tmp_path / "foreign" / "x.txt").write_text("x")
    with pytest.raises(WearbenchError, match="holds no benchmark"):
        build_cgm_benchmark(data, tmp_path / "foreign")
    assert not (tmp_path / "b").exists()
