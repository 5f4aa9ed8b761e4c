"""Output tables follow the canonical model; truth is sorted, JSON-ready and consistent."""

import itertools
import json

import numpy as np
import pandas as pd
import pytest

from wearbench.cohort import (
    ALL_PERCENTILES,
    BIOMARKER_NAMES,
    BIOMARKERS,
    DEMOGRAPHIC_COLUMNS,
    ETHNICITIES,
    EXTRA_PERCENTILES,
    METRIC_NAMES,
    METRICS,
    PERCENTILES,
    REFERENCE_METRICS,
    SEXES,
    Cohort,
    reference_percentiles,
    validate_cohort,
)
from wearbench.sources.synthetic import DEFINITIONAL, MENU
from wearbench.sources.synthetic._chunk import demographics_frame, generate_chunk, user_ids
from wearbench.sources.synthetic._daily import calendar
from wearbench.sources.synthetic._streams import Population


def test_daily_layout(cohort: Cohort, small_args: dict[str, int]) -> None:
    d = cohort.daily
    assert list(d.columns) == ["user_id", "date", *METRIC_NAMES]
    assert d.shape[0] == small_args["n_users"] * small_args["n_days"]
    assert pd.api.types.is_string_dtype(d["user_id"])
    assert pd.api.types.is_datetime64_dtype(d["date"])
    assert (d["date"] == d["date"].dt.normalize()).all()
    assert all(d[m].dtype == np.float64 for m in METRIC_NAMES)
    assert cohort.user_ids == [f"u{i:04d}" for i in range(1, 41)]
    assert d.equals(d.sort_values(["user_id", "date"], ignore_index=True))
    assert not d.duplicated(["user_id", "date"]).any()


def test_values_inside_schema_ranges(cohort: Cohort) -> None:
    d = cohort.daily
    for m in METRICS:
        col = d[m.name].dropna()
        assert col.between(m.lo, m.hi).all(), m.name
        if m.integer:
            assert (col == np.round(col)).all(), m.name
    assert (d["deep_sleep_pct"] + d["rem_sleep_pct"]).max() < 100


def test_exercise_and_sleep_consistency(cohort: Cohort) -> None:
    d = cohort.daily
    none = d["exercise_count"] == 0
    assert (d.loc[none, ["exercise_minutes", "mets"]] == 0).all().all()
    assert d.loc[none, "exercise_avg_hr"].isna().all()
    some = d["exercise_count"] > 0
    assert d.loc[some, "exercise_avg_hr"].notna().all()
    assert (d.loc[some, "exercise_minutes"] > 0).all()
    sleepless = d["sleep_minutes"].isna()
    assert d.loc[sleepless, ["bedtime_regularity", "deep_sleep_pct", "hrv"]].isna().all().all()


def test_non_wear_days_match_truth(cohort: Cohort) -> None:
    assert cohort.truth is not None
    blank = cohort.daily[list(METRIC_NAMES)].isna().all(axis=1).groupby(cohort.daily["user_id"]).sum()
    assert blank.to_dict() == cohort.truth["non_wear_days"]
    assert list(cohort.truth["non_wear_days"]) == cohort.user_ids


def test_demographics(cohort: Cohort) -> None:
    demo = cohort.demographics
    assert list(demo.columns) == ["user_id", *DEMOGRAPHIC_COLUMNS]
    assert demo["user_id"].tolist() == cohort.user_ids
    assert demo["age"].between(18, 80).all()
    assert (demo["age"] == np.round(demo["age"])).all()
    assert demo["sex"].isin(SEXES).all()
    assert demo["ethnicity"].isin(ETHNICITIES).all()
    assert demo["bmi"].between(16, 56).all()


def test_blood(cohort: Cohort) -> None:
    blood = cohort.blood
    assert list(blood.columns) == ["user_id", "draw_date", *BIOMARKER_NAMES]
    draws = blood.groupby("user_id").size()
    assert sorted(draws.index) == cohort.user_ids
    assert draws.between(1, 2).all()
    lo, hi = cohort.daily["date"].min(), cohort.daily["date"].max()
    assert blood["draw_date"].between(lo, hi).all()
    for b in BIOMARKERS:
        assert blood[b.name].between(b.lo, b.hi).all(), b.name
    assert blood.equals(blood.sort_values(["user_id", "draw_date"], ignore_index=True))


def test_reference_table(cohort: Cohort) -> None:
    ref = cohort.reference
    extra = [f"p{p}" for p in EXTRA_PERCENTILES]
    assert list(ref.columns) == [
        "metric",
        "age_band",
        "sex",
        "n_users",
        *[f"p{p}" for p in PERCENTILES],
        *extra,
        "mean",
        "sd",
    ]
    assert set(ref["metric"]) == {*REFERENCE_METRICS, "vo2max"}
    assert (ref["n_users"] > 0).all()
    pct = ref[[f"p{p}" for p in ALL_PERCENTILES]].to_numpy()
    assert (np.diff(pct, axis=1) >= 0).all()


def test_reference_equals_full_table_computation(cohort: Cohort, small_args: dict[str, int]) -> None:
    """Per-chunk median reduction gives exactly what the full daily table would give."""
    n, days = small_args["reference_users"], small_args["reference_days"]
    cal = calendar(np.datetime64("2024-01-01"), days)
    ids = user_ids("r", 0, n, n)
    chunk = generate_chunk(small_args["seed"], Population.REFERENCE, ids, 0, cal)
    daily = pd.DataFrame({"user_id": np.repeat(ids, days)})
    for m in (*REFERENCE_METRICS, "vo2max"):
        daily[m] = chunk.recording.values[m].ravel()
    demo = demographics_frame(ids, chunk.person)
    core = reference_percentiles(daily, demo, metrics=REFERENCE_METRICS, min_days=14)
    vo2 = reference_percentiles(daily, demo, metrics=("vo2max",), min_days=4)  # sparse estimates
    full = pd.concat([core, vo2]).sort_values(["metric", "age_band", "sex"], kind="stable", ignore_index=True)
    pd.testing.assert_frame_equal(full, cohort.reference, check_exact=False, rtol=1e-12)


def test_cohort_passes_validation(cohort: Cohort) -> None:
    assert validate_cohort(cohort).ok


def test_truth_is_json_sorted_and_complete(cohort: Cohort) -> None:
    truth = cohort.truth
    assert truth is not None
    assert json.loads(json.dumps(truth)) == truth
    assert truth["generator"] == {"name": "synthetic", "version": 2, **cohort.source["params"]}
    assert [r["user_id"] for r in truth["traits"]] == cohort.user_ids
    for key, fields in {
        "episodes": ("user_id", "start"),
        "couplings": ("user_id", "driver", "response"),
        "device_changes": ("user_id",),
        "training_blocks": ("user_id", "start"),
    }.items():
        keys = [tuple(r[f] for f in fields) for r in truth[key]]
        assert keys == sorted(keys), key
    assert {e["kind"] for e in truth["episodes"]} == {"illness", "stress", "travel", "injury"}


def test_episodes_are_separated_and_late_enough(cohort: Cohort) -> None:
    assert cohort.truth is not None
    start = pd.Timestamp("2024-01-01")
    durations = {"illness": (3, 10), "stress": (14, 28), "travel": (3, 10), "injury": (14, 42)}
    by_user: dict[str, list[tuple[pd.Timestamp, pd.Timestamp]]] = {}
    for e in cohort.truth["episodes"]:
        a, b = pd.Timestamp(e["start"]), pd.Timestamp(e["end"])
        assert (a - start).days >= 35
        lo, hi = durations[e["kind"]]
        assert lo <= (b - a).days + 1 <= hi
        by_user.setdefault(e["user_id"], []).append((a, b))
    for spans in by_user.values():
        for (_, end), (nxt, _) in itertools.pairwise(spans):
            assert (nxt - end).days > 28
    counts = pd.Series({u: len(v) for u, v in by_user.items()})
    assert counts.max() <= 4


def test_couplings_follow_the_rules(cohort: Cohort) -> None:
    assert cohort.truth is not None
    rows = pd.DataFrame(cohort.truth["couplings"])
    menu = {(e.driver, e.response): e for e in MENU}
    for uid, user in rows.groupby("user_id"):
        definitional = user[user["kind"] == "definitional"]
        assert sorted(zip(definitional["driver"], definitional["response"], strict=True)) == sorted(
            DEFINITIONAL
        )
        emp = user[user["kind"] == "empirical"]
        assert 2 <= len(emp) <= 4, uid
        assert emp["response"].is_unique
        drivers = {"exercise_minutes" if d == "mets" else d for d in emp["driver"]}
        assert not drivers & set(emp["response"])
        for c in emp.itertuples():
            edge = menu[(c.driver, c.response)]
            assert c.lag_days in edge.lags
            assert c.sign == edge.sign
            assert 0.5 <= c.beta <= 0.8


def test_device_changes_inside_record(cohort: Cohort) -> None:
    assert cohort.truth is not None
    changes = cohort.truth["device_changes"]
    assert changes, "expected some device changes among 40 users x 200 days"
    for c in changes:
        assert pd.Timestamp("2024-01-01") < pd.Timestamp(c["date"]) <= cohort.daily["date"].max()
        assert c["metrics"] == ["active_kcal", "hrv", "steps"]
        assert c["steps_scale"] != 1.0


@pytest.mark.parametrize("table", ["daily", "demographics", "blood"])
def test_no_missing_keys(cohort: Cohort, table: str) -> None:
    frame = getattr(cohort, table)
    assert frame["user_id"].notna().all()
