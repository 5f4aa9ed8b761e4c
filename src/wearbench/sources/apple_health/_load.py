"""The ``apple-health`` loader: one export (``export.zip``/``export.xml``) → one user's days.

See ``docs/sources-apple-health.md`` for the record-type mapping and the rules on sources,
time zones, SDNN and exercise minutes.
"""

from __future__ import annotations

import datetime as dt
import math
from bisect import bisect_right
from pathlib import Path

import numpy as np
import pandas as pd

from wearbench.cohort import METRIC_NAMES
from wearbench.sources._loader import LoadedSource, loader
from wearbench.sources._report import MAX_EXAMPLES, ImportLog
from wearbench.sources.apple_health._collect import Collector, Workout
from wearbench.sources.apple_health._parse import parse_time, stream
from wearbench.sources.apple_health._sleep import sleep_daily

_SEX = {"HKBiologicalSexFemale": "F", "HKBiologicalSexMale": "M"}
_GENERIC_STEMS = {"export", "apple_health_export"}


def user_id_for(path: Path, me: dict[str, str]) -> str:
    """The export's user id.

    A ``userId`` attribute on ``<Me>`` if a tool added one (Apple writes none); else the file
    stem, or the nearest folder's name when the stem is the generic ``export``.
    """
    for key in ("userId", "user_id"):
        if me.get(key):
            return me[key]
    stem = path.stem if path.is_file() else path.name
    if stem in _GENERIC_STEMS:
        parent = (path.parent if path.is_file() else path).resolve()
        for p in (parent, *parent.parents):
            if p.name and p.name not in _GENERIC_STEMS:
                return p.name
    return stem


def collect(path: Path, log: ImportLog, *, keep_all: bool = False) -> Collector:
    """Stream the export into a :class:`Collector` and settle the cumulative types.

    Cumulative samples are de-duplicated window by window as they stream. If the export's
    records are not in time order (a sample starts before an already settled window), the file
    is read again keeping every sample (a note says so). Workouts without a heart-rate
    statistic get the mean of the HeartRate records inside them from one more pass that
    keeps nothing but per-workout sums.

    Raises:
        WearbenchError: For a missing, empty, truncated or malformed export.
    """
    name = path.name if path.is_file() else "export.xml"
    first = ImportLog()
    col = Collector(name, first, user_id_for(path, {}), keep_all=keep_all)
    stream(path, col.start, col.end, chunk_filter=col.chunk_filter)
    if col.dedup.unordered and not keep_all:
        first = ImportLog()
        col = Collector(name, first, col.user, keep_all=True)
        stream(path, col.start, col.end)
        first.note("records are not in time order: the export was read twice, keeping every sample")
    col.daily_cumulative = col.dedup.finish()
    _merge_log(log, first)
    col.log = log
    if col.hr_count and any(not math.isfinite(w.avg_hr) for w in col.workouts):
        _workout_heart_rate(path, col)
    return col


def _merge_log(dst: ImportLog, src: ImportLog) -> None:
    dst.rows_read.update(src.rows_read)
    dst.repairs.update(src.repairs)
    dst.rejections.update(src.rejections)
    for kind, examples in src.examples.items():
        room = MAX_EXAMPLES - len(dst.examples[kind])
        dst.examples[kind].extend(examples[: max(room, 0)])
    for note in src.notes:
        dst.note(note)


def _workout_heart_rate(path: Path, col: Collector) -> None:
    """Mean of the HeartRate records inside each workout that has no heart-rate statistic."""
    todo = sorted((w for w in col.workouts if not math.isfinite(w.avg_hr)), key=lambda w: w.start)
    starts = [w.start for w in todo]
    sums = [[0.0, 0] for _ in todo]
    hr_type = "HKQuantityTypeIdentifierHeartRate"

    def start(tag: str, attrs: dict[str, str], line: int) -> None:
        if tag != "Record" or attrs.get("type") != hr_type:
            return
        try:
            t, _ = parse_time(attrs.get("startDate", ""))
            v = float(attrs.get("value", ""))
        except ValueError:
            return
        i = bisect_right(starts, t) - 1
        while i >= 0 and todo[i].start <= t:
            if t <= todo[i].end and math.isfinite(v):
                sums[i][0] += v
                sums[i][1] += 1
            i -= 1

    stream(path, start, lambda tag: None)
    for w, (total, n) in zip(todo, sums, strict=True):
        w.avg_hr = total / n if n else math.nan


def _demographics(col: Collector, user: str, last_day: int | None) -> pd.DataFrame:
    dob_text = col.me.get("HKCharacteristicTypeIdentifierDateOfBirth", "")
    sex = _SEX.get(col.me.get("HKCharacteristicTypeIdentifierBiologicalSex", ""))
    age = math.nan
    try:
        dob = dt.date.fromisoformat(dob_text) if dob_text else None
    except ValueError:
        col.log.reject("Me: unreadable date of birth", f"{col.name}, user {user}: {dob_text!r}")
        dob = None
    if col.export_date is not None:
        ref_day: int | None = (col.export_date[0] + col.export_date[1]) // 86400
    else:
        ref_day = last_day
    if dob is not None and ref_day is not None:
        ref = dt.date(1970, 1, 1) + dt.timedelta(days=ref_day)
        age = ref.year - dob.year - ((ref.month, ref.day) < (dob.month, dob.day))
    return pd.DataFrame({"user_id": [user], "age": [float(age)], "sex": [sex]})


def _keep_workouts(col: Collector, rk: dict[int, tuple[int, str]]) -> list[Workout]:
    """Drop a workout that overlaps a better-ranked kept one by more than half its length."""
    kept: list[Workout] = []
    for w in sorted(col.workouts, key=lambda w: (-rk[w.source][0], rk[w.source][1], w.start)):
        if any(min(w.end, k.end) - max(w.start, k.start) > 0.5 * (w.end - w.start) for k in kept):
            col.log.repair(
                "Workout: duplicate of a better source's workout, dropped", f"{col.name} line {w.line}"
            )
            continue
        kept.append(w)
    return kept


def _workout_days(workouts: list[Workout]) -> pd.DataFrame:
    rows = []
    for w in workouts:
        mets = w.mets * w.minutes / 60 if math.isfinite(w.mets) else math.nan
        rows.append(((w.start + w.offset) // 86400, w.minutes, w.avg_hr, mets))
    frame = pd.DataFrame(rows, columns=["day", "minutes", "hr", "mets"])
    frame["hr_w"] = frame["hr"] * frame["minutes"]
    frame["hr_m"] = frame["minutes"].where(frame["hr"].notna(), 0.0)
    g = frame.groupby("day")
    return pd.DataFrame(
        {
            "exercise_count": g.size().astype("float64"),
            "exercise_minutes": g["minutes"].sum(),
            "exercise_avg_hr": g["hr_w"].sum(min_count=1) / g["hr_m"].sum().replace(0.0, np.nan),
            "mets": g["mets"].agg(_all_or_nan),
        }
    )


def _all_or_nan(values: pd.Series) -> float:
    return float(values.sum()) if values.notna().all() else math.nan


def daily_frame(col: Collector) -> pd.DataFrame:
    """Per local day (index: days since 1970-01-01) every canonical metric the export has."""
    rk = col.ranks
    columns = {
        k: v
        for k, v in col.daily_cumulative.items()
        if k in ("steps", "active_kcal", "bmr_kcal", "exercise_time")
    }
    for (metric, day), (total, n) in col.point.items():
        columns.setdefault(metric, {})[day] = total / n
    frame = pd.DataFrame(columns)
    sleep = sleep_daily(col.sleep, rk, col.log, col.where)
    if len(sleep):
        frame = frame.join(sleep.set_index("day"), how="outer")
    workouts = _keep_workouts(col, rk)
    exercise_time = frame.pop("exercise_time") if "exercise_time" in frame else None
    if workouts:
        wd = _workout_days(workouts)
        frame = frame.join(wd, how="outer")
        for c in ("exercise_count", "exercise_minutes", "mets"):
            frame[c] = frame[c].where(frame.index.isin(wd.index), 0.0)
        col.log.note("exercise_minutes: total duration of workouts (AppleExerciseTime not used)")
    elif exercise_time is not None:
        frame["exercise_minutes"] = exercise_time
        col.log.note("exercise_minutes: AppleExerciseTime per day (the export has no workouts)")
    if "steps" in frame:
        frame["steps"] = frame["steps"].round()
    return frame[[c for c in METRIC_NAMES if c in frame]].sort_index()


@loader(
    "apple-health",
    formats="export.zip or export.xml",
    description="Apple Health export: one user; Watch > iPhone > other source priority; local days",
)
def load_apple_health(path: Path, log: ImportLog) -> LoadedSource:
    """Load an Apple Health export.zip/export.xml: one user, Watch > iPhone priority, local days.

    See ``docs/sources-apple-health.md`` for the mapping, de-duplication and time-zone rules.
    """
    col = collect(path, log)
    user = col.user
    frame = daily_frame(col)
    if "hrv" in frame:
        log.note("hrv: Apple's HeartRateVariabilitySDNN (SDNN, ms, daily mean), not RMSSD")
    dates = pd.to_datetime(frame.index.to_numpy(dtype="int64"), unit="D")
    daily = frame.reset_index(drop=True).assign(user_id=user, date=dates)
    last_day = int(frame.index.max()) if len(frame) else None
    return LoadedSource(daily, _demographics(col, user, last_day), extras={"user_id": user})
