"""Do the primitives find what the synthetic generator planted?

The synthetic cohort's ground truth (``cohort.truth``) lists planted episodes and
cross-signal couplings. This audit re-discovers them with the primitive library
alone — the same functions question generators use — and reports per-item results
and rates. It is the validity check behind the claim that a benchmark built on the
synthetic default asks about real structure, not noise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from wearbench._errors import WearbenchError
from wearbench.cohort import Cohort, UserRecord
from wearbench.primitives import excursions, lagged_correlation


@dataclass(frozen=True)
class CouplingCheck:
    """One planted coupling and what ``lagged_correlation`` recovered.

    Attributes:
        user_id: User.
        driver: Leading metric.
        response: Following metric.
        planted_lag: Planted lag (days; driver leads response).
        planted_sign: Planted sign (+1 or -1).
        recovered_lag: Lag with the largest |r| (days), or None when undefined.
        recovered_r: Correlation at that lag.
    """

    user_id: str
    driver: str
    response: str
    planted_lag: int
    planted_sign: int
    recovered_lag: int | None
    recovered_r: float

    @property
    def lag_ok(self) -> bool:
        """Whether the recovered lag equals the planted one."""
        return self.recovered_lag == self.planted_lag

    @property
    def ok(self) -> bool:
        """Whether both lag and sign were recovered."""
        return self.lag_ok and bool(np.sign(self.recovered_r) == self.planted_sign)


@dataclass(frozen=True)
class EpisodeCheck:
    """One planted episode and whether an excursion of its marker metric overlaps it.

    Attributes:
        user_id: User.
        kind: Episode kind (``illness``, ...).
        start: First day (ISO).
        end: Last day (ISO, inclusive).
        marker: Metric whose excursion marks the episode.
        detected: Whether an excursion run overlaps the episode.
    """

    user_id: str
    kind: str
    start: str
    end: str
    marker: str
    detected: bool


#: Metric and direction whose k·SD excursion marks each episode kind.
EPISODE_MARKERS: Mapping[str, tuple[str, Literal["above", "below"]]] = {"illness": ("resting_hr", "above")}


@dataclass(frozen=True)
class PlantedAudit:
    """Results of :func:`audit_planted`.

    Attributes:
        couplings: One check per planted empirical coupling.
        episodes: One check per planted episode with a marker in :data:`EPISODE_MARKERS`.
        max_lag: Largest lag searched (days).
        k: Excursion threshold (SDs above the trailing 28-day baseline).
    """

    couplings: tuple[CouplingCheck, ...]
    episodes: tuple[EpisodeCheck, ...]
    max_lag: int
    k: float

    @property
    def lag_recovery_rate(self) -> float:
        """Share of planted couplings whose lag and sign were recovered (NaN if none)."""
        return _rate([c.ok for c in self.couplings])

    @property
    def episode_detection_rate(self) -> float:
        """Share of marked episodes overlapped by an excursion (NaN if none)."""
        return _rate([e.detected for e in self.episodes])

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready summary with per-item rows."""
        return {
            "max_lag": self.max_lag,
            "k": self.k,
            "lag_recovery_rate": self.lag_recovery_rate,
            "episode_detection_rate": self.episode_detection_rate,
            "couplings": [{**c.__dict__, "ok": c.ok} for c in self.couplings],
            "episodes": [e.__dict__ for e in self.episodes],
        }


def _rate(flags: Sequence[bool]) -> float:
    return float(np.mean(flags)) if flags else float("nan")


def audit_planted(cohort: Cohort, *, max_lag: int = 3, k: float = 1.5, min_overlap: int = 14) -> PlantedAudit:
    """Re-discover the planted couplings and episodes of a synthetic cohort with primitives.

    Args:
        cohort: A cohort with ground truth (``cohort.truth``), e.g. from :func:`wearbench.synth`.
        max_lag: Largest lag (days) searched by ``lagged_correlation``.
        k: Excursion threshold in SDs above the trailing 28-day mean.
        min_overlap: Minimum paired days for a correlation.

    Raises:
        WearbenchError: If the cohort carries no ground truth.
    """
    if not cohort.truth:
        raise WearbenchError("this cohort has no planted ground truth (only synthetic cohorts do)")
    records: dict[str, UserRecord] = {}

    def record(user_id: str) -> UserRecord:
        if user_id not in records:
            records[user_id] = cohort.user(user_id)
        return records[user_id]

    couplings = tuple(
        _check_coupling(record(c["user_id"]), c, max_lag, min_overlap)
        for c in cohort.truth.get("couplings", [])
        if c.get("kind", "empirical") == "empirical"
    )
    episodes = tuple(
        _check_episode(record(e["user_id"]), e, k)
        for e in cohort.truth.get("episodes", [])
        if e["kind"] in EPISODE_MARKERS
    )
    return PlantedAudit(couplings, episodes, max_lag, k)


def _check_coupling(rec: UserRecord, c: Mapping[str, Any], max_lag: int, min_overlap: int) -> CouplingCheck:
    res = lagged_correlation(
        rec[c["driver"]], rec[c["response"]], max_lag=max_lag, method="pearson", min_overlap=min_overlap
    )
    lag = None if res.best_lag is None else int(res.best_lag)
    return CouplingCheck(
        rec.user_id, c["driver"], c["response"], int(c["lag_days"]), int(c["sign"]), lag, float(res.best_r)
    )


def _check_episode(rec: UserRecord, e: Mapping[str, Any], k: float) -> EpisodeCheck:
    marker, direction = EPISODE_MARKERS[e["kind"]]
    start = int((np.datetime64(e["start"]) - rec.dates[0]).astype(int))
    end = int((np.datetime64(e["end"]) - rec.dates[0]).astype(int))
    runs = excursions(rec[marker], k=k, direction=direction, window=28, min_count=14)
    hit = any(r.start <= end and r.end >= start for r in runs)
    return EpisodeCheck(rec.user_id, e["kind"], e["start"], e["end"], marker, hit)
