"""``wearbench.cgm.read_cgm``: CGM folders (imported or simulated), named loaders, auto-detection."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from wearbench._errors import WearbenchError
from wearbench.cgm import EVENTS_FILE, READINGS_FILE, read_cgm, write_cgm_tables
from wearbench.cgm.sources import import_cgm


def test_folder_round_trip(tmp_path: Path) -> None:
    times = pd.to_datetime(["2024-01-01 00:00", "2024-01-01 00:05", "2024-01-01 00:00"])
    readings = pd.DataFrame({"subject_id": ["a", "a", "b"], "time": times, "glucose": [100.0, 104.5, 180.0]})
    events = pd.DataFrame({"subject_id": ["a"], "time": times[1:2], "kind": ["carbs"], "value": [45.0],
                           "unit": ["g"], "detail": ["breakfast"]})  # fmt: skip
    written = write_cgm_tables(readings, events, tmp_path)
    assert [p.name for p in written] == [READINGS_FILE, EVENTS_FILE]
    data = read_cgm(tmp_path)
    assert data.source["read_as"] == "imported folder"
    assert data.readings["glucose"].tolist() == [100.0, 104.5, 180.0]
    assert data.events is not None
    assert data.events["value"].tolist() == [45.0]
    assert data.subjects == ["a", "b"]


def test_folder_without_events(tmp_path: Path) -> None:
    readings = pd.DataFrame({"subject_id": ["a"], "time": pd.to_datetime(["2024-01-01"]), "glucose": [90.0]})
    assert [p.name for p in write_cgm_tables(readings, None, tmp_path)] == [READINGS_FILE]
    assert read_cgm(tmp_path).events is None


def test_missing_and_unreadable(tmp_path: Path) -> None:
    with pytest.raises(WearbenchError, match="no such file or folder"):
        read_cgm(tmp_path / "nope")
    junk = tmp_path / "junk.txt"
    junk.write_text("not a CGM export\n")
    with pytest.raises(WearbenchError, match=r"no CGM loader reads it \(tried .*dexcom-clarity"):
        read_cgm(junk)


def test_export_named_auto_detected_and_imported(shared_data: Path, tmp_path: Path) -> None:
    export = shared_data / "cgm_dexcom_clarity" / "test_file.csv"
    named = read_cgm(export, "dexcom-clarity")
    auto = read_cgm(export)
    assert named.source["read_as"] == "dexcom-clarity"
    assert auto.source["read_as"] == "dexcom-clarity (auto-detected)"
    assert len(named.readings) == len(auto.readings) == 2148
    import_cgm("dexcom-clarity", export, tmp_path / "c")
    folder = read_cgm(tmp_path / "c")
    assert folder.source["read_as"] == "imported folder"
    pd.testing.assert_frame_equal(folder.readings, named.readings)
