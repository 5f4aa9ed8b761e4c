"""Per-user context: everything a question may look at, stored once per user in the artifact.

An item shows the ``history_days`` days ending at its ``end_date`` (the last ``window_days``
of them are "the window"), the user's demographics, the latest blood draw on or before the
end date, and the reference percentiles of the user's age band and sex. Slicing is a fixed
rule, so a context file per user holds the exact data of every item of that user.
"""

from __future__ import annotations

import gzip
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from wearbench._errors import WearbenchError
from wearbench.cohort._cohort import Cohort
from wearbench.cohort._resolve import ReferenceResolver, table_kind
from wearbench.cohort._schema import BIOMARKER_NAMES, METRIC_NAMES, PERCENTILES, REFERENCE_METRICS, age_band

#: Metrics an item may compare against peers (the resolver keeps leave-out data for these).
REFERENCED_METRICS: tuple[str, ...] = (*REFERENCE_METRICS, "vo2max")


def _clean(x: Any) -> Any:
    """JSON-safe scalar: NaN → None, numpy scalars → Python."""
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, float) and math.isnan(x):
        return None
    return x


@dataclass(frozen=True, eq=False)
class UserContext:
    """One user's full record and static data.

    Attributes:
        user_id: User identifier.
        dates: ``datetime64[D]`` consecutive days of the record.
        metrics: Metric → float64 array aligned with ``dates`` (NaN = missing), canonical units.
        demographics: ``age`` (years), ``sex`` (F/M), ``bmi`` (kg/m2), ``ethnicity``.
        blood: Draws sorted by date; each maps ``draw_date`` (ISO) and biomarkers to values.
        reference: Metric → {percentile: value} for the user's age band and sex, shown as
            context with every item; only from a reference independent of the cohort's users
            (kind ``population``), else empty.
        resolver: Build-time only (not serialised): resolves the reference an item compares a
            metric against (:class:`ReferenceResolver`); None in a stored
            context, whose items carry their reference cells in their graphs.
    """

    user_id: str
    dates: np.ndarray
    metrics: Mapping[str, np.ndarray]
    demographics: Mapping[str, Any]
    blood: tuple[Mapping[str, Any], ...]
    reference: Mapping[str, Mapping[int, float]]
    resolver: ReferenceResolver | None = None

    @property
    def n_days(self) -> int:
        """Days in the record."""
        return int(self.dates.size)

    def index(self, date: str) -> int:
        """Day index of ``date`` in the record.

        Raises:
            WearbenchError: If the date is outside the record.
        """
        i = int((np.datetime64(date, "D") - self.dates[0]).astype(int))
        if not 0 <= i < self.n_days:
            raise WearbenchError(f"user {self.user_id}: {date} is outside the record")
        return i

    def span(self, metric: str, end: int, days: int) -> np.ndarray:
        """Values of ``metric`` for the ``days`` days ending at index ``end`` (NaN before the record)."""
        values = self.metrics[metric]
        start = end - days + 1
        if start >= 0:
            return values[start : end + 1].copy()
        return np.concatenate([np.full(-start, np.nan), values[: end + 1]])

    def span_dates(self, end: int, days: int) -> np.ndarray:
        """Calendar days of the ``days``-day span ending at index ``end``."""
        out: np.ndarray = self.dates[end] - np.arange(days - 1, -1, -1).astype("timedelta64[D]")
        return out

    def blood_at(self, end: int) -> Mapping[str, Any] | None:
        """Latest blood draw on or before day ``end``, or None."""
        day = str(self.dates[end])
        draws = [b for b in self.blood if str(b["draw_date"]) <= day]
        return draws[-1] if draws else None

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict (NaN → null); :meth:`from_json` restores it exactly."""
        return {
            "user_id": self.user_id,
            "start": str(self.dates[0]),
            "n_days": self.n_days,
            "metrics": {m: [_clean(v) for v in self.metrics[m].tolist()] for m in sorted(self.metrics)},
            "demographics": {k: _clean(v) for k, v in sorted(self.demographics.items())},
            "blood": [{k: _clean(v) for k, v in sorted(b.items())} for b in self.blood],
            "reference": {
                m: {str(p): v for p, v in sorted(r.items())} for m, r in sorted(self.reference.items())
            },
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> UserContext:
        """Inverse of :meth:`to_json`."""
        n = int(data["n_days"])
        dates = np.datetime64(data["start"], "D") + np.arange(n).astype("timedelta64[D]")
        metrics = {
            m: np.array([np.nan if v is None else v for v in vals], dtype=float)
            for m, vals in data["metrics"].items()
        }
        blood = tuple(
            {k: (np.nan if v is None and k != "draw_date" else v) for k, v in b.items()}
            for b in data["blood"]
        )
        reference = {m: {int(p): float(v) for p, v in r.items()} for m, r in data["reference"].items()}
        return cls(str(data["user_id"]), dates, metrics, dict(data["demographics"]), blood, reference)

    def dump(self) -> bytes:
        """Deterministic gzip-compressed JSON bytes (mtime 0)."""
        text = json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"), allow_nan=False)
        return gzip.compress(text.encode("utf-8"), compresslevel=6, mtime=0)

    @classmethod
    def load(cls, raw: bytes) -> UserContext:
        """Inverse of :meth:`dump`."""
        return cls.from_json(json.loads(gzip.decompress(raw).decode("utf-8")))


def _reference_for(ref: pd.DataFrame, age: float, sex: str) -> dict[str, dict[int, float]]:
    if ref.empty or not math.isfinite(age):
        return {}
    band = age_band(age)
    rows = ref[(ref["age_band"] == band) & (ref["sex"] == sex) & ref["metric"].isin(REFERENCE_METRICS)]
    return {str(r["metric"]): {p: float(r[f"p{p}"]) for p in PERCENTILES} for _, r in rows.iterrows()}


def contexts_from_cohort(
    cohort: Cohort, *, resolver: ReferenceResolver | None = None
) -> dict[str, UserContext]:
    """One :class:`UserContext` per user with daily data, keyed by user id (sorted).

    The static ``reference`` of a context is the cohort's table only when that table is
    independent of the cohort's users (:func:`table_kind` ``population``);
    every context shares one :class:`ReferenceResolver` for the items.

    Args:
        cohort: The cohort (or a part of one: some of its users).
        resolver: The resolver to share; by default one over ``cohort``. A part of a larger
            cohort must pass the whole cohort's resolver (leave-the-user-out cells count
            every peer, not only the part's).
    """
    independent = table_kind(cohort.source) == "population"
    if resolver is None:
        resolver = ReferenceResolver.from_cohort(cohort, REFERENCED_METRICS)
    demo = cohort.demographics.set_index("user_id")
    blood = cohort.blood.sort_values(["user_id", "draw_date"])
    out: dict[str, UserContext] = {}
    for user_id in sorted(cohort.daily["user_id"].astype(str).unique()):
        rec = cohort.user(user_id, METRIC_NAMES)
        d = demo.loc[user_id]
        demographics = {k: _clean(d[k]) for k in ("age", "sex", "bmi", "ethnicity")}
        draws = tuple(
            {
                "draw_date": str(np.datetime64(r["draw_date"], "D")),
                **{b: float(r[b]) for b in BIOMARKER_NAMES},
            }
            for _, r in blood[blood["user_id"] == user_id].iterrows()
        )
        reference = _reference_for(cohort.reference, float(d["age"]), str(d["sex"])) if independent else {}
        out[user_id] = UserContext(
            user_id, rec.dates, dict(rec.values), demographics, draws, reference, resolver
        )
    return out
