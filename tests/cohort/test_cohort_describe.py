"""describe_cohort on the tiny cohort with planted gaps; rendering; published comparison."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest

from wearbench.cohort import (
    METRIC_NAMES,
    PUBLISHED_FIGURES,
    REFERENCE_METRICS,
    Cohort,
    describe_cohort,
    empty_tables,
    published_comparison,
    render_describe,
)


@pytest.fixture
def gappy(cohort: Cohort) -> Cohort:
    """u0001: steps missing on its first 10 days; u0002: the row for 2024-01-20 removed."""
    daily = cohort.daily.copy()
    first10 = daily.index[daily["user_id"] == "u0001"][:10]
    daily.loc[first10, "steps"] = np.nan
    drop = daily.index[(daily["user_id"] == "u0002") & (daily["date"] == pd.Timestamp("2024-01-20"))]
    return replace(cohort, daily=daily.drop(index=drop).reset_index(drop=True))


def test_counts(gappy: Cohort) -> None:
    counts = describe_cohort(gappy)["counts"]
    assert counts["users"] == 3
    assert counts["user_days"] == 119
    assert counts["days_per_user"] == {"min": 39, "median": 40.0, "max": 40}
    assert counts["date_range"] == {"first": "2024-01-01", "last": "2024-02-09"}
    assert (counts["demographics_rows"], counts["blood_draws"]) == (3, 3)


def test_planted_missingness(gappy: Cohort) -> None:
    desc = describe_cohort(gappy)
    assert desc["metrics"]["steps"]["present_share"] == pytest.approx(109 / 119)
    assert desc["metrics"]["hrv"]["present_share"] == 1.0
    missing = desc["missingness"]["missing_share"]
    per_user = [10 / (40 * 16), 16 / (40 * 16), 0.0]  # u0001, u0002 (one whole day), u0003
    assert missing["min"] == 0.0
    assert missing["max"] == pytest.approx(0.025)
    assert missing["p50"] == pytest.approx(0.015625)
    assert missing["mean"] == pytest.approx(np.mean(per_user))
    coverage = desc["missingness"]["calendar_coverage"]
    assert (coverage["min"], coverage["max"]) == (pytest.approx(39 / 40), 1.0)


def test_metric_summaries_match_numpy(gappy: Cohort) -> None:
    desc = describe_cohort(gappy)
    values = gappy.daily["resting_hr"].to_numpy()
    rhr = desc["metrics"]["resting_hr"]
    assert rhr["unit"] == "bpm"
    assert rhr["daily"]["n"] == 119
    assert rhr["daily"]["mean"] == pytest.approx(values.mean())
    assert rhr["daily"]["sd"] == pytest.approx(values.std(ddof=1))
    assert [rhr["daily"][f"p{q}"] for q in (5, 25, 50, 75, 95)] == pytest.approx(
        np.percentile(values, [5, 25, 50, 75, 95])
    )
    means = gappy.daily.groupby("user_id")["resting_hr"].mean()
    assert rhr["user_means"]["mean"] == pytest.approx(means.mean())
    assert rhr["user_means"]["min"] == pytest.approx(means.min())
    steps = gappy.daily["steps"].dropna().to_numpy()
    assert desc["metrics"]["steps"]["daily"]["mean"] == pytest.approx(steps.mean())


def test_correlations(gappy: Cohort) -> None:
    corr = describe_cohort(gappy)["correlations"]
    names = corr["metrics"]
    assert names == list(METRIC_NAMES)
    pooled = np.array(corr["pooled"], dtype=float)
    assert np.allclose(np.diag(pooled), 1.0)
    assert np.allclose(pooled, pooled.T, equal_nan=True)
    i, j = names.index("steps"), names.index("active_kcal")
    assert pooled[i, j] > 0.95  # active_kcal is built from steps
    assert pooled[i, j] == pytest.approx(gappy.daily["steps"].corr(gappy.daily["active_kcal"]))
    per_user = [g["steps"].corr(g["active_kcal"]) for _, g in gappy.daily.groupby("user_id")]
    assert corr["within_user_median"][i][j] == pytest.approx(np.median(per_user))
    assert corr["users"] == 3


def test_demographics_and_blood(gappy: Cohort) -> None:
    desc = describe_cohort(gappy)
    demo = desc["demographics"]
    assert demo["sex"] == {"F": 2, "M": 1}
    assert demo["ethnicity"] == {"asian": 1, "black": 1, "white": 1}
    assert demo["age"]["p50"] == 35.0
    blood = desc["blood"]
    assert (blood["draws"], blood["users"]) == (3, 3)
    assert blood["biomarkers"]["ldl"]["unit"] == "mg/dL"
    homa = gappy.blood["fasting_glucose"] * gappy.blood["insulin"] / 405
    assert blood["homa_ir"]["p50"] == pytest.approx(float(np.median(homa)))
    assert set(desc["age_association"]) == set(REFERENCE_METRICS)


def test_describe_is_json_ready(gappy: Cohort) -> None:
    desc = describe_cohort(gappy)
    assert json.loads(json.dumps(desc, allow_nan=False)) == desc


def test_describe_empty_cohort() -> None:
    daily, demo, blood, ref = empty_tables()
    desc = describe_cohort(Cohort(daily, demo, blood, ref))
    assert desc["counts"]["users"] == 0
    assert desc["metrics"]["steps"]["present_share"] is None
    json.dumps(desc, allow_nan=False)
    assert "Daily metrics" in render_describe(desc)


def test_render(gappy: Cohort) -> None:
    text = render_describe(describe_cohort(gappy))
    for needle in ("3 users", "119 user-days", "resting_hr", "exercise_avg_hr", "Blood panel", "homa_ir"):
        assert needle in text
    assert "\x1b[" not in text  # no colour codes


def test_published_comparison(gappy: Cohort) -> None:
    desc = describe_cohort(gappy)
    rows = published_comparison(desc)
    assert [r["key"] for r in rows] == [f.key for f in PUBLISHED_FIGURES]
    by_key = {r["key"]: r for r in rows}
    steps = by_key["steps_worldwide_mean"]
    assert steps["published"] == 4961.0
    assert steps["ratio"] == pytest.approx(desc["metrics"]["steps"]["user_means"]["mean"] / 4961.0)
    sleep = by_key["sleep_recommended_adults"]
    assert sleep["agrees"] is (420 <= desc["metrics"]["sleep_minutes"]["user_means"]["p50"] <= 540)
    assert by_key["rhr_mean_wearable"]["doi"] == "10.1371/journal.pone.0227709"
    assert all(r["citation"] and r["doi"] for r in rows)
    json.dumps(rows, allow_nan=False)


def test_published_rows_say_which_statistic_and_carry_the_caveat(gappy: Cohort) -> None:
    from wearbench.cohort import PUBLISHED_CAVEAT, PUBLISHED_HEADER, published_table_rows

    desc = describe_cohort(gappy)
    rows = {r[0]: dict(zip(PUBLISHED_HEADER, r, strict=True)) for r in published_table_rows(desc)}
    steps = rows["mean daily steps (worldwide smartphone users) (steps/day)"]
    ours = desc["metrics"]["steps"]["user_means"]["mean"]
    assert steps["this cohort"] == f"{ours:,.1f}"
    assert steps["statistic"] == "mean of per-user means"
    assert steps["published"] == "4,961.0"
    assert steps["caveat"].startswith(
        f"this cohort is {ours / 4961.0:.2f}× the published mean; another population"
    )
    assert "wrist-worn counts are expected to run higher" in steps["caveat"]
    sleep = rows["recommended sleep duration, adults 18-64 years (min)"]
    assert sleep["statistic"] == "median of per-user means"
    text = render_describe(desc, width=200)
    assert "Caveat: A sanity check on scale and direction, not a validation" in text
    assert "user-day mean" in text
    assert "P50 of per-user means" in text
    assert "not the mean over all user-days" in PUBLISHED_CAVEAT
