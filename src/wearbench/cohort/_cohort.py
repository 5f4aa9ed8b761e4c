"""The in-memory cohort: four tables plus provenance and (for synthetic data) ground truth."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from wearbench._errors import WearbenchError
from wearbench.cohort._schema import BIOMARKER_NAMES, DEMOGRAPHIC_COLUMNS, METRIC_NAMES, PERCENTILES


@dataclass(frozen=True)
class UserRecord:
    """One user's daily record on a dense calendar (every day present; NaN = missing).

    Attributes:
        user_id: User identifier.
        dates: ``datetime64[D]`` array of consecutive days, shape ``(n_days,)``.
        values: Mapping metric name → float64 array of shape ``(n_days,)`` in canonical units.
    """

    user_id: str
    dates: np.ndarray
    values: Mapping[str, np.ndarray]

    def __getitem__(self, metric: str) -> np.ndarray:
        try:
            return self.values[metric]
        except KeyError:
            raise WearbenchError(f"user {self.user_id}: no metric {metric!r} in this record") from None


@dataclass(frozen=True)
class Cohort:
    """A canonical cohort.

    Attributes:
        daily: One row per user-day: ``user_id`` (str), ``date`` (datetime64, midnight), then
            the 16 metrics of :data:`~wearbench.cohort.METRICS` as float64 (NaN = missing),
            sorted by user then date.
        demographics: One row per user: ``user_id``, ``age`` (years), ``sex`` (F/M),
            ``bmi`` (kg/m2), ``ethnicity``.
        blood: One row per user and draw: ``user_id``, ``draw_date``, then the 17 biomarkers.
        reference: Reference percentiles: ``metric``, ``age_band``, ``sex``, ``n_users``,
            ``p5`` ... ``p95`` (percentiles of per-user medians in a larger population).
        source: Provenance: ``{"name": ..., "params": {...}}``.
        truth: What a generator planted (synthetic cohorts only), else ``None``.
        repairs: Counted repairs made while loading (e.g. out-of-range values set missing).
    """

    daily: pd.DataFrame
    demographics: pd.DataFrame
    blood: pd.DataFrame
    reference: pd.DataFrame
    source: Mapping[str, Any] = field(default_factory=dict)
    truth: Mapping[str, Any] | None = None
    repairs: Sequence[str] = ()

    @property
    def user_ids(self) -> list[str]:
        """Sorted user identifiers of the demographics table."""
        return sorted(self.demographics["user_id"].astype(str).tolist())

    @property
    def n_users(self) -> int:
        """Number of users."""
        return int(self.demographics.shape[0])

    def user(self, user_id: str, metrics: Sequence[str] = METRIC_NAMES) -> UserRecord:
        """Return one user's record on a dense daily calendar (first to last recorded day).

        Raises:
            WearbenchError: If the user has no daily rows.
        """
        rows = self.daily[self.daily["user_id"] == user_id]
        if rows.empty:
            raise WearbenchError(f"user {user_id!r} has no daily records")
        days = rows["date"].to_numpy().astype("datetime64[D]")
        start = days.min()
        n = int((days.max() - start).astype(int)) + 1
        dates = start + np.arange(n).astype("timedelta64[D]")
        pos = (days - start).astype(int)
        values: dict[str, np.ndarray] = {}
        for m in metrics:
            col = np.full(n, np.nan)
            col[pos] = rows[m].to_numpy(dtype=float)
            values[m] = col
        return UserRecord(user_id, dates, values)


def empty_tables() -> tuple[pd.DataFrame, pd.DataFrame, pd.DataFrame, pd.DataFrame]:
    """Empty ``(daily, demographics, blood, reference)`` tables with the canonical columns."""
    daily = pd.DataFrame(columns=["user_id", "date", *METRIC_NAMES])
    demo = pd.DataFrame(columns=["user_id", *DEMOGRAPHIC_COLUMNS])
    blood = pd.DataFrame(columns=["user_id", "draw_date", *BIOMARKER_NAMES])
    ref = pd.DataFrame(columns=["metric", "age_band", "sex", "n_users", *[f"p{p}" for p in PERCENTILES]])
    return daily, demo, blood, ref
