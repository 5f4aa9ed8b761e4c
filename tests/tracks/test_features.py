"""Hand-computed checks of the outcome track's XGBoost features: cosinor, dynamics, tiny cases."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from wearbench.tracks import (
    DESCRIPTOR_NAMES,
    DYNAMIC_METRICS,
    DYNAMICS_NAMES,
    FEATURE_FAMILIES,
    FEATURE_NAMES,
    N_FEATURES,
    CurveFPCA,
    aggregate_days,
    arima210,
    calendar_grid,
    cosinor,
    daily_descriptors,
    dynamics_features,
    feature_matrix,
    fpca_names,
    mean_profiles,
    participant_features,
    rowwise_corr,
    trend_slope,
)

MIN = np.arange(1440, dtype=np.float64)


def _empty(n: int) -> np.ndarray:
    return np.full((n, 19, 1440), np.nan, dtype=np.float32)


def _dates(offsets: list[int]) -> np.ndarray:
    return np.datetime64("2024-03-01") + np.array(offsets, dtype="timedelta64[D]")


def _feat(values: np.ndarray, name: str) -> float:
    return float(values[FEATURE_NAMES.index(name)])


def test_feature_count_and_names_are_fixed() -> None:
    assert N_FEATURES == 531
    assert {k: len(v) for k, v in FEATURE_FAMILIES.items()} == {"daily": 252, "dynamics": 266, "curve": 13}
    assert len(set(FEATURE_NAMES)) == N_FEATURES
    assert len(DESCRIPTOR_NAMES) == 63
    assert len(DYNAMIC_METRICS) == 14
    assert FEATURE_NAMES[:4] == (
        "day_phone_steps_total_p5",
        "day_phone_steps_total_median",
        "day_phone_steps_total_p95",
        "day_phone_steps_total_iqr",
    )


def test_cosinor_recovers_a_pure_cosine() -> None:
    y = 70.0 + 10.0 * np.cos(2 * np.pi * (MIN - 15 * 60) / 1440)  # peak at 15:00
    fit = cosinor(MIN, y)
    assert fit.mesor == pytest.approx(70.0, abs=1e-9)
    assert fit.amplitude == pytest.approx(10.0, abs=1e-9)
    assert fit.acrophase_h == pytest.approx(15.0, abs=1e-9)
    assert fit.r2 == pytest.approx(1.0, abs=1e-12)
    assert fit.p_value == 0.0
    assert fit.amp_over_mesor == pytest.approx(1 / 7, abs=1e-12)
    assert fit.n_minutes == 1440
    # Half the minutes missing (the night): the same curve, 720 fitted minutes.
    y2 = y.copy()
    y2[:720] = np.nan
    fit2 = cosinor(MIN, y2)
    assert (fit2.mesor, fit2.amplitude, fit2.acrophase_h) == pytest.approx((70.0, 10.0, 15.0), abs=1e-9)
    assert fit2.n_minutes == 720
    # Peak at 22:30 -> acrophase 22.5 h (atan2 wraps into [0, 24)).
    assert cosinor(MIN, 60 + 5 * np.cos(2 * np.pi * (MIN - 1350) / 1440)).acrophase_h == pytest.approx(22.5)


def test_cosinor_p_value_is_the_f_test_of_ols() -> None:
    rng = np.random.default_rng(3)
    t = np.arange(0, 1440, 10, dtype=np.float64)
    y = 65 + 2 * np.sin(2 * np.pi * t / 1440) + rng.normal(0, 4, t.size)
    fit = cosinor(t, y)
    design = np.stack([np.ones_like(t), np.cos(2 * np.pi * t / 1440), np.sin(2 * np.pi * t / 1440)], 1)
    coef = np.linalg.lstsq(design, y, rcond=None)[0]
    sse = float(((y - design @ coef) ** 2).sum())
    sst = float(((y - y.mean()) ** 2).sum())
    f = ((sst - sse) / 2) / (sse / (t.size - 3))
    assert fit.r2 == pytest.approx(1 - sse / sst)
    assert fit.p_value == pytest.approx(float(stats.f.sf(f, 2, t.size - 3)))
    assert 0 < fit.p_value < 1


def test_cosinor_too_few_minutes_and_constant() -> None:
    y = np.full(1440, np.nan)
    y[:59] = 70.0
    fit = cosinor(MIN, y)
    assert fit.n_minutes == 59
    assert all(math.isnan(v) for v in fit.values()[:6])
    flat = cosinor(MIN, np.full(1440, 60.0))
    assert flat.mesor == pytest.approx(60.0)
    assert flat.amplitude == pytest.approx(0.0, abs=1e-9)
    assert math.isnan(flat.r2)
    assert math.isnan(flat.p_value)


def _steps_days(totals: list[float]) -> np.ndarray:
    """Days whose watch steps total ``totals[i]`` (all in minute 600, other minutes 0)."""
    d = _empty(len(totals))
    d[:, 3, :] = 0.0
    d[:, 3, 600] = totals
    return d


def test_linear_trend_of_daily_steps_gives_its_slope_on_calendar_days() -> None:
    off = [0, 1, 2, 4, 5, 7]  # gaps on calendar days 3 and 6
    totals = [1000.0 + 100.0 * k for k in off]
    v, names = participant_features(_steps_days(totals), _dates(off))
    assert names == list(FEATURE_NAMES)
    assert _feat(v, "dyn_watch_steps_total_slope_per_day") == pytest.approx(100.0)
    assert _feat(v, "dyn_watch_steps_total_n_days") == 6
    assert _feat(v, "dyn_watch_steps_total_mean") == pytest.approx(np.mean(totals))
    # Differences only across consecutive calendar days: (0,1), (1,2), (4,5) -> all +100.
    assert _feat(v, "dyn_watch_steps_total_diff_mean_abs") == pytest.approx(100.0)
    assert _feat(v, "dyn_watch_steps_total_diff_sd") == pytest.approx(0.0)
    assert _feat(v, "dyn_watch_steps_total_cv") == pytest.approx(np.std(totals, ddof=1) / np.mean(totals))
    assert _feat(v, "day_watch_steps_total_median") == pytest.approx(np.median(totals))
    assert math.isnan(_feat(v, "dyn_watch_steps_total_arima_ar1"))  # < 15 days


def test_alternating_series_has_lag1_autocorrelation_minus_one() -> None:
    totals = [1000.0, 3000.0] * 4
    v, _ = participant_features(_steps_days(totals), _dates(list(range(8))))
    assert _feat(v, "dyn_watch_steps_total_ac1") == pytest.approx(-1.0)
    # The same values with a one-day gap between each pair: no lag-1 pairs inside a gap.
    g = calendar_grid(np.array([[1.0], [3.0], [1.0], [3.0], [5.0], [2.0]]), _dates([0, 1, 3, 4, 6, 7]))
    assert g.shape == (1, 8)
    # Calendar lag-1 pairs are (1,3), (1,3), (5,2) only: y = 3.25 - x / 4 exactly, so -1; the
    # sequence ignoring the gaps would pair (3,1), (3,5) too and give about -0.24.
    assert rowwise_corr(g[:, :-1], g[:, 1:])[0] == pytest.approx(-1.0)
    seq = np.array([[1.0, 3.0, 1.0, 3.0, 5.0, 2.0]])
    assert rowwise_corr(seq[:, :-1], seq[:, 1:])[0] == pytest.approx(-0.2417, abs=1e-4)
    assert math.isnan(rowwise_corr(np.array([[1.0, 2.0]]), np.array([[2.0, 4.0]]))[0])  # < 3 pairs


def test_cross_correlation_at_lag_one_of_a_shifted_series() -> None:
    rng = np.random.default_rng(0)
    a = rng.normal(size=21)
    desc = np.full((20, len(DESCRIPTOR_NAMES)), np.nan)
    desc[:, DESCRIPTOR_NAMES.index("watch_steps_total")] = a[1:]  # a_t
    desc[:, DESCRIPTOR_NAMES.index("active_energy_total")] = a[:-1]  # b_{t+1} = a_t
    dyn = dynamics_features(desc, _dates(list(range(20))))

    lag = {
        k: dyn[DYNAMICS_NAMES.index(f"xcorr_watch_steps_total__active_energy_total_lag{k}")]
        for k in (0, 1, 2)
    }
    assert lag[1] == pytest.approx(1.0)
    assert abs(lag[0]) < 0.9
    assert abs(lag[2]) < 0.9
    assert math.isnan(dyn[DYNAMICS_NAMES.index("xcorr_hr_p50__asleep_min_lag0")])


def test_trend_slope_and_arima_against_statsmodels() -> None:
    assert trend_slope(np.array([[1.0, np.nan, 5.0, 7.0]]))[0] == pytest.approx(2.0)
    rng = np.random.default_rng(1)
    x = np.cumsum(rng.normal(size=60))
    autoreg = pytest.importorskip("statsmodels.tsa.ar_model").AutoReg
    ref = autoreg(np.diff(x), lags=2, trend="n").fit()
    got = arima210(x)
    assert got[:2] == pytest.approx(ref.params, abs=1e-10)
    assert got[2] == pytest.approx(ref.sigma2, rel=1e-10)
    assert np.isnan(arima210(x[:14])).all()


def test_day_descriptors_by_hand() -> None:
    d = _empty(1)
    d[0, 3, :] = 0.0
    d[0, 3, 600:610] = 30.0  # light
    d[0, 3, 610:615] = 80.0  # moderate
    d[0, 3, 615:617] = 120.0  # vigorous
    d[0, 5, 600:617] = 100.0
    d[0, 5, 0:60] = 50.0
    d[0, 7, :] = 0.0
    d[0, 7, 0:420] = 1.0  # asleep 00:00-07:00
    d[0, 7, 1380:] = 1.0  # and from 23:00
    d[0, 8, :] = 0.0
    d[0, 8, 0:480] = 1.0
    d[0, 8, 1320:] = 1.0
    d[0, 11, 600:617] = 1.0  # running
    row = dict(zip(DESCRIPTOR_NAMES, daily_descriptors(d)[0], strict=True))
    assert row["watch_steps_total"] == 10 * 30 + 5 * 80 + 2 * 120
    assert (row["sedentary_min"], row["light_min"], row["moderate_min"], row["vigorous_min"]) == (
        1423,
        10,
        5,
        2,
    )
    assert row["active_min"] == 7
    assert row["hr_steps_mean"] == 100.0
    assert row["hr_night_mean"] == 50.0
    assert row["hr_observed_min"] == 77
    assert row["hr_asleep_mean"] == 50.0
    assert (row["asleep_min"], row["inbed_min"]) == (480, 600)
    assert row["sleep_efficiency"] == pytest.approx(0.8)
    assert (row["sleep_onset_h"], row["sleep_offset_h"]) == (-1.0, pytest.approx(419 / 60))
    assert row["sleep_bouts"] == 2  # the two nights' pieces
    assert row["workout_running_min"] == 17
    assert row["workout_total_min"] == 17
    assert row["workout_sessions"] == 1
    assert np.isnan(row["phone_steps_total"])


def test_aggregation_over_days_by_hand() -> None:
    col = np.array([[1.0], [2.0], [3.0], [4.0], [np.nan], [5.0]])
    p5, med, p95, iqr = aggregate_days(col)
    assert (p5, med, p95, iqr) == pytest.approx((1.2, 3.0, 4.8, 2.0))


def test_tiny_cases_keep_every_feature() -> None:
    v0, _ = participant_features(_empty(0), _dates([]))
    assert v0.shape == (N_FEATURES,)
    assert _feat(v0, "dyn_hr_p50_n_days") == 0
    assert _feat(v0, "hr_cosinor_n_minutes") == 0
    one = _steps_days([5000.0])
    v1, _ = participant_features(one, _dates([0]))
    assert _feat(v1, "day_watch_steps_total_iqr") == 0.0
    assert _feat(v1, "dyn_watch_steps_total_mean") == 5000.0
    assert math.isnan(_feat(v1, "dyn_watch_steps_total_sd"))
    assert math.isnan(_feat(v1, "dyn_watch_steps_total_ac1"))
    assert math.isnan(_feat(v1, "hr_cosinor_mesor"))
    assert math.isnan(_feat(v1, "day_hr_mean_median"))
    with pytest.raises(ValueError, match="strictly increasing"):
        participant_features(_steps_days([1.0, 2.0]), _dates([1, 1]))
    with pytest.raises(ValueError, match="dates must have shape"):
        participant_features(one, _dates([0, 1]))
    x, names = feature_matrix([(one, _dates([0])), (_empty(0), _dates([]))])
    assert x.shape == (2, N_FEATURES)
    assert names == list(FEATURE_NAMES)


def test_cosinor_inside_participant_features() -> None:
    d = _empty(3)
    d[:, 5, :] = (72 + 8 * np.cos(2 * np.pi * (MIN - 16 * 60) / 1440)).astype(np.float32)
    v, _ = participant_features(d, _dates([0, 1, 5]))
    assert _feat(v, "hr_cosinor_mesor") == pytest.approx(72.0, abs=1e-3)
    assert _feat(v, "hr_cosinor_amplitude") == pytest.approx(8.0, abs=1e-3)
    assert _feat(v, "hr_cosinor_acrophase_h") == pytest.approx(16.0, abs=1e-3)
    assert _feat(v, "hr_cosinor_r2") == pytest.approx(1.0, abs=1e-9)


def test_curve_fpca_fit_transform() -> None:
    shape = np.sin(2 * np.pi * MIN / 1440)
    days = [_empty(2) for _ in range(4)]
    for k, d in enumerate(days):
        d[:, [3, 5, 6, 7], :] = (10 + k * shape).astype(np.float32)
    prof = np.stack([mean_profiles(d) for d in days])
    assert prof.shape == (4, 4, 1440)
    fp = CurveFPCA(n_components=2).fit(prof)
    scores = fp.transform(np.concatenate([prof, mean_profiles(_empty(1))[None]]))
    assert scores.shape == (5, 8)
    assert len(fpca_names(2)) == 8
    pc1 = scores[:4, 0] * np.sign(scores[3, 0] - scores[0, 0])
    assert np.all(np.diff(pc1) > 0)  # ordered by k
    assert np.diff(pc1) == pytest.approx(np.full(3, np.diff(pc1)[0]))  # equally spaced
    assert np.isnan(scores[:4, 1]).all()  # rank 1: second component not identified
    assert np.isnan(scores[4]).all()  # no data -> NaN
