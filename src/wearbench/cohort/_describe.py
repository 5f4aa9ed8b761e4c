"""Describe a cohort: counts, metric distributions, missingness, correlations, demographics, blood.

Everything returned is JSON-ready (plain ``int``/``float``/``str``/``None``; NaN becomes
``None``). Units are the canonical ones of :mod:`wearbench.cohort._schema`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from wearbench.cohort._cohort import Cohort
from wearbench.cohort._schema import BIOMARKERS, METRICS, REFERENCE_METRICS

#: Percentiles reported for every distribution.
QUANTILES: tuple[int, ...] = (5, 25, 50, 75, 95)
#: Fewest joint days for a within-user correlation.
MIN_USER_DAYS = 10


def describe_cohort(cohort: Cohort) -> dict[str, Any]:
    """Summarise a cohort for people and reports.

    Returns:
        A JSON-ready dict with keys:

        - ``counts``: ``users``, ``user_days``, ``days_per_user`` (min/median/max),
          ``date_range`` (first/last ISO day), ``demographics_rows``, ``blood_draws``,
          ``reference_rows``.
        - ``metrics``: per metric ``unit``, ``present_share`` (non-missing share of the
          user-day rows), ``daily`` (``n, mean, sd, p5, p25, p50, p75, p95`` of daily values,
          in the metric's unit) and ``user_means`` (the same plus ``min``/``max`` over
          per-user means).
        - ``missingness``: distributions over users of ``missing_share`` (missing metric
          values over the user's calendar from first to last day × metrics, absent days
          counting as missing) and ``calendar_coverage`` (share of calendar days with a row).
        - ``correlations``: ``metrics`` (order), ``pooled`` (Pearson over pooled user-days),
          ``within_user_median`` (median over users of within-user Pearson, users with
          ≥ 10 joint days), ``users``.
        - ``age_association``: Spearman ρ of age vs per-user mean, per reference metric.
        - ``demographics``: ``users``, ``age`` (years) and ``bmi`` (kg/m2) summaries, ``sex``
          and ``ethnicity`` counts.
        - ``blood``: ``draws``, ``users``, per-biomarker summaries with ``unit``, and
          ``homa_ir`` = fasting glucose mg/dL × insulin µIU/mL / 405.
    """
    daily = cohort.daily
    metrics = [m.name for m in METRICS if m.name in daily.columns]
    return {
        "counts": _counts(cohort),
        "metrics": {m.name: _metric(daily, m.name, m.unit) for m in METRICS if m.name in daily.columns},
        "missingness": _missingness(daily, metrics),
        "correlations": _correlation(daily, metrics),
        "age_association": _age_association(daily, cohort.demographics),
        "demographics": _demographics(cohort.demographics),
        "blood": _blood(cohort.blood),
    }


def _num(x: Any) -> float | None:
    v = float(x)
    return v if math.isfinite(v) else None


def summary(values: Any, *, extremes: bool = False) -> dict[str, Any]:
    """``n``, ``mean``, ``sd`` (ddof 1) and ``p5…p95`` of the finite values (``None`` if undefined)."""
    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v)]
    out: dict[str, Any] = {"n": int(v.size), "mean": _num(v.mean()) if v.size else None}
    out["sd"] = _num(v.std(ddof=1)) if v.size > 1 else None
    pct = np.percentile(v, QUANTILES) if v.size else [math.nan] * len(QUANTILES)
    out |= {f"p{q}": _num(p) for q, p in zip(QUANTILES, pct, strict=True)}
    if extremes:
        out["min"] = _num(v.min()) if v.size else None
        out["max"] = _num(v.max()) if v.size else None
    return out


def _users(daily: pd.DataFrame) -> pd.Series:
    return daily["user_id"].astype(str)


def _counts(cohort: Cohort) -> dict[str, Any]:
    daily = cohort.daily
    per_user = daily.groupby(_users(daily)).size().to_numpy() if len(daily) else np.array([], dtype=int)
    days = pd.to_datetime(daily["date"]).dropna().to_numpy().astype("datetime64[D]") if len(daily) else None
    return {
        "users": int(per_user.size),
        "user_days": len(daily),
        "days_per_user": {
            "min": int(per_user.min()) if per_user.size else None,
            "median": _num(np.median(per_user)) if per_user.size else None,
            "max": int(per_user.max()) if per_user.size else None,
        },
        "date_range": None
        if days is None or not days.size
        else {"first": str(days.min()), "last": str(days.max())},
        "demographics_rows": len(cohort.demographics),
        "blood_draws": len(cohort.blood),
        "reference_rows": len(cohort.reference),
    }


def _metric(daily: pd.DataFrame, name: str, unit: str) -> dict[str, Any]:
    values = daily[name].to_numpy(dtype=np.float64)
    n = values.size
    present = int(np.isfinite(values).sum())
    means = daily[name].astype(np.float64).groupby(_users(daily)).mean() if n else pd.Series([], dtype=float)
    return {
        "unit": unit,
        "present_share": present / n if n else None,
        "daily": summary(values),
        "user_means": summary(means.to_numpy(dtype=np.float64), extremes=True),
    }


def _missingness(daily: pd.DataFrame, metrics: Sequence[str]) -> dict[str, Any]:
    if not len(daily) or not metrics:
        return {"missing_share": summary([]), "calendar_coverage": summary([])}
    days = pd.to_datetime(daily["date"]).to_numpy().astype("datetime64[D]").astype(np.int64)
    frame = pd.DataFrame({"user": _users(daily).to_numpy(), "day": days})
    frame["present"] = daily[list(metrics)].notna().sum(axis=1).to_numpy()
    g = frame.groupby("user", sort=True)
    calendar = (g["day"].max() - g["day"].min() + 1).to_numpy(dtype=np.float64)
    present = g["present"].sum().to_numpy(dtype=np.float64)
    rows = g.size().to_numpy(dtype=np.float64)
    return {
        "missing_share": summary(1.0 - present / (calendar * len(metrics)), extremes=True),
        "calendar_coverage": summary(rows / calendar, extremes=True),
    }


def _matrix(frame: pd.DataFrame, metrics: Sequence[str]) -> list[list[float | None]]:
    frame = frame.reindex(index=list(metrics), columns=list(metrics))
    return [[_num(x) for x in row] for row in frame.to_numpy(dtype=np.float64)]


def _correlation(daily: pd.DataFrame, metrics: Sequence[str]) -> dict[str, Any]:
    metrics = list(metrics)
    if not len(daily) or not metrics:
        return {"metrics": metrics, "pooled": [], "within_user_median": [], "users": 0}
    values = daily[metrics].astype(np.float64)
    pooled = values.corr(method="pearson", min_periods=3)
    per_user = values.groupby(_users(daily).to_numpy()).corr(min_periods=MIN_USER_DAYS)
    within = per_user.groupby(level=1).median()
    n_users = int(per_user.index.get_level_values(0).nunique())
    return {
        "metrics": metrics,
        "pooled": _matrix(pooled, metrics),
        "within_user_median": _matrix(within, metrics),
        "users": n_users,
    }


def _age_association(daily: pd.DataFrame, demographics: pd.DataFrame) -> dict[str, float | None]:
    if not len(daily) or "age" not in demographics or "user_id" not in demographics:
        return {}
    age = pd.to_numeric(demographics["age"], errors="coerce")
    age.index = demographics["user_id"].astype(str)
    out: dict[str, float | None] = {}
    for m in REFERENCE_METRICS:
        if m not in daily:
            continue
        means = daily[m].astype(np.float64).groupby(_users(daily)).mean()
        joint = pd.concat([means.rename("v"), age[~age.index.duplicated()].rename("age")], axis=1).dropna()
        ok = len(joint) >= 3 and joint["v"].nunique() > 1 and joint["age"].nunique() > 1
        out[m] = _num(joint["v"].corr(joint["age"], method="spearman")) if ok else None
    return out


def _demographics(demo: pd.DataFrame) -> dict[str, Any]:
    out: dict[str, Any] = {"users": len(demo)}
    for col in ("age", "bmi"):
        if col in demo:
            out[col] = summary(
                pd.to_numeric(demo[col], errors="coerce").to_numpy(dtype=np.float64), extremes=True
            )
    for col in ("sex", "ethnicity"):
        if col in demo:
            counts = demo[col].astype(object).fillna("<missing>").astype(str).value_counts()
            out[col] = {str(k): int(v) for k, v in sorted(counts.items())}
    return out


def _blood(blood: pd.DataFrame) -> dict[str, Any]:
    users = int(blood["user_id"].nunique()) if "user_id" in blood else 0
    out: dict[str, Any] = {"draws": len(blood), "users": users, "biomarkers": {}}
    for b in BIOMARKERS:
        if b.name in blood:
            vals = pd.to_numeric(blood[b.name], errors="coerce").to_numpy(dtype=np.float64)
            out["biomarkers"][b.name] = {"unit": b.unit} | summary(vals)
    if "fasting_glucose" in blood and "insulin" in blood:
        glucose = pd.to_numeric(blood["fasting_glucose"], errors="coerce").to_numpy(dtype=np.float64)
        insulin = pd.to_numeric(blood["insulin"], errors="coerce").to_numpy(dtype=np.float64)
        out["homa_ir"] = {"unit": "", "formula": "glucose mg/dL × insulin µIU/mL / 405"} | summary(
            glucose * insulin / 405.0
        )
    return out
