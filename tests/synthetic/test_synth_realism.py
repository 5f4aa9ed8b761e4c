"""Realism: coherent traits across tables, weekly rhythm, plausible levels and missingness."""

import numpy as np
import pandas as pd
import pytest

from wearbench.cohort import METRIC_NAMES, Cohort
from wearbench.sources.synthetic._config import PERSISTENCE


def user_medians(c: Cohort) -> pd.DataFrame:
    med = c.daily.groupby("user_id").median(numeric_only=True)
    return med.join(c.demographics.set_index("user_id"))


def test_cardio_fitness_follows_age_sex_and_fitness(wide_cohort: Cohort) -> None:
    j = user_medians(wide_cohort)
    assert j["vo2max"].corr(j["age"]) < -0.4
    assert j["resting_hr"].corr(j["vo2max"]) < -0.4
    assert j["hrv"].corr(j["age"]) < -0.4
    assert j["bmi"].corr(j["steps"]) < -0.2
    by_sex = j.groupby("sex")["vo2max"].mean()
    assert 0.75 < by_sex["F"] / by_sex["M"] < 0.92


def test_blood_panel_is_coherent(wide_cohort: Cohort) -> None:
    blood = wide_cohort.blood.groupby("user_id").first().join(wide_cohort.demographics.set_index("user_id"))
    assert blood["hba1c"].corr(blood["bmi"]) > 0.35
    assert blood["triglycerides"].corr(blood["bmi"]) > 0.35
    assert blood["hdl"].corr(blood["bmi"]) < -0.2
    assert blood["egfr"].corr(blood["age"]) < -0.5
    assert blood.groupby("sex")["hdl"].mean().pipe(lambda s: s["F"] > s["M"] + 4)
    assert blood.groupby("sex")["ferritin"].median().pipe(lambda s: s["F"] < s["M"])
    assert blood["hba1c"].between(4.5, 6.5).mean() > 0.85
    friedewald = blood["ldl"] + blood["hdl"] + blood["triglycerides"] / 5
    assert (blood["total_cholesterol"] - friedewald).abs().max() <= 10
    # creatinine is the CKD-EPI 2021 inverse of eGFR (up to rounding)
    male = blood["sex"] == "M"
    kappa, alpha = np.where(male, 0.9, 0.7), np.where(male, -0.302, -0.241)
    ratio = blood["creatinine"] / kappa
    egfr = 142 * np.minimum(ratio, 1) ** alpha * np.maximum(ratio, 1) ** -1.2 * 0.9938 ** blood["age"]
    egfr = egfr * np.where(male, 1.0, 1.012)
    assert (egfr - blood["egfr"]).abs().max() < 4


def test_bmr_is_mifflin_st_jeor(cohort: Cohort) -> None:
    assert cohort.truth is not None
    traits = pd.DataFrame(cohort.truth["traits"]).set_index("user_id")
    j = user_medians(cohort).join(traits[["height_cm", "weight_kg"]])
    msj = 10 * j["weight_kg"] + 6.25 * j["height_cm"] - 5 * j["age"] + np.where(j["sex"] == "M", 5, -161)
    assert ((j["bmr_kcal"] - msj).abs() / msj).max() < 0.04


def test_weekend_rhythm(cohort: Cohort) -> None:
    d = cohort.daily
    weekend = d["date"].dt.day_of_week >= 5
    gap = d.loc[weekend, "sleep_minutes"].mean() - d.loc[~weekend, "sleep_minutes"].mean()
    assert 15 < gap < 60
    stress_gap = d.loc[weekend, "stress"].mean() - d.loc[~weekend, "stress"].mean()
    assert stress_gap < -1


def test_population_levels(wide_cohort: Cohort) -> None:
    med = wide_cohort.daily[list(METRIC_NAMES)].median()
    assert 55 < med["resting_hr"] < 75
    assert 25 < med["hrv"] < 60
    assert 30 < med["vo2max"] < 50
    assert 5_000 < med["steps"] < 11_000
    assert 360 < med["sleep_minutes"] < 510
    assert 82 < med["sleep_efficiency"] < 94
    assert 10 < med["deep_sleep_pct"] < 25
    assert 18 < med["rem_sleep_pct"] < 25
    assert 20 < med["stress"] < 60
    sd = wide_cohort.daily.groupby("user_id")[["resting_hr", "sleep_minutes"]].std().median()
    assert 2 < sd["resting_hr"] < 6
    assert 35 < sd["sleep_minutes"] < 90


def test_missingness_rates(wide_cohort: Cohort) -> None:
    d = wide_cohort.daily
    blank = d[list(METRIC_NAMES)].isna().all(axis=1)
    assert 0.03 < blank.mean() < 0.15
    worn = d[~blank]
    assert 0.04 < worn["sleep_minutes"].isna().mean() < 0.15
    assert 0.10 < worn["vo2max"].notna().mean() < 0.30
    assert 0.02 < worn["stress"].isna().mean() < 0.08
    assert 0.003 < worn["resting_hr"].isna().mean() < 0.03
    assert (worn["steps"].notna()).all()
    nights = worn[worn["sleep_minutes"].notna()]
    assert 0.005 < nights["hrv"].isna().mean() < 0.05
    per_user = blank.groupby(d["user_id"]).mean()
    assert per_user.max() > 2 * per_user.median()  # wear diligence varies between users


def deviation_lag1(c: Cohort, metrics: list[str]) -> pd.DataFrame:
    """Per user, lag-1 autocorrelation of the value minus the user's mean on that weekday.

    A per-weekday profile removes the weekly rhythm without the bias a short rolling mean
    brings (white noise minus its 7-day centred mean has lag-1 autocorrelation -0.19).
    """
    d = c.daily
    keys = [d["user_id"], d["date"].dt.day_of_week]
    dev = d[metrics] - d[metrics].groupby(keys).transform("mean")
    return dev.groupby(d["user_id"]).agg(lambda s: s.autocorr(1))


@pytest.mark.parametrize("name", ["cohort", "wide_cohort"])
def test_day_to_day_persistence(name: str, request: pytest.FixtureRequest) -> None:
    c: Cohort = request.getfixturevalue(name)
    med = deviation_lag1(c, [*PERSISTENCE, "deep_sleep_pct"]).median()
    assert 0.25 <= med["resting_hr"] <= 0.75, med
    assert 0.25 <= med["hrv"] <= 0.75, med
    for m in ("sleep_minutes", "sleep_efficiency", "stress"):
        assert 0.1 <= med[m] <= 0.45, (m, med)
    assert 0.05 <= med["steps"] < med["resting_hr"] - 0.2, med
    assert abs(med["deep_sleep_pct"]) < 0.1, med  # not persistent: stays close to white


def test_persistence_follows_the_users_coefficient(wide_cohort: Cohort) -> None:
    assert wide_cohort.truth is not None
    phi = pd.DataFrame(wide_cohort.truth["traits"]).set_index("user_id")
    ac = deviation_lag1(wide_cohort, list(PERSISTENCE))
    for m, (lo, hi) in PERSISTENCE.items():
        assert phi[f"ar1_{m}"].between(lo, hi).all(), m
    assert ac["resting_hr"].corr(phi["ar1_resting_hr"]) > 0.3
    assert ac["hrv"].corr(phi["ar1_hrv"]) > 0.3


def test_bedtime_regularity_is_a_trailing_statistic(cohort: Cohort) -> None:
    reg = cohort.daily.groupby("user_id")["bedtime_regularity"]
    assert 15 < reg.median().median() < 90
    lag1 = reg.apply(lambda s: s.autocorr(1)).median()
    assert lag1 > 0.5  # a 7-day window makes consecutive days overlap


def test_seasonality_in_steps() -> None:
    from wearbench.sources import synthesize

    c = synthesize(60, 365, seed=4, reference_users=0)
    month = c.daily["date"].dt.month
    south = {r["user_id"] for r in c.truth["traits"] if r["hemisphere"] == "south"} if c.truth else set()
    north = ~c.daily["user_id"].isin(south)
    log_steps = np.log(c.daily["steps"].clip(lower=100))
    summer = log_steps[north & month.isin([6, 7, 8])].mean()
    winter = log_steps[north & month.isin([12, 1, 2])].mean()
    assert summer - winter > 0.08
