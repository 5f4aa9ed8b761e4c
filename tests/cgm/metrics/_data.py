"""Minimal parsers of the two real CGM files (the real loaders are written elsewhere)."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd

DATA = Path(
    os.environ.get("WEARBENCH_SHARED_DATA", Path(__file__).resolve().parents[3].parent / "shared" / "data")
)
HALL = DATA / "cgm_hall2018" / "example_data_hall.csv"
CLARITY = DATA / "cgm_dexcom_clarity" / "test_file.csv"


def hall() -> pd.DataFrame:
    """Hall et al. 2018 (iglu's example_data_hall, 19 subjects): columns id, time, gl (mg/dL)."""
    d = pd.read_csv(HALL)
    return pd.DataFrame(
        {"id": d["id"].astype(str), "time": pd.to_datetime(d["time"]), "gl": d["gl"].astype(float)}
    )


def clarity() -> pd.DataFrame:
    """Dexcom G6 Clarity export: the EGV rows as id, time, gl (mg/dL)."""
    d = pd.read_csv(CLARITY, encoding="utf-8-sig")
    d = d[d["Event Type"] == "EGV"]
    return pd.DataFrame(
        {
            "id": "clarity",
            "time": pd.to_datetime(d["Timestamp (YYYY-MM-DDThh:mm:ss)"]),
            "gl": pd.to_numeric(d["Glucose Value (mg/dL)"]).astype(float),
        }
    ).reset_index(drop=True)


def available() -> bool:
    return HALL.exists() and CLARITY.exists()
