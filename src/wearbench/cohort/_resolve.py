"""Which reference an item compares against: never a set that includes the tested user.

A cohort's ``reference`` table is *independent* of its users only when it was made from a
separate population (the synthetic generator's reference population, or the reference shipped
with the official WearableQA release): its kind, recorded in the cohort's source as
``source["reference"]["kind"]``, is then ``population``. A table computed from the cohort's own
users (every real import) has kind ``cohort_self`` and is never shown or used: it includes the
tested user and days after the item.

:class:`ReferenceResolver` picks, per (user, item end date, metric):

1. ``population``: the cohort's independent table, when its cell (age band × sex) has at least
   :data:`MIN_USERS` users;
2. ``cohort``: leave-the-user-out percentiles over at least :data:`MIN_USERS` *other* users of
   the same age band and sex, each user's median over their non-missing days on or before the
   item's end date (at least :data:`MIN_DAYS` of them; :data:`MIN_DAYS_BY_METRIC` for sparse
   metrics);
3. ``external``: the cited published table (:func:`~wearbench.cohort.external_reference`);
4. otherwise none, with a reason the builder counts as a drop.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, cast

import numpy as np
import pandas as pd

from wearbench.cohort._cohort import Cohort
from wearbench.cohort._external import external_reference
from wearbench.cohort._reference import ALL_PERCENTILES, group_summary, user_groups
from wearbench.cohort._schema import age_band

ReferenceKind = Literal["population", "cohort", "external"]
TableKind = Literal["population", "cohort_self"]
REFERENCE_KINDS: tuple[ReferenceKind, ...] = ("population", "cohort", "external")
#: Fewest users (other than the tested one) a population or cohort reference cell needs.
MIN_USERS = 30
#: Fewest non-missing days on or before the end date for a user to count in a cohort reference.
MIN_DAYS = 14
#: Sparse metrics: fewer days needed (VO2max is estimated only after some workouts).
MIN_DAYS_BY_METRIC: Mapping[str, int] = {"vo2max": 4}
#: Source names whose reference table comes from a population disjoint from the cohort users.
_INDEPENDENT_SOURCES = ("synthetic", "wearableqa-official")


@dataclass(frozen=True)
class ReferenceCell:
    """The reference one item compares a metric against (stored with the item).

    Attributes:
        metric: Canonical metric name.
        kind: ``population``, ``cohort`` (leave-the-user-out) or ``external``.
        age_band: Age band of the peer group.
        sex: Sex of the peer group (F/M).
        percentiles: Percentile → value in the metric's unit (may be empty for external cells).
        mean: Mean of the peers' values, or None.
        sd: Sample SD of the peers' values, or None.
        n_users: Users (participants) in the cell, or None when the source does not say.
        source: What the cell was computed from, in words.
        citation: Published source (external cells), else empty.
        caveat: How the source population differs from the cohort (external cells), else empty.
    """

    metric: str
    kind: ReferenceKind
    age_band: str
    sex: str
    percentiles: Mapping[int, float]
    mean: float | None = None
    sd: float | None = None
    n_users: int | None = None
    source: str = ""
    citation: str = ""
    caveat: str = ""

    def describe(self) -> str:
        """One phrase naming the kind, group and size of the reference (shown in prompts)."""
        group = f"age band {self.age_band}, sex {self.sex}"
        n = "size not stated" if self.n_users is None else f"n = {self.n_users} users"
        if self.kind == "population":
            return f"population reference independent of this cohort's users, {group}, {n}"
        if self.kind == "cohort":
            return f"leave-this-user-out reference of other cohort users, {group}, {n}, {self.source}"
        return f"external published reference {self.source}, {group}, {n}; {self.citation}"

    def to_json(self) -> dict[str, Any]:
        """JSON-ready dict; :meth:`from_json` restores it."""
        return {
            "metric": self.metric,
            "kind": self.kind,
            "age_band": self.age_band,
            "sex": self.sex,
            "percentiles": {str(p): v for p, v in sorted(self.percentiles.items())},
            "mean": self.mean,
            "sd": self.sd,
            "n_users": self.n_users,
            "source": self.source,
            "citation": self.citation,
            "caveat": self.caveat,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ReferenceCell:
        """Inverse of :meth:`to_json`."""
        n = data.get("n_users")
        return cls(
            metric=str(data["metric"]),
            kind=cast(ReferenceKind, str(data["kind"])),
            age_band=str(data["age_band"]),
            sex=str(data["sex"]),
            percentiles={int(p): float(v) for p, v in dict(data.get("percentiles") or {}).items()},
            mean=_opt(data.get("mean")),
            sd=_opt(data.get("sd")),
            n_users=None if n is None else int(n),
            source=str(data.get("source", "")),
            citation=str(data.get("citation", "")),
            caveat=str(data.get("caveat", "")),
        )


def _opt(value: Any) -> float | None:
    if value is None:
        return None
    x = float(value)
    return x if math.isfinite(x) else None


def table_kind(source: Mapping[str, Any]) -> TableKind:
    """Kind of a cohort's reference table from its source record.

    ``source["reference"]["kind"]`` when recorded; else ``population`` for the synthetic
    generator and the official WearableQA import, ``cohort_self`` for anything else.
    """
    ref = source.get("reference")
    if isinstance(ref, Mapping) and ref.get("kind") in ("population", "cohort_self"):
        return cast(TableKind, ref["kind"])
    return "population" if source.get("name") in _INDEPENDENT_SOURCES else "cohort_self"


def _population_cells(table: pd.DataFrame) -> dict[tuple[str, str, str], ReferenceCell]:
    out: dict[tuple[str, str, str], ReferenceCell] = {}
    for _, r in table.iterrows():
        pct = {p: float(r[f"p{p}"]) for p in ALL_PERCENTILES if f"p{p}" in r and math.isfinite(r[f"p{p}"])}
        key = (str(r["metric"]), str(r["age_band"]), str(r["sex"]))
        out[key] = ReferenceCell(
            metric=key[0],
            kind="population",
            age_band=key[1],
            sex=key[2],
            percentiles=pct,
            mean=_opt(r["mean"]) if "mean" in r else None,
            sd=_opt(r["sd"]) if "sd" in r else None,
            n_users=int(r["n_users"]),
            source="reference population independent of the cohort's users",
        )
    return out


@dataclass(frozen=True)
class _UserSeries:
    """One user's daily values of one metric (``day`` as days since 1970, ascending)."""

    day: np.ndarray
    values: np.ndarray


@dataclass
class ReferenceResolver:
    """Resolves the reference of (user, end date, metric); see the module docstring.

    Build it with :meth:`from_cohort`. Only age band × sex groups with more than
    :data:`MIN_USERS` users keep daily values for leave-the-user-out cells.
    """

    kind: TableKind
    population: Mapping[tuple[str, str, str], ReferenceCell]
    groups: Mapping[str, tuple[str, str]]
    series: Mapping[tuple[str, str], _UserSeries] = field(default_factory=dict)
    min_users: int = MIN_USERS
    _cache: dict[tuple[str, str, int, int], float] = field(default_factory=dict, repr=False)

    @classmethod
    def from_cohort(
        cls, cohort: Cohort, metrics: Sequence[str], *, min_users: int = MIN_USERS
    ) -> ReferenceResolver:
        """Resolver over ``cohort`` for ``metrics`` (canonical names)."""

        def daily_of(users: Sequence[str]) -> Iterator[pd.DataFrame]:
            daily = cohort.daily
            yield daily[daily["user_id"].astype(str).isin(set(users)).to_numpy(dtype=bool)]

        return cls.from_tables(
            cohort.source, cohort.reference, cohort.demographics, daily_of, metrics, min_users=min_users
        )

    @classmethod
    def from_tables(
        cls,
        source: Mapping[str, Any],
        reference: pd.DataFrame,
        demographics: pd.DataFrame,
        daily_of: Callable[[Sequence[str]], Iterable[pd.DataFrame]],
        metrics: Sequence[str],
        *,
        min_users: int = MIN_USERS,
    ) -> ReferenceResolver:
        """Resolver from a cohort's parts, reading daily rows only of the users it needs.

        Leave-the-user-out cells need every peer's daily values, but only for the (age band ×
        sex, metric) cells the population table does not cover with ``min_users`` users: only
        those series are kept, so with a complete independent table the resolver holds no
        daily data at all and is cheap to ship to workers. What :meth:`resolve` returns is the
        same as with every series kept.

        Args:
            source: The cohort's source record (its reference kind).
            reference: The cohort's reference table.
            demographics: Every user's demographics (``user_id``, ``age``, ``sex``).
            daily_of: Yields daily frames (``user_id``, ``date``, metrics) holding the rows of
                the users it is given (other rows are ignored).
            metrics: Canonical metric names.
            min_users: Fewest peers a cell needs.
        """
        kind = table_kind(source)
        population = _population_cells(reference) if kind == "population" else {}
        groups_frame = user_groups(demographics)
        groups = {str(u): (str(r["age_band"]), str(r["sex"])) for u, r in groups_frame.iterrows()}
        sizes = pd.Series(list(groups.values()), dtype=object).value_counts()
        big = {g for g in groups.values() if int(sizes[g]) > min_users}
        needed = {
            (g, m) for g in big for m in metrics if not _covered(population.get((m, g[0], g[1])), min_users)
        }
        users = sorted(u for u, g in groups.items() if any((g, m) in needed for m in metrics))
        series: dict[tuple[str, str], _UserSeries] = {}
        for daily in daily_of(users) if users else ():
            keep = daily["user_id"].astype(str).isin(set(users)).to_numpy(dtype=bool)
            for user, rows in daily[keep].groupby(daily["user_id"].astype(str)[keep]):
                day = rows["date"].to_numpy().astype("datetime64[D]").astype(np.int64)
                for m in metrics:
                    if (groups[str(user)], m) not in needed:
                        continue
                    vals = rows[m].to_numpy(dtype=np.float64)
                    ok = np.isfinite(vals)
                    series[(str(user), m)] = _UserSeries(day[ok], vals[ok])
        return cls(kind, population, groups, series, min_users)

    def resolve(
        self, user_id: str, demographics: Mapping[str, Any], metric: str, end_date: str
    ) -> ReferenceCell | str:
        """The reference cell, or the reason there is none (a drop reason)."""
        group = _group(demographics)
        if group is None:
            return "no reference: age or sex unknown or outside the reference bands"
        band, sex = group
        cell = self.population.get((metric, band, sex))
        if cell is not None and _covered(cell, self.min_users):
            return cell
        cohort = self.leave_out(user_id, group, metric, end_date)
        if cohort is not None:
            return cohort
        ext = external_reference(metric, band, sex)
        if ext is not None and (ext.percentiles or (ext.mean is not None and ext.sd is not None)):
            return ReferenceCell(
                metric=metric,
                kind="external",
                age_band=band,
                sex=sex,
                percentiles=dict(ext.percentiles),
                mean=ext.mean,
                sd=ext.sd,
                n_users=ext.n,
                source=ext.source_id,
                citation=ext.citation,
                caveat=ext.caveat,
            )
        return (
            f"no reference: fewer than {self.min_users} independent peers and no external table for {metric}"
        )

    def leave_out(
        self, user_id: str, group: tuple[str, str], metric: str, end_date: str
    ) -> ReferenceCell | None:
        """Leave-``user_id``-out cell of ``group`` from data on or before ``end_date``, or None."""
        end = int(np.datetime64(end_date, "D").astype(np.int64))
        need = MIN_DAYS_BY_METRIC.get(metric, MIN_DAYS)
        values = []
        for other, g in sorted(self.groups.items()):
            if g != group or other == user_id:
                continue
            v = self._median(other, metric, end, need)
            if math.isfinite(v):
                values.append(v)
        if len(values) < self.min_users:
            return None
        s = group_summary(np.asarray(values))
        return ReferenceCell(
            metric=metric,
            kind="cohort",
            age_band=group[0],
            sex=group[1],
            percentiles={p: s[f"p{p}"] for p in ALL_PERCENTILES},
            mean=s["mean"],
            sd=_opt(s["sd"]),
            n_users=len(values),
            source=f"per-user medians of days on or before {end_date}",
        )

    def _median(self, user: str, metric: str, end: int, need: int) -> float:
        key = (user, metric, end, need)
        if key not in self._cache:
            found = self.series.get((user, metric))
            if found is None:
                self._cache[key] = math.nan
            else:
                upto = found.values[: int(np.searchsorted(found.day, end, side="right"))]
                self._cache[key] = float(np.median(upto)) if upto.size >= need else math.nan
        return self._cache[key]


def _covered(cell: ReferenceCell | None, min_users: int) -> bool:
    """Whether :meth:`ReferenceResolver.resolve` stops at this population cell."""
    return cell is not None and (cell.n_users or 0) >= min_users


def _group(demographics: Mapping[str, Any]) -> tuple[str, str] | None:
    age, sex = demographics.get("age"), demographics.get("sex")
    if not isinstance(age, int | float) or not math.isfinite(age) or sex not in ("F", "M"):
        return None
    try:
        return age_band(float(age)), str(sex)
    except ValueError:
        return None
