"""Per-day aggregation that streams: partial statistics per chunk, combined at the end."""

from __future__ import annotations

from typing import Any

import pandas as pd

from wearbench.sources._report import ImportLog
from wearbench.sources.tabular._mapping import MetricMap

_KEYS = ["user_id", "date"]
#: Statistics kept per aggregation (``count`` always, to detect several values on one day).
_STATS = {
    "sum": ("sum",),
    "mean": ("sum",),
    "min": ("min",),
    "max": ("max",),
    "first": ("first",),
    "last": ("last",),
}
#: How the partial statistics of two chunks combine.
_COMBINE = {"sum": "sum", "count": "sum", "min": "min", "max": "max", "first": "first", "last": "last"}


def _stat(grouped: Any, column: str, stat: str) -> pd.Series:
    """One statistic of ``column`` per group (``sum`` is missing, not 0, for an all-missing group)."""
    series = grouped[column]
    out: pd.Series = series.sum(min_count=1) if stat == "sum" else getattr(series, stat)()
    return out


def partial(rows: pd.DataFrame, metrics: tuple[MetricMap, ...]) -> pd.DataFrame:
    """One row per user-day of ``rows``: ``metric:stat`` columns and the first demographic values."""
    grouped = rows.groupby(_KEYS, sort=False)
    cols: dict[str, pd.Series] = {}
    for m in metrics:
        for stat in (*_STATS[m.aggregate or "first"], "count"):
            cols[f"{m.name}:{stat}"] = _stat(grouped, m.name, stat)
    for c in rows.columns:
        if c.startswith("demo:"):
            cols[c] = grouped[c].first()
    return pd.DataFrame(cols)


def combine(parts: list[pd.DataFrame], metrics: tuple[MetricMap, ...], log: ImportLog) -> pd.DataFrame:
    """Daily table (``user_id``, ``date``, metrics) from the partial statistics of every chunk."""
    stacked = pd.concat(parts)
    grouped = stacked.groupby(level=[0, 1], sort=True)
    out = pd.DataFrame(index=grouped.size().index)
    for c in stacked.columns:
        out[c] = _stat(grouped, c, _COMBINE[c.split(":")[1]] if not c.startswith("demo:") else "first")
    daily = pd.DataFrame(index=out.index)
    for m in metrics:
        count = out[f"{m.name}:count"]
        several = count > 1
        if m.aggregate == "mean":
            daily[m.name] = out[f"{m.name}:sum"] / count.where(count > 0)
        else:
            daily[m.name] = out[f"{m.name}:{m.aggregate or 'first'}"]
        if several.any() and m.aggregate is None:
            kind = (
                f"{m.name}: several values on one user-day, kept the first (set 'aggregate' in the mapping)"
            )
            for user, date in out.index[several][:5]:
                log.repair(kind, f"user {user}, {date:%Y-%m-%d}, column {m.column!r}", n=0)
            log.repair(kind, n=int(several.sum()))
        elif several.any():
            log.note(
                f"{m.name}: {int(several.sum())} user-day(s) with several rows combined by {m.aggregate}"
            )
    demo = out[[c for c in out.columns if c.startswith("demo:")]]
    return pd.concat([daily, demo], axis=1).reset_index()
