"""``fit``: Garmin .FIT files (one file, or a folder of one person's files, searched recursively).

The user id is the folder's name (a single file: its parent folder's name). Per file type
(``file_id.type``):

* ``activity``: each ``session`` is one exercise on the local day it starts:
  ``exercise_count`` += 1, ``exercise_minutes`` += ``total_timer_time`` / 60, ``active_kcal``
  += ``total_calories`` (kcal), ``exercise_avg_hr`` = timer-weighted mean of ``avg_heart_rate``
  (bpm). Local time = UTC + (``activity.local_timestamp`` − ``activity.timestamp``); a file
  without ``local_timestamp`` is put on UTC days (counted).
* ``monitoring_a`` / ``monitoring_b`` / ``monitoring_daily``: ``monitoring.cycles`` of walking and
  running are steps (the protocol's ``steps`` sub-field, raw value); with ``active_calories``
  they are counters that accumulate per activity type through the local day and reset at
  midnight: a day's total is the sum of increments (a drop = reset, the new value counts).
  A monitoring timestamp ends its interval, so one at local midnight (the day-end totals)
  belongs to the day before: day = local (D 00:00, D+1 00:00].
  ``resting_hr`` comes from ``monitoring_hr_data`` (``current_day_resting_heart_rate``, else
  the 7-day ``resting_heart_rate``). Local offset from ``monitoring_info.local_timestamp``.
* ``weight``: weight-scale files carry no daily wearable metric (read and noted).
* Any other type is counted as not used.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pandas as pd

from wearbench._errors import WearbenchError
from wearbench.sources import ImportLog, LoadedSource, loader
from wearbench.sources.garmin._fitread import FitMessages, read_fit

_MONITORING = frozenset({"monitoring_a", "monitoring_b", "monitoring_daily"})
_STEP_TYPES = frozenset({"walking", "running"})


def _offset(messages: list[dict[str, Any]]) -> timedelta | None:
    for m in messages:
        utc, local = m.get("timestamp"), m.get("local_timestamp")
        if isinstance(utc, datetime) and isinstance(local, datetime):
            return local.replace(tzinfo=None) - utc.replace(tzinfo=None)
    return None


def _local_day(stamp: Any, offset: timedelta, interval_end: bool = False) -> pd.Timestamp | None:
    """Local calendar day of a UTC ``stamp``; ``interval_end``: a stamp at midnight closes the day before."""
    if not isinstance(stamp, datetime):
        return None
    local = pd.Timestamp(stamp.replace(tzinfo=None) + offset)
    return (local - pd.Timedelta(seconds=1) if interval_end else local).normalize()


def _activity(fit: FitMessages, log: ImportLog) -> pd.DataFrame:
    offset = _offset(fit.messages.get("activity", []))
    if offset is None:
        log.repair("fit: activity file without local_timestamp: sessions put on UTC days", fit.path.name)
        offset = timedelta(0)
    rows = []
    for s in fit.messages.get("session", []):
        day = _local_day(s.get("start_time") or s.get("_timestamp"), offset)
        if day is None:
            log.reject(
                "fit: session without start_time", f"{fit.path.name}: session {s.get('message_index')}"
            )
            continue
        timer = float(s.get("total_timer_time") or s.get("total_elapsed_time") or 0.0)
        hr = s.get("avg_heart_rate")
        rows.append(
            {
                "date": day,
                "exercise_count": 1.0,
                "exercise_minutes": timer / 60.0,
                "active_kcal": float(s["total_calories"]) if s.get("total_calories") is not None else None,
                "_hr_x_t": float(hr) * timer if hr is not None else None,
                "_hr_t": timer if hr is not None else None,
            }
        )
    log.read("fit: session", len(rows))
    return pd.DataFrame(rows)


def _counter_total(values: pd.Series) -> float:
    """Sum of a daily-reset counter's increments (a drop is a reset: the new value counts)."""
    diff = values.diff()
    increments = diff.where(diff >= 0, values)
    increments.iloc[0] = values.iloc[0]
    return float(increments.sum())


def _monitoring(fit: FitMessages, log: ImportLog) -> pd.DataFrame:
    offset = _offset(fit.messages.get("monitoring_info", []))
    if offset is None:
        log.repair("fit: monitoring file without local_timestamp: put on UTC days", fit.path.name)
        offset = timedelta(0)
    rows = []
    for m in fit.messages.get("monitoring", []):
        day = _local_day(m.get("_timestamp"), offset, interval_end=True)
        kind = str(m.get("activity_type", ""))
        if day is None:
            continue
        steps = m.get("_raw_cycles") if kind in _STEP_TYPES else None
        rows.append({"date": day, "type": kind, "steps": steps, "active_kcal": m.get("active_calories")})
    log.read("fit: monitoring", len(fit.messages.get("monitoring", [])))
    frame = pd.DataFrame(rows, columns=["date", "type", "steps", "active_kcal"])
    parts = []
    for col in ("steps", "active_kcal"):
        have = frame.dropna(subset=[col]).astype({col: "float64"})
        if len(have):
            totals = have.groupby(["date", "type"])[col].apply(_counter_total).groupby("date").sum()
            parts.append(totals.rename(col))
    hr = [
        (
            _local_day(m.get("_timestamp"), offset),
            m.get("current_day_resting_heart_rate") or m.get("resting_heart_rate"),
        )
        for m in fit.messages.get("monitoring_hr_data", [])
    ]
    hr = [(d, v) for d, v in hr if d is not None and v]
    if hr:
        parts.append(pd.DataFrame(hr, columns=["date", "resting_hr"]).groupby("date")["resting_hr"].last())
    return pd.concat(parts, axis=1).rename_axis("date").reset_index() if parts else pd.DataFrame()


def fit_daily(fit: FitMessages, log: ImportLog) -> pd.DataFrame:
    """The daily rows one decoded FIT file contributes (``date`` + metrics; may be empty)."""
    log.read(f"fit: {fit.file_type} file")
    if fit.file_type == "activity":
        return _activity(fit, log)
    if fit.file_type in _MONITORING:
        return _monitoring(fit, log)
    if fit.file_type == "weight":
        log.read("fit: weight_scale", fit.counts.get("weight_scale", 0))
        log.note("fit: weight-scale files read: weight is not a daily wearable metric (not used)")
        return pd.DataFrame()
    log.reject(f"fit: file type {fit.file_type}: not used", fit.path.name)
    return pd.DataFrame()


def _combine(parts: list[pd.DataFrame]) -> pd.DataFrame:
    frame = pd.concat([p for p in parts if len(p)], ignore_index=True)
    for col in (
        "steps",
        "active_kcal",
        "resting_hr",
        "exercise_count",
        "exercise_minutes",
        "_hr_x_t",
        "_hr_t",
    ):
        if col not in frame:
            frame[col] = float("nan")
    daily = frame.groupby("date").agg(
        steps=("steps", lambda s: s.sum(min_count=1)),
        active_kcal=("active_kcal", lambda s: s.sum(min_count=1)),
        resting_hr=("resting_hr", "last"),
        exercise_count=("exercise_count", lambda s: s.sum(min_count=1)),
        exercise_minutes=("exercise_minutes", lambda s: s.sum(min_count=1)),
        _hr_x_t=("_hr_x_t", lambda s: s.sum(min_count=1)),
        _hr_t=("_hr_t", lambda s: s.sum(min_count=1)),
    )
    daily["exercise_avg_hr"] = daily["_hr_x_t"] / daily["_hr_t"].where(daily["_hr_t"] > 0)
    return daily.drop(columns=["_hr_x_t", "_hr_t"]).reset_index()


@loader(
    "fit",
    formats="Garmin .FIT file or a folder of them (activity, monitoring, weight-scale files)",
    description="Garmin FIT: exercise sessions (count, minutes, kcal, avg HR), monitoring steps, resting HR",
)
def load_fit(path: Path, log: ImportLog) -> LoadedSource:
    """Load FIT files (see the module docstring); ``path`` is a .FIT file or a folder."""
    files = sorted(p for p in path.rglob("*") if p.suffix.lower() == ".fit") if path.is_dir() else [path]
    if not files:
        raise WearbenchError(f"{path}: no .fit files in this folder")
    user = path.name if path.is_dir() else path.resolve().parent.name
    parts = [fit_daily(read_fit(f), log) for f in files]
    if not any(len(p) for p in parts):
        raise WearbenchError(f"{path}: no activity or monitoring data in {len(files)} FIT file(s)")
    daily = _combine(parts).assign(user_id=user)
    log.note("fit: one person per folder; user_id = folder name")
    log.note("fit: active_kcal = session total_calories (activity files) + monitoring active_calories")
    log.note("fit: not in this source: hrv, vo2max, bmr_kcal, mets, sleep and stress metrics")
    return LoadedSource(daily, None, extras={"files": [f.name for f in files]})
