"""Insulin per sample of imported pump data, built from basal rates (U/h) and boluses (U).

The hand-made folder holds two one-day subjects on the 5-minute grid, as ``cgm import … --grid 5``
writes them (readings and canonical events, no ``insulin.parquet``):

- ``p`` (pump): 0.6 U/h set the evening before (still running at 00:00), 1.2 U/h at 00:00, then
  at 00:07 two rows, 0.6 and 0.9 U/h (the later row wins), and a 2 U bolus at 00:02:30;
- ``m`` (injections): a 20 U long-acting dose (``basal`` in U) and a 4 U bolus, no rate.

1 U/h = 1000/60 mU/min, so 1.2 U/h = 20, 0.9 U/h = 15 mU/min. Sample 0 (minutes 0–4): 20 each
minute plus the 2 U = 2000 mU in minute 2: (5 × 20 + 2000) / 5 = 420 mU/min. Sample 1 (5–9):
20, 20, 15, 15, 15 → 17. The last rate holds to the end of its day: sample 287 = 15.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from wearbench.cgmqa import read_records

START = datetime(2024, 1, 1)


def _folder(root: Path, events: list[tuple[str, str, str, float, str]]) -> Path:
    root.mkdir(parents=True)
    times = pd.date_range(START, periods=288, freq="5min")
    subjects = sorted({e[0] for e in events})
    readings = {"subject_id": [s for s in subjects for _ in times], "time": list(times) * len(subjects)}
    pd.DataFrame({**readings, "glucose": 100.0}).to_parquet(root / "readings.parquet", index=False)
    frame = pd.DataFrame(events, columns=["subject_id", "time", "kind", "value", "unit"])
    frame["time"] = pd.to_datetime(frame["time"], format="ISO8601")
    frame["detail"] = ""
    frame.to_parquet(root / "events.parquet", index=False)
    return root


def test_pump_insulin_from_basal_rates_and_boluses(tmp_path: Path) -> None:
    data = _folder(
        tmp_path / "d",
        [
            ("p", "2023-12-31 22:00", "basal", 0.6, "U/h"),
            ("p", "2024-01-01 00:00", "basal", 1.2, "U/h"),
            ("p", "2024-01-01 00:02:30", "bolus", 2.0, "U"),
            ("p", "2024-01-01 00:07", "basal", 0.6, "U/h"),
            ("p", "2024-01-01 00:07", "basal", 0.9, "U/h"),
            ("m", "2024-01-01 08:00", "basal", 20.0, "U"),
            ("m", "2024-01-01 08:00", "bolus", 4.0, "U"),
        ],
    )
    records = {r.subject: r for r in read_records(data)}
    ins = records["p"].insulin
    assert ins is not None
    assert ins[0] == pytest.approx(420.0)
    assert ins[1] == pytest.approx(17.0)
    assert ins[2] == pytest.approx(15.0)
    assert ins[287] == pytest.approx(15.0)
    assert records["m"].insulin is None  # injections only: no pump series


def test_insulin_is_unknown_before_the_first_rate(tmp_path: Path) -> None:
    data = _folder(
        tmp_path / "d",
        [("p", "2024-01-01 00:12", "basal", 0.6, "U/h"), ("p", "2024-01-01 00:01", "bolus", 1.0, "U")],
    )
    ins = read_records(data)[0].insulin
    assert ins is not None
    # minutes 0-11 have no rate: samples 0, 1 (a bolus does not make it known) and 2 (10, 11 unknown)
    assert np.isnan(ins[:3]).all()
    assert ins[3] == pytest.approx(10.0)


def test_a_rate_holds_at_most_a_day_without_a_further_rate_event(tmp_path: Path) -> None:
    data = _folder(
        tmp_path / "d",
        [("p", "2024-01-01 00:00", "basal", 0.6, "U/h"), ("p", "2024-01-03 00:00", "basal", 0.6, "U/h")],
    )
    readings = pd.read_parquet(data / "readings.parquet")
    three = pd.concat([readings.assign(time=readings["time"] + pd.Timedelta(days=d)) for d in range(3)])
    three.to_parquet(data / "readings.parquet", index=False)
    ins = read_records(data)[0].insulin
    assert ins is not None
    assert np.allclose(ins[:288], 10.0)  # day 1: 0.6 U/h = 10 mU/min
    assert np.isnan(ins[288:576]).all()  # day 2: no rate event for 24 h, a gap in the log
    assert np.allclose(ins[576:], 10.0)
