"""Agreement with iglu-python 0.4.3 (the reference port of the iglu R package) on real CGM files.

Every metric iglu has must match to 1e-6 for all 19 Hall et al. 2018 subjects and the Dexcom
Clarity export. iglu's MAGE is slow (~10 s for Hall), so the reference table is built once.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tests.cgm.metrics import _data

from wearbench.cgm import CGMData
from wearbench.cgm.metrics import cgm_metrics, metrics_table

iglu = pytest.importorskip("iglu_python", reason="iglu-python is not installed (dev extra)")
pytestmark = pytest.mark.skipif(not _data.available(), reason="real CGM files not present")

TOL = 1e-6
METRICS: tuple[str, ...] = ("mean", "sd", "cv", "gmi", "tir_70_180", "tbr_70", "tbr_54", "tar_180")
METRICS += ("tar_250", "lbgi", "hbgi", "gri", "mage", "modd", "conga", "sufficiency")


def _reference(one: pd.DataFrame) -> dict[str, float]:
    gl = one["gl"].reset_index(drop=True)
    return {
        "mean": float(iglu.mean_glu(one)["mean"].iloc[0]),
        "sd": float(iglu.sd_glu(gl)),
        "cv": float(iglu.cv_glu(gl)),
        "gmi": float(iglu.gmi(gl)),
        "tir_70_180": float(iglu.in_range_percent(gl, [[70, 180]])["in_range_70_180"]),
        "tbr_70": float(iglu.below_percent(gl, [70])["below_70"]),
        "tbr_54": float(iglu.below_percent(gl, [54])["below_54"]),
        "tar_180": float(iglu.above_percent(gl, [180])["above_180"]),
        "tar_250": float(iglu.above_percent(gl, [250])["above_250"]),
        "lbgi": float(iglu.lbgi(gl)),
        "hbgi": float(iglu.hbgi(gl)),
        "gri": float(iglu.gri(gl)),
        "mage": float(iglu.mage(one)["MAGE"].iloc[0]),  # version="ma", direction="avg"
        "modd": float(iglu.modd(one.copy())["MODD"].iloc[0]),  # lag = 1 day
        "conga": float(iglu.conga(one.copy(), n=1)["CONGA"].iloc[0]),  # CONGA-1 (iglu's default is n=24)
        # naive times read as UTC so the machine's time zone (DST) cannot shift the gaps
        "sufficiency": float(iglu.active_percent(one.copy(), tz="UTC")["active_percent"].iloc[0]) / 100,
    }


@pytest.fixture(scope="module")
def tables() -> tuple[pd.DataFrame, pd.DataFrame]:
    data = pd.concat([_data.hall(), _data.clarity()], ignore_index=True)
    readings = data.rename(columns={"id": "subject_id", "gl": "glucose"})
    ours = metrics_table(CGMData(readings)).set_index("subject_id")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = pd.DataFrame(
            {sid: _reference(one.reset_index(drop=True)) for sid, one in data.groupby("id", sort=True)}
        ).T
    return ours, ref


def test_all_subjects_present(tables: tuple[pd.DataFrame, pd.DataFrame]) -> None:
    ours, ref = tables
    assert len(ours) == 20
    assert sorted(ours.index) == sorted(ref.index)


@pytest.mark.parametrize(
    "metric",
    METRICS,
)
def test_metric_agrees_with_iglu(tables: tuple[pd.DataFrame, pd.DataFrame], metric: str) -> None:
    ours, ref = tables
    for sid in ref.index:
        x, y = float(ours.loc[sid, metric]), float(ref.loc[sid, metric])
        assert (math.isnan(x) and math.isnan(y)) or abs(x - y) <= TOL, f"{sid} {metric}: {x} vs iglu {y}"


def test_real_files_sufficiency(tables: tuple[pd.DataFrame, pd.DataFrame]) -> None:
    ours, _ = tables
    assert (ours["interval_minutes"] == 5.0).all()
    assert ours.loc["clarity", "sufficient"]
    # 1636-69-001 has a 416-day gap between two sensor wears: far below 70 %
    assert not ours.loc["1636-69-001", "sufficient"]
    assert ours["sufficiency"].to_numpy()[list(ours.index).index("1636-69-001")] < 0.05


@settings(max_examples=12, deadline=None, derandomize=True)
@given(st.integers(0, 2**32 - 1))
def test_grid_metrics_agree_on_synthetic_gaps(seed: int) -> None:
    # jittered 5-min readings with random gaps (some > 45 min, some > 180 min), random start
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 700))
    secs = np.arange(n) * 300 + rng.integers(-20, 21, size=n)
    for _ in range(int(rng.integers(0, 4))):
        secs[int(rng.integers(1, n)) :] += int(rng.integers(1, 400)) * 60
    times = pd.Timestamp("2024-03-01") + pd.to_timedelta(
        np.unique(secs) + int(rng.integers(0, 86400)), unit="s"
    )
    walk = rng.normal(0, 8, times.size).cumsum() * 0.3
    gl = np.clip(140 + 60 * np.sin(np.arange(times.size) / rng.uniform(5, 40)) + walk, 40, 400).round()
    one = pd.DataFrame({"id": "s", "time": times, "gl": gl})
    ours = cgm_metrics(times, gl)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = {
            "mage": float(iglu.mage(one.copy())["MAGE"].iloc[0]),
            "modd": float(iglu.modd(one.copy())["MODD"].iloc[0]),
            "conga": float(iglu.conga(one.copy(), n=1)["CONGA"].iloc[0]),
        }
    for metric, y in ref.items():
        x = getattr(ours, metric)
        assert (math.isnan(x) and math.isnan(y)) or abs(x - y) <= TOL, f"{metric}: {x} vs iglu {y}"
