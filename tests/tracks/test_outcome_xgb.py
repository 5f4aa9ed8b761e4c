"""XGBoost outcome model: signal recovery, train-only FPCA, the Linear fallback, determinism."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from wearbench.minutes import HR
from wearbench.sources import synthesize_minutes
from wearbench.tracks import (
    SYNTHETIC_TASKS,
    XGB_FEATURE_NAMES,
    CurveFPCA,
    auprc,
    fpca_design,
    mean_profiles,
    participant_features,
    read_outcome_results,
    run_predict,
    xgb_fit_predict,
    xgb_window_features,
)
from wearbench.tracks._outcome_run import _predict_all  # the fallback step, on hand-built rows
from wearbench.tracks._outcome_xgb import N_WINDOW_COLUMNS

N_FEAT = 531
DATES = np.arange(np.datetime64("2024-01-01"), np.datetime64("2024-01-04"))


def _participant(level: float, rng: np.random.Generator) -> np.ndarray:
    """3 days, HR only: ``level`` bpm + a daily sine + noise; every other channel unobserved."""
    days = np.full((3, 19, 1440), np.nan, dtype=np.float32)
    t = np.arange(1440)
    days[:, HR, :] = level + 8 * np.sin(2 * np.pi * t / 1440) + rng.normal(0, 2, (3, 1440))
    return days


@pytest.fixture(scope="module")
def cohort() -> tuple[np.ndarray, np.ndarray]:
    """40 participants; their window representations and mean HR levels (bpm)."""
    rng = np.random.default_rng(0)
    levels = rng.uniform(50, 90, 40)
    x = np.stack([xgb_window_features(_participant(v, rng), DATES) for v in levels])
    return x, levels


def test_window_features_layout(cohort: tuple[np.ndarray, np.ndarray]) -> None:
    x, _ = cohort
    assert x.shape == (40, N_WINDOW_COLUMNS) == (40, N_FEAT + 4 * 1440)
    assert len(XGB_FEATURE_NAMES) == N_FEAT + 40
    rng = np.random.default_rng(1)
    days = _participant(60.0, rng)
    one = xgb_window_features(days, DATES)
    assert np.array_equal(one[:N_FEAT], participant_features(days, DATES)[0], equal_nan=True)
    assert np.array_equal(one[N_FEAT:], mean_profiles(days).ravel(), equal_nan=True)


def test_xgboost_recovers_a_function_of_one_feature(cohort: tuple[np.ndarray, np.ndarray]) -> None:
    x, levels = cohort
    tr, te = slice(0, 30), slice(30, 40)
    reg = xgb_fit_predict("regression", x[tr], levels[tr], x[te])
    assert np.corrcoef(reg, levels[te])[0, 1] > 0.98
    y = (levels > 70).astype(float)
    p = xgb_fit_predict("binary", x[tr], y[tr], x[te])
    assert 0 < y[te].sum() < 10
    assert auprc(y[te], p) == 1.0  # every positive ranks above every negative
    cls = np.digitize(levels, [63, 77]).astype(float)  # 3 classes
    c = xgb_fit_predict("multiclass", x[tr], cls[tr], x[te])
    assert (c == cls[te]).mean() >= 0.8
    assert set(np.unique(c)) <= {0.0, 1.0, 2.0}


def test_fpca_fitted_on_train_only(cohort: tuple[np.ndarray, np.ndarray]) -> None:
    x, _ = cohort
    train, test = fpca_design(x[:30], x[30:])
    assert train.shape == (30, N_FEAT + 40)
    assert test.shape == (10, N_FEAT + 40)
    profiles = x[:, N_FEAT:].reshape(-1, 4, 1440)
    ref = CurveFPCA(10).fit(profiles[:30])
    np.testing.assert_array_equal(test[:, N_FEAT:], ref.transform(profiles[30:]))
    odd = x[30:].copy()
    odd[0, N_FEAT:] = np.where(np.isfinite(odd[0, N_FEAT:]), 500.0, np.nan)  # a wild test profile
    train2, test2 = fpca_design(x[:30], odd)
    np.testing.assert_array_equal(train2, train)  # the basis (hence train scores) does not move
    np.testing.assert_array_equal(test2[1:], test[1:])
    assert not np.array_equal(test2[0, N_FEAT:], test[0, N_FEAT:], equal_nan=True)
    with pytest.raises(ValueError, match="xgb_window_features"):
        fpca_design(x[:30, :100], x[30:])


def test_deterministic_for_a_seed_and_any_threads(cohort: tuple[np.ndarray, np.ndarray]) -> None:
    x, levels = cohort
    a = xgb_fit_predict("regression", x[:30], levels[:30], x[30:], seed=3, n_estimators=20)
    b = xgb_fit_predict("regression", x[:30], levels[:30], x[30:], seed=3, n_jobs=2, n_estimators=20)
    assert a.tobytes() == b.tobytes()
    c = xgb_fit_predict("regression", x[:30], levels[:30], x[30:], seed=4, n_estimators=20)
    assert a.tobytes() != c.tobytes()  # subsampling follows the seed


def test_missing_prediction_falls_back_to_linear(cohort: tuple[np.ndarray, np.ndarray]) -> None:
    x, levels = cohort
    rng = np.random.default_rng(2)
    lin = rng.normal(size=(40, 38))
    xx = x.copy()
    xx[35, :N_FEAT] = np.nan  # no usable hand-crafted feature: XGBoost gives no prediction
    rows = {
        side: [(f"u{i:02d}", float(levels[i]), {"linear": lin[i], "xgboost": xx[i]}) for i in idx]
        for side, idx in (("train", range(30)), ("test", range(30, 40)))
    }
    task = {"vo2max": SYNTHETIC_TASKS["vo2max"]}
    records, summary = _predict_all(task, ["linear", "xgboost"], {"vo2max": rows})
    assert summary["fallback"]["xgboost"] == {"n": 1, "rate": 0.1}
    assert summary["fallback"]["linear"] == {"n": 0, "rate": 0.0}
    by = {(r.method, r.participant): r for r in records}
    assert by[("xgboost", "u35")].fallback
    assert by[("xgboost", "u35")].prediction == by[("linear", "u35")].prediction
    assert not by[("xgboost", "u34")].fallback
    assert np.isnan(xgb_fit_predict("binary", x[:1], levels[:1], x[30:])).all()  # < 2 training rows


def test_run_predict_with_xgboost_is_byte_identical(tmp_path: Path) -> None:
    data = synthesize_minutes(12, 8, 0, tmp_path / "minutes")
    tasks = ["sex", "vo2max", "high_ldl"]
    a = run_predict(data, ["linear", "xgboost"], tmp_path / "a", seed=1, tasks=tasks)
    b = run_predict(data, ["linear", "xgboost"], tmp_path / "b", seed=1, tasks=tasks)
    assert (tmp_path / "a" / "predictions.jsonl").read_bytes() == (
        tmp_path / "b" / "predictions.jsonl"
    ).read_bytes()
    assert a["results"]["sha256"] == b["results"]["sha256"]
    assert a["methods"] == ["linear", "xgboost"]
    assert set(a["seconds"]["features_by_stage"]) == {"read", "linear", "xgboost"}
    _, preds = read_outcome_results(tmp_path / "a")
    xgb = [p for p in preds if p.method == "xgboost"]
    assert len(xgb) == sum(a["tasks"][t]["n_test"] for t in tasks) > 0
    assert all(np.isfinite(p.prediction) for p in xgb)
