"""Consensus CGM metrics: hand-computed cases, properties, errors, the API."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wearbench._errors import WearbenchError
from wearbench.cgm import CGMData
from wearbench.cgm.metrics import (
    AGP_PERCENTILES,
    CGMMetrics,
    _kernels,
    agp_percentiles,
    cgm_metrics,
    metrics_table,
)

prop = settings(max_examples=60, deadline=None, derandomize=True)
NAN_FIELDS = (
    "mean",
    "sd",
    "cv",
    "gmi",
    "tir_70_180",
    "tbr_70",
    "mage",
    "modd",
    "conga",
    "lbgi",
    "hbgi",
    "gri",
)


def grid(n: int, start: str = "2024-01-01 00:05", freq: str = "5min") -> pd.DatetimeIndex:
    return pd.date_range(start, periods=n, freq=freq)


def f_risk(g: float) -> float:
    return 1.509 * (math.log(g) ** 1.084 - 5.381)  # type: ignore[no-any-return]


# --- edge cases ------------------------------------------------------------------------------


def test_empty_is_all_nan_and_insufficient() -> None:
    m = cgm_metrics(np.array([], dtype="datetime64[ns]"), np.array([], dtype=float))
    assert m.n_readings == 0
    assert not m.sufficient
    assert all(math.isnan(getattr(m, f)) for f in (*NAN_FIELDS, "sufficiency", "days"))


def test_one_point() -> None:
    m = cgm_metrics(grid(1), [150.0])
    assert m.n_readings == 1
    assert m.mean == 150.0
    assert m.gmi == pytest.approx(3.31 + 0.02392 * 150)
    assert m.tir_70_180 == 100.0
    assert m.tbr_70 == m.tar_180 == 0.0
    for f in ("sd", "cv", "mage", "modd", "conga", "sufficiency"):
        assert math.isnan(getattr(m, f)), f
    assert not m.sufficient


def test_duplicate_times_only() -> None:
    m = cgm_metrics(pd.to_datetime(["2024-01-01 08:00"] * 2), [100.0, 120.0])
    assert m.mean == 110.0
    assert math.isnan(m.sufficiency)
    assert not m.sufficient


def test_all_in_range() -> None:
    m = cgm_metrics(grid(288), np.linspace(70, 180, 288))
    assert (m.tir_70_180, m.tbr_70, m.tbr_54, m.tar_180, m.tar_250) == (100.0, 0.0, 0.0, 0.0, 0.0)
    assert m.gri == 0.0
    assert m.sufficiency == 1.0
    assert m.sufficient
    assert m.days == pytest.approx(287 * 5 / 1440)
    assert m.interval_minutes == 5.0


# --- hand-computed values per metric -----------------------------------------------------------


def test_mean_sd_cv_gmi() -> None:
    m = cgm_metrics(grid(2), [100.0, 200.0])
    assert m.mean == 150.0
    assert m.sd == pytest.approx(50 * math.sqrt(2))
    assert m.cv == pytest.approx(100 * 50 * math.sqrt(2) / 150)
    assert m.gmi == pytest.approx(3.31 + 0.02392 * 150)


def test_ranges_and_thresholds_are_consensus_inclusive() -> None:
    # 54 is not < 54; 70 and 180 are in range; 250 is not > 250 (Battelino et al. 2019)
    m = cgm_metrics(grid(8), [40.0, 54.0, 69.9, 70.0, 180.0, 180.1, 250.0, 251.0])
    assert m.tbr_54 == pytest.approx(100 / 8)
    assert m.tbr_70 == pytest.approx(300 / 8)
    assert m.tir_70_180 == pytest.approx(200 / 8)
    assert m.tar_180 == pytest.approx(300 / 8)
    assert m.tar_250 == pytest.approx(100 / 8)


def test_gri() -> None:
    m = cgm_metrics(grid(4), [60.0, 100.0, 100.0, 200.0])  # 25 % 54–69, 25 % 181–250
    assert m.gri == pytest.approx(2.4 * 25 + 0.8 * 25)
    capped = cgm_metrics(grid(5), [50.0, 60.0, 100.0, 200.0, 300.0])  # 156 before the cap
    assert capped.gri == 100.0


def test_lbgi_hbgi() -> None:
    g = [50.0, 112.5, 300.0]
    m = cgm_metrics(grid(3), g)
    assert m.lbgi == pytest.approx(10 * f_risk(50.0) ** 2 / 3)
    assert m.hbgi == pytest.approx(10 * (f_risk(112.5) ** 2 + f_risk(300.0) ** 2) / 3)
    assert abs(f_risk(112.5)) < 1e-3  # the scale's zero is at 112.5 mg/dL


def test_conga_one_hour_square_wave() -> None:
    # 3 h at 5 min on iglu's grid: 100 for an hour, 130, then 100 → 12 diffs of +30, 12 of −30
    g = np.r_[np.full(12, 100.0), np.full(12, 130.0), np.full(12, 100.0)]
    m = cgm_metrics(grid(36), g)
    assert m.conga == pytest.approx(30 * math.sqrt(24 / 23))
    assert cgm_metrics(grid(36), 100 + np.arange(36.0)).conga == pytest.approx(0.0, abs=1e-9)
    assert cgm_metrics(grid(36), g, conga_hours=2).conga == pytest.approx(0.0, abs=1e-9)


def test_modd_and_gaps() -> None:
    g = np.r_[np.full(288, 100.0), np.full(288, 120.0)]
    assert cgm_metrics(grid(576), g).modd == pytest.approx(20.0)
    # two hours missing on day 2: those pairs are dropped (not interpolated: gap > 45 min)
    keep = np.ones(576, bool)
    keep[300:324] = False
    m = cgm_metrics(grid(576)[keep], g[keep])
    assert m.modd == pytest.approx(20.0)
    assert m.sufficiency == pytest.approx(552 / 576)
    assert (
        cgm_metrics(grid(200), np.full(200, 100.0)).modd != cgm_metrics(grid(200), np.full(200, 100.0)).modd
    )


def test_short_gap_is_interpolated_long_gap_is_not() -> None:
    # iglu's CGMS2DayByDay: linear interpolation across gaps up to 45 min, NaN inside longer ones
    def on_grid(times: list[str], g: list[float]) -> np.ndarray:
        t = pd.to_datetime(times).as_unit("ns").asi8
        return _kernels.day_grid(t, np.asarray(g), 5)[:16]

    short = on_grid(["2024-01-01 00:05", "2024-01-01 00:10", "2024-01-01 00:40"], [100.0, 100.0, 160.0])
    np.testing.assert_allclose(short[:8], [100, 100, 110, 120, 130, 140, 150, 160])
    assert np.isnan(short[8:]).all()  # after the last reading
    long_ = on_grid(["2024-01-01 00:05", "2024-01-01 00:10", "2024-01-01 01:10"], [100.0, 100.0, 160.0])
    assert long_[:2].tolist() == [100.0, 100.0]
    assert np.isnan(long_[2:13]).all()  # 00:15 … 01:05
    assert long_[13] == 160.0


def test_mage_triangle_wave() -> None:
    # 100 → 200 → 100 every 4 h for two days, ending on a nadir: every excursion is 100 mg/dL
    k = np.arange(577)
    phase = (k % 48) / 48.0
    g = np.where(phase < 0.5, 100 + 200 * phase, 300 - 200 * phase)
    assert cgm_metrics(grid(577), g).mage == pytest.approx(100.0)


def test_mage_undefined() -> None:
    assert math.isnan(cgm_metrics(grid(100), np.full(100, 120.0)).mage)  # SD < 1
    assert math.isnan(cgm_metrics(grid(6), [100.0, 200, 100, 200, 100, 200]).mage)  # < 7 points


def test_sufficiency_flag() -> None:
    t = grid(121)  # 10 h at 5 min
    keep = np.ones(121, bool)
    keep[10:50] = False  # 40 of 121 missing
    m = cgm_metrics(t[keep], np.full(keep.sum(), 100.0))
    assert m.sufficiency == pytest.approx(81 / 121)
    assert not m.sufficient
    assert m.mean == 100.0  # still computed
    assert cgm_metrics(t[keep], np.full(keep.sum(), 100.0), min_sufficiency=0.6).sufficient


# --- properties --------------------------------------------------------------------------------

glucose_lists = st.lists(st.floats(39.0, 450.0, allow_nan=False), min_size=2, max_size=300)


@prop
@given(glucose_lists)
def test_ranges_partition(g: list[float]) -> None:
    m = cgm_metrics(grid(len(g)), g)
    assert m.tir_70_180 + m.tbr_70 + m.tar_180 == pytest.approx(100.0)
    assert 0 <= m.tbr_54 <= m.tbr_70
    assert 0 <= m.tar_250 <= m.tar_180
    assert 0 <= m.gri <= 100
    assert m.lbgi >= 0
    assert m.hbgi >= 0


@prop
@given(glucose_lists)
def test_cv_is_sd_over_mean(g: list[float]) -> None:
    m = cgm_metrics(grid(len(g)), g)
    assert m.cv == pytest.approx(100 * m.sd / m.mean)
    assert m.gmi == pytest.approx(3.31 + 0.02392 * m.mean)


@prop
@given(glucose_lists, st.floats(1.0, 100.0))
def test_shift_leaves_spread_unchanged(g: list[float], c: float) -> None:
    t = grid(len(g))
    a, b = cgm_metrics(t, g), cgm_metrics(t, np.asarray(g) + c)
    assert b.mean == pytest.approx(a.mean + c)
    for f in ("sd", "conga", "modd"):
        x, y = getattr(a, f), getattr(b, f)
        assert (math.isnan(x) and math.isnan(y)) or y == pytest.approx(x, abs=1e-6), f


@prop
@given(glucose_lists, st.randoms(use_true_random=False))
def test_order_of_input_does_not_matter(g: list[float], rnd: object) -> None:
    t = np.asarray(grid(len(g)))
    perm = np.arange(len(g))
    rnd.shuffle(perm)  # type: ignore[attr-defined]
    a, b = cgm_metrics(t, g), cgm_metrics(t[perm], np.asarray(g)[perm])
    for f, x in a.to_dict().items():
        y = b.to_dict()[f]
        assert (
            x == y or (isinstance(x, float) and math.isnan(x) and math.isnan(y)) or y == pytest.approx(x)
        ), f


@prop
@given(st.lists(st.booleans(), min_size=2, max_size=400))
def test_sufficiency_bounds(keep: list[bool]) -> None:
    mask = np.asarray(keep)
    if mask.sum() < 2:
        return
    m = cgm_metrics(grid(len(keep))[mask], np.full(int(mask.sum()), 100.0))
    assert 0 < m.sufficiency <= 1


# --- API -----------------------------------------------------------------------------------------


def test_to_dict_and_frozen() -> None:
    m = cgm_metrics(grid(10), np.arange(100.0, 110.0))
    d = m.to_dict()
    assert list(d) == list(CGMMetrics.__dataclass_fields__)
    with pytest.raises(AttributeError):
        m.mean = 1.0  # type: ignore[misc]


def test_metrics_table_one_row_per_subject() -> None:
    t = grid(50)
    readings = pd.DataFrame(
        {
            "subject_id": ["b"] * 50 + ["a"] * 50,
            "time": np.r_[t, t],
            "glucose": np.r_[np.linspace(60, 200, 50), np.full(50, 100.0)],
        }
    )
    table = metrics_table(CGMData(readings))
    assert list(table["subject_id"]) == ["a", "b"]
    assert list(table.columns[:4]) == ["subject_id", "n_readings", "dropped_missing", "dropped_out_of_range"]
    assert table["dropped_missing"].tolist() == [0, 0]  # nothing screened: CGMData.dropped is None
    assert table.loc[0, "mean"] == 100.0
    b = cgm_metrics(t, np.linspace(60, 200, 50)).to_dict()
    row = table.iloc[1].drop(["subject_id", "dropped_missing", "dropped_out_of_range"])
    assert row.to_dict() == pytest.approx(b, nan_ok=True)


def test_agp_percentiles() -> None:
    days = pd.date_range("2024-01-01", periods=5, freq="D")
    t = np.r_[days + pd.Timedelta("00:10:00"), days + pd.Timedelta("13:50:00")]
    g = np.r_[np.arange(100.0, 105.0), np.arange(200.0, 205.0)]
    agp = agp_percentiles(t, g, bin_minutes=60)
    assert len(agp) == 24
    assert list(agp.columns) == ["bin_start", "minute", "n", *(f"p{p}" for p in AGP_PERCENTILES)]
    assert agp.loc[0, "bin_start"] == "00:00"
    assert agp.loc[0, "n"] == 5
    assert agp[["p5", "p25", "p50", "p75", "p95"]].iloc[0].tolist() == pytest.approx(
        [100.2, 101, 102, 103, 103.8]
    )
    assert agp.loc[13, "p50"] == 202.0
    assert agp["n"].sum() == 10
    assert agp.loc[1, ["p5", "p95"]].isna().all()
    assert len(agp_percentiles(t, g, bin_minutes=15)) == 96


@pytest.mark.parametrize(
    ("times", "glucose", "kw"),
    [
        (grid(3), [100.0, 110.0], {}),
        (grid(2), [100.0, float("nan")], {}),
        (grid(2), [100.0, -5.0], {}),
        (["not a time", "x"], [100.0, 100.0], {}),
        (grid(2), [100.0, 100.0], {"min_sufficiency": 1.5}),
        (grid(2), [100.0, 100.0], {"conga_hours": 0}),
    ],
)
def test_bad_input_raises_one_line(times: object, glucose: object, kw: dict[str, Any]) -> None:
    with pytest.raises(WearbenchError) as info:
        cgm_metrics(times, glucose, **kw)
    assert "\n" not in str(info.value)


def test_time_zone_aware_times_use_the_local_wall_clock() -> None:
    t = grid(288, start="2024-01-01 00:00")
    g = np.linspace(80, 200, 288)
    local = agp_percentiles(t.tz_localize("America/New_York"), g)
    assert local.equals(agp_percentiles(t, g))
    aware = cgm_metrics(pd.Series(t.tz_localize("Europe/Berlin")), g).to_dict()
    assert aware == pytest.approx(cgm_metrics(t, g).to_dict(), nan_ok=True)


@pytest.mark.parametrize("width", [0, 7, 2.5])
def test_agp_bad_bins(width: float) -> None:
    with pytest.raises(WearbenchError, match="bin_minutes"):
        agp_percentiles(grid(3), [100.0, 100.0, 100.0], bin_minutes=width)  # type: ignore[arg-type]


def test_import_is_silent() -> None:
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-W", "error", "-c", "import wearbench.cgm.metrics"], capture_output=True, text=True
    )
    assert out.returncode == 0
    assert out.stdout == out.stderr == ""


# --- kernels -------------------------------------------------------------------------------------


@prop
@given(
    st.lists(st.one_of(st.floats(40.0, 400.0), st.just(float("nan"))), min_size=1, max_size=120),
    st.sampled_from([1, 3, 5, 32]),
)
def test_rolling_mean_is_bit_identical_to_pandas(values: list[float], window: int) -> None:
    x = np.asarray(values)
    expected = pd.Series(x).rolling(window, min_periods=1).mean().to_numpy()
    np.testing.assert_array_equal(_kernels.rolling_mean(x, window), expected)


def test_mage_segments_are_weighted_by_duration() -> None:
    # a 100 mg/dL triangle wave for 2 days, a 6 h gap (> 180 min: new segment), 1 day at 50 mg/dL
    k1, k2 = np.arange(577), np.arange(289)
    g1 = np.where((k1 % 48) < 24, 100 + 200 * (k1 % 48) / 48, 300 - 200 * (k1 % 48) / 48)
    g2 = np.where((k2 % 48) < 24, 100 + 100 * (k2 % 48) / 48, 200 - 100 * (k2 % 48) / 48)
    t1 = grid(577)
    t2 = pd.date_range(t1[-1] + pd.Timedelta("6h"), periods=289, freq="5min")
    m = cgm_metrics(np.r_[t1, t2], np.r_[g1, g2])
    assert m.mage == pytest.approx((100 * 576 + 50 * 288) / (576 + 288))
