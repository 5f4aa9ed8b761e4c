"""What was planted can be found: illness excursions, episodes, trends and coupling lags."""

import numpy as np
import pandas as pd
import pytest

from wearbench.cohort import Cohort
from wearbench.primitives import lagged_correlation


def series(c: Cohort, user_id: str, metric: str) -> pd.Series:
    rows = c.daily[c.daily["user_id"] == user_id]
    return pd.Series(rows[metric].to_numpy(), index=pd.DatetimeIndex(rows["date"]))


def episodes(c: Cohort, kind: str) -> list[dict[str, str]]:
    assert c.truth is not None
    return [e for e in c.truth["episodes"] if e["kind"] == kind]


def test_every_illness_clears_1_5_sd_over_trailing_28_day_mean(cohort: Cohort) -> None:
    ill = episodes(cohort, "illness")
    assert len(ill) >= 15
    for e in ill:
        rhr = series(cohort, e["user_id"], "resting_hr")
        mean = rhr.rolling(28, min_periods=14).mean().shift(1)
        sd = rhr.rolling(28, min_periods=14).std().shift(1)
        window = slice(e["start"], e["end"])
        assert (rhr[window] >= mean[window] + 1.5 * sd[window]).any(), e


def _episode_effect(c: Cohort, kind: str, metric: str) -> float:
    """Median over episodes of (mean during episode - mean of the 28 days before)."""
    diffs = []
    for e in episodes(c, kind):
        s = series(c, e["user_id"], metric)
        start = pd.Timestamp(e["start"])
        before = s[start - pd.Timedelta(days=28) : start - pd.Timedelta(days=1)]
        diffs.append(s[e["start"] : e["end"]].mean() - before.mean())
    return float(np.nanmedian(diffs))


@pytest.mark.parametrize(
    ("kind", "metric", "lo", "hi"),
    [
        ("illness", "hrv", -np.inf, -3),
        ("illness", "sleep_minutes", 25, np.inf),
        ("illness", "stress", 5, np.inf),
        ("stress", "stress", 8, np.inf),
        ("stress", "sleep_efficiency", -np.inf, -2),
        ("travel", "bedtime_regularity", 15, np.inf),
        ("injury", "exercise_minutes", -np.inf, -3),
        ("injury", "steps", -np.inf, -1500),
    ],
)
def test_episode_co_signals(cohort: Cohort, kind: str, metric: str, lo: float, hi: float) -> None:
    assert lo < _episode_effect(cohort, kind, metric) < hi


def test_training_raises_vo2max(cohort: Cohort) -> None:
    assert cohort.truth is not None
    gains = []
    for b in cohort.truth["training_blocks"]:
        vo2 = series(cohort, b["user_id"], "vo2max")
        start, end = pd.Timestamp(b["start"]), pd.Timestamp(b["end"])
        before = vo2[start - pd.Timedelta(days=30) : start].mean()
        late = vo2[end - pd.Timedelta(days=20) : end].mean()
        gains.append(late - before)
    assert len(gains) >= 5
    assert np.nanmedian(gains) > 1.0


def _recovered(c: Cohort) -> pd.DataFrame:
    assert c.truth is not None
    rows = []
    for p in c.truth["couplings"]:
        if p["kind"] != "empirical":
            continue
        x = series(c, p["user_id"], p["driver"])
        y = series(c, p["user_id"], p["response"])
        res = lagged_correlation(x.to_numpy(), y.to_numpy(), max_lag=3, method="pearson", min_overlap=14)
        shifted = {lag: x.corr(y.shift(-lag)) for lag in range(-3, 4)}
        r = dict(zip(res.lags.tolist(), res.r.tolist(), strict=True))
        rows.append(
            {
                "ok": res.best_lag == p["lag_days"] and np.sign(res.best_r) == p["sign"],
                "r": abs(res.best_r),
                "pandas_lag": max(shifted, key=lambda k: abs(shifted[k])),
                "lag": p["lag_days"],
                "response": p["response"],
                "after": r.get(p["lag_days"] + 1, np.nan) / r[p["lag_days"]],  # NaN for lag 3
            }
        )
    return pd.DataFrame(rows)


def test_planted_lags_are_recovered(cohort: Cohort) -> None:
    rec = _recovered(cohort)
    assert len(rec) >= 80
    assert rec["ok"].mean() >= 0.9
    assert (rec["pandas_lag"] == rec["lag"]).mean() >= 0.9  # plain pandas shift-correlation agrees
    assert 0.4 <= rec["r"].median() <= 0.7  # plausible strength, not near-deterministic
    assert rec["r"].max() < 0.9


def test_persistent_responses_carry_the_effect_past_the_lag(cohort: Cohort) -> None:
    """The effect enters the response's AR(1) state: r decays after the lag instead of vanishing."""
    after = _recovered(cohort).groupby("response")["after"].median()
    assert 0.3 < after["resting_hr"] < 0.9
    assert 0.3 < after["hrv"] < 0.9
    assert abs(after["deep_sleep_pct"]) < 0.2  # no persistence: the effect is gone a day later


def test_drivers_are_at_most_moderately_persistent(cohort: Cohort) -> None:
    """Drivers' innovations are white; their series carry over a little (exercise: not at all)."""
    ac = cohort.daily.groupby("user_id")[
        ["steps", "sleep_minutes", "stress", "sleep_efficiency", "exercise_minutes", "mets"]
    ].agg(lambda s: s.autocorr(1))
    med = ac.median()
    assert (med[["steps", "sleep_minutes", "stress", "sleep_efficiency"]] < 0.4).all(), med
    assert (med[["exercise_minutes", "mets"]].abs() < 0.1).all(), med


def test_device_change_shifts_hrv(cohort: Cohort) -> None:
    assert cohort.truth is not None
    changes = cohort.truth["device_changes"]
    agree = []
    for c in changes:
        hrv = series(cohort, c["user_id"], "hrv")
        day = pd.Timestamp(c["date"])
        after = hrv[day : day + pd.Timedelta(days=59)].median()
        before = hrv[day - pd.Timedelta(days=60) : day - pd.Timedelta(days=1)].median()
        agree.append(np.sign(after - before) == np.sign(c["hrv_offset_ms"]))
        assert 0.8 < c["steps_scale"] < 1.2
        assert abs(np.log(c["steps_scale"])) >= 0.049
    assert len(agree) >= 4
    assert np.mean(agree) >= 0.8
