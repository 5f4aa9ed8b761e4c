"""Cohort reference: percentiles (P5…P95, deciles), mean and SD of per-user medians by age band and sex."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from wearbench._errors import WearbenchError
from wearbench.cohort._schema import (
    AGE_BANDS,
    EXTRA_PERCENTILES,
    PERCENTILES,
    REFERENCE_METRICS,
    SEXES,
    metric,
)

#: Every percentile cut a reference row holds, ascending.
ALL_PERCENTILES: tuple[int, ...] = tuple(sorted((*PERCENTILES, *EXTRA_PERCENTILES)))
_VALUES = [*[f"p{p}" for p in PERCENTILES], *[f"p{p}" for p in EXTRA_PERCENTILES], "mean", "sd"]
_COLUMNS = ["metric", "age_band", "sex", "n_users", *_VALUES]


def group_summary(values: np.ndarray) -> dict[str, float]:
    """``p5`` … ``p95`` (:data:`ALL_PERCENTILES`, numpy linear interpolation), ``mean`` and ``sd``.

    Args:
        values: Per-user values of one group (finite, at least one).

    Returns:
        Column name → value; ``sd`` is the sample SD (ddof = 1), NaN for a single value.
    """
    x = np.asarray(values, dtype=np.float64)
    pct = np.percentile(x, ALL_PERCENTILES)
    out = {f"p{p}": float(v) for p, v in zip(ALL_PERCENTILES, pct, strict=True)}
    out["mean"] = float(x.mean())
    out["sd"] = float(x.std(ddof=1)) if x.size > 1 else float("nan")
    return out


def reference_percentiles(
    daily: pd.DataFrame,
    demographics: pd.DataFrame,
    *,
    metrics: Sequence[str] = REFERENCE_METRICS,
    min_days: int = 14,
) -> pd.DataFrame:
    """Reference percentiles of per-user medians, by age band and sex.

    For each metric, each user's median over their non-missing days is taken (users with
    fewer than ``min_days`` non-missing days are left out); then, within each age band ×
    sex group, the percentiles :data:`~wearbench.cohort.PERCENTILES` and
    :data:`~wearbench.cohort.EXTRA_PERCENTILES` of those medians (numpy ``percentile``,
    linear interpolation), their mean and sample SD (see :func:`group_summary`). Users with a
    missing or out-of-band age or a sex other than F/M are left out.

    Args:
        daily: Daily table with ``user_id`` and the metric columns (canonical units).
        demographics: One row per user with ``user_id``, ``age`` (years) and ``sex``.
        metrics: Canonical metric names.
        min_days: Fewest non-missing days a user needs to count (≥ 1).

    Returns:
        Columns ``metric, age_band, sex, n_users, p5 … p95, p20 … p80, mean, sd`` (values in
        the metric's unit); one row per non-empty group, sorted by metric name, then age band (youngest
        first), then sex (F, M).

    Raises:
        ValueError: If ``min_days`` < 1.
        UnknownNameError: If a metric name is not canonical.
        WearbenchError: If a required column is missing.
    """
    if min_days < 1:
        raise ValueError(f"min_days must be >= 1, got {min_days}")
    for m in metrics:
        metric(m)
    _require(daily, ["user_id", *metrics], "daily")
    _require(demographics, ["user_id", "age", "sex"], "demographics")
    groups = user_groups(demographics)
    by_user = daily.groupby(daily["user_id"].astype(str), sort=True)
    rows: list[dict[str, object]] = []
    for m in sorted(set(metrics)):
        col = by_user[m]
        medians = col.median()[col.count() >= min_days]
        joined = groups.join(medians.rename("value"), how="inner").dropna(subset=["value"])
        rows.extend(_group_rows(m, joined))
    out = pd.DataFrame(rows, columns=_COLUMNS)
    return out.astype({"n_users": np.int64} | dict.fromkeys(_COLUMNS[4:], np.float64))


def _group_rows(name: str, joined: pd.DataFrame) -> list[dict[str, object]]:
    """One row per non-empty age band × sex group of per-user medians (``value`` column)."""
    rows: list[dict[str, object]] = []
    for band, _, _ in AGE_BANDS:
        for sex in SEXES:
            vals = joined.loc[(joined["age_band"] == band) & (joined["sex"] == sex), "value"]
            if vals.empty:
                continue
            summary = group_summary(vals.to_numpy(dtype=np.float64))
            rows.append(
                {"metric": name, "age_band": band, "sex": sex, "n_users": int(vals.size)}
                | {c: summary[c] for c in _VALUES}
            )
    return rows


def _require(frame: pd.DataFrame, columns: Sequence[str], name: str) -> None:
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise WearbenchError(
            f"{name}: missing column(s) {', '.join(missing)} needed for reference percentiles"
        )


def user_groups(demographics: pd.DataFrame) -> pd.DataFrame:
    """Index user_id → ``age_band``, ``sex`` for users in a band with sex F/M."""
    age = pd.to_numeric(demographics["age"], errors="coerce").to_numpy(dtype=np.float64)
    bands = np.full(age.shape, None, dtype=object)
    for label, lo, hi in AGE_BANDS:
        bands[(age >= lo) & (age < hi)] = label
    frame = pd.DataFrame(
        {"age_band": bands, "sex": demographics["sex"].astype(object).to_numpy()},
        index=pd.Index(demographics["user_id"].astype(str).to_numpy(), name="user_id"),
    )
    keep = frame["age_band"].notna() & frame["sex"].isin(SEXES)
    return frame[keep & ~frame.index.duplicated(keep="first")]
