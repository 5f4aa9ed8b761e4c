"""An Apple Health export → the seed's 19 minute channels as dense days (a :class:`MinuteUser`).

Channel sources (source class from the record's ``sourceName``/``device``: Watch, iPhone or
other; see :func:`~wearbench.sources.apple_health._collect.priority`). iPhone and Watch values
are separate channels, as in the seed, and are not de-duplicated against each other (nor are
two sources of one class):

=====================================  ===============================  ======================
channel                                record type                      source classes
=====================================  ===============================  ======================
0 iPhone StepCount (steps/min)         StepCount                        iPhone
1 iPhone DistanceWalkingRunning (m/min) DistanceWalkingRunning          iPhone
2 iPhone FlightsClimbed (flights/min)  FlightsClimbed                   iPhone, other
3 Watch StepCount                      StepCount                        Watch
4 Watch DistanceWalkingRunning         DistanceWalkingRunning           Watch
5 Watch HeartRate (bpm)                HeartRate                        Watch, other
6 Watch ActiveEnergyBurned (kcal/min)  ActiveEnergyBurned               Watch, other
7 sleep:asleep                         SleepAnalysis Asleep*            any
8 sleep:inbed                          SleepAnalysis (any value)        any
9–18 workouts                          Workout ``workoutActivityType``  any
=====================================  ===============================  ======================

A type the seed has only one device's channel for takes every source but the other device's
(a chest strap's heart rate, a third-party app's energy); steps and distance from other sources
are dropped (they would count the same steps a third time). Dropped samples are counted in the
report.

Rules: times are the record's local wall clock (UTC + its offset); a quantity sample spanning
several minutes is spread over them at a uniform rate (each minute gets the share of the
sample's duration it overlaps; a zero-length sample falls whole into its minute); heart rate
is the mean of the values of the samples touching the minute (NaN where none); sleep and
workout minutes are 1 where an interval overlaps the minute at all, else 0; workout types
outside the seed's ten go to ``Other`` (``Swimming`` included). Count channels densify with 0.
Days are the local days that any record touches (a day without any record is left out: it
would be all non-wear).

Labels: the export's ``<Me>`` record gives ``sex`` (M = 1; not set: no label), ``age`` (whole
years at the last minute day) and ``age_band``; :func:`apple_health_minutes` writes them to
``labels.csv`` beside the cohort (dated on each user's last minute day), if any export has them.
"""

from __future__ import annotations

import datetime as dt
import os
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from wearbench.cohort import AGE_BANDS
from wearbench.minutes import (
    ASLEEP,
    CHANNEL_NAMES,
    DEVICE_GROUPS,
    HR,
    INBED,
    MINUTES_PER_DAY,
    N_CHANNELS,
    WORKOUTS,
    MinuteCohort,
    MinuteUser,
    write_minute_cohort,
)
from wearbench.sources._report import ImportLog
from wearbench.sources.apple_health._collect import Collector
from wearbench.sources.apple_health._load import user_id_for
from wearbench.sources.apple_health._parse import stream

F32Array = npt.NDArray[np.float32]
BoolArray = npt.NDArray[np.bool_]
F64Array = npt.NDArray[np.float64]
I64Array = npt.NDArray[np.int64]
#: ``rule(values, present) -> non_wear``: values ``(n_days, 19, 1440)`` float32, present
#: ``(n_days, 19, 1440)`` bool (a sample touched the minute), result ``(n_days, 1440)`` bool.
NonWearRule = Callable[[F32Array, BoolArray], BoolArray]

_OTHER, _PHONE, _WATCH = 0, 1, 2
#: Quantity channels: channel → (collector's short name, source classes it takes).
QUANTITY_SOURCES: dict[int, tuple[str, tuple[int, ...]]] = {
    0: ("steps", (_PHONE,)),
    1: ("distance", (_PHONE,)),
    2: ("flights", (_PHONE, _OTHER)),
    3: ("steps", (_WATCH,)),
    4: ("distance", (_WATCH,)),
    6: ("active_kcal", (_WATCH, _OTHER)),
}
#: Source classes the heart-rate channel takes.
HR_SOURCES: tuple[int, ...] = (_WATCH, _OTHER)
#: Sleep stage codes (collector's) that count as asleep: Asleep/Unspecified, Core, Deep, REM.
ASLEEP_STAGES: tuple[int, ...] = (1, 3, 4, 5)
#: Workout type → channel, for the seed's ten types (others go to ``Other``).
WORKOUT_CHANNELS: dict[str, int] = {CHANNEL_NAMES[i]: i for i in WORKOUTS}
_OTHER_WORKOUT = WORKOUT_CHANNELS["Other"]
_CLASS_NAMES = {_OTHER: "other", _PHONE: "iPhone", _WATCH: "Watch"}


def no_watch_sample(values: F32Array, present: BoolArray) -> BoolArray:
    """The default non-wear rule: a minute with no Watch sample of any kind (channels 3–6).

    Args:
        values: ``(n_days, 19, 1440)`` minute values (unused by this rule).
        present: ``(n_days, 19, 1440)`` bool, True where a sample touched the minute.

    Returns:
        ``(n_days, 1440)`` bool, True where no heart-rate, step, distance or energy sample of
        the Watch channels touches the minute.
    """
    del values
    return np.asarray(~present[:, list(DEVICE_GROUPS["watch"]), :].any(axis=1), dtype=np.bool_)


def covered_minutes(ls: F64Array, le: F64Array) -> tuple[I64Array, I64Array, F64Array]:
    """Every minute each interval ``[ls, le)`` (local seconds) overlaps.

    Returns:
        (minute index since 1970-01-01 local, index of the interval, share of the interval's
        duration in that minute). A zero-length interval covers its own minute with share 1.
    """
    m0 = np.floor(ls / 60).astype(np.int64)
    m1 = np.maximum(np.ceil(le / 60).astype(np.int64) - 1, m0)
    n = m1 - m0 + 1
    rep = np.repeat(np.arange(len(ls), dtype=np.int64), n)
    minutes = m0[rep] + np.arange(int(n.sum()), dtype=np.int64) - np.repeat(np.cumsum(n) - n, n)
    length = (le - ls)[rep]
    overlap = np.minimum(le[rep], (minutes + 1) * 60.0) - np.maximum(ls[rep], minutes * 60.0)
    share = np.where(length > 0, overlap / np.where(length > 0, length, 1.0), 1.0)
    return minutes, rep, share


def _local(samples: Any, keep: BoolArray) -> tuple[F64Array, F64Array, F64Array]:
    off = np.frombuffer(samples.offset, dtype=np.int32).astype(np.float64)
    ls = np.frombuffer(samples.start, dtype=np.float64) + off
    le = np.frombuffer(samples.end, dtype=np.float64) + off
    return ls[keep], le[keep], np.frombuffer(samples.value, dtype=np.float64)[keep]


_Pieces = dict[int, tuple[I64Array, F64Array]]  # channel → (minutes, per-minute contribution)


def _quantities(col: Collector, counts: Counter[str]) -> _Pieces:
    out: _Pieces = {}
    prio = np.array([*col.source_priority, _OTHER], dtype=np.int8)
    for ch, (what, classes) in QUANTITY_SOURCES.items():
        samples = col.dedup.buffers.get(what)
        if samples is None or not len(samples):
            continue
        cls = prio[np.frombuffer(samples.source, dtype=np.int32)]
        keep = np.isin(cls, classes)
        minutes, rep, share = covered_minutes(*_local(samples, keep)[:2])
        out[ch] = (minutes, _local(samples, keep)[2][rep] * share)
        counts[CHANNEL_NAMES[ch]] += int(keep.sum())
    for what in ("steps", "distance", "flights", "active_kcal"):
        samples = col.dedup.buffers.get(what)
        if samples is None:
            continue
        cls = prio[np.frombuffer(samples.source, dtype=np.int32)]
        taken = {c for ch, (w, cs) in QUANTITY_SOURCES.items() if w == what for c in cs}
        for c in {_OTHER, _PHONE, _WATCH} - taken:
            if int((cls == c).sum()):
                counts[f"dropped: {what} from {_CLASS_NAMES[c]} sources"] += int((cls == c).sum())
    return out


def _heart_rate(col: Collector, counts: Counter[str]) -> tuple[I64Array, F64Array] | None:
    if not len(col.hr_time):
        return None
    prio = np.array([*col.source_priority, _OTHER], dtype=np.int8)
    keep = np.isin(prio[np.frombuffer(col.hr_source, dtype=np.int32)], HR_SOURCES)
    off = np.frombuffer(col.hr_offset, dtype=np.int32).astype(np.float64)
    ls = (np.frombuffer(col.hr_time, dtype=np.float64) + off)[keep]
    le = (np.frombuffer(col.hr_end, dtype=np.float64) + off)[keep]
    counts[CHANNEL_NAMES[HR]] += int(keep.sum())
    if int((~keep).sum()):
        counts["dropped: HeartRate from iPhone sources"] += int((~keep).sum())
    minutes, rep, _ = covered_minutes(ls, le)
    return minutes, np.frombuffer(col.hr_value, dtype=np.float64)[keep][rep]


def _intervals(rows: list[tuple[int, int, int]]) -> I64Array:
    arr = np.array(rows, dtype=np.float64).reshape(-1, 3)
    return covered_minutes(arr[:, 0] + arr[:, 2], arr[:, 1] + arr[:, 2])[0]


def _binaries(col: Collector, counts: Counter[str]) -> dict[int, I64Array]:
    out = {
        ASLEEP: _intervals([(s, e, o) for s, e, o, stage, _, _ in col.sleep if stage in ASLEEP_STAGES]),
        INBED: _intervals([(s, e, o) for s, e, o, _, _, _ in col.sleep]),
    }
    counts["sleep records"] += len(col.sleep)
    rows: dict[int, list[tuple[int, int, int]]] = {ch: [] for ch in WORKOUTS}
    for w in col.workouts:
        ch = WORKOUT_CHANNELS.get(w.kind, _OTHER_WORKOUT)
        rows[ch].append((w.start, w.end, w.offset))
        counts[f"workouts: {w.kind}" + ("" if w.kind in WORKOUT_CHANNELS else " → Other")] += 1
    out.update({ch: _intervals(r) for ch, r in rows.items()})
    return out


def _densify(
    quantities: _Pieces, hr: tuple[I64Array, F64Array] | None, binaries: dict[int, I64Array]
) -> tuple[int, F32Array, BoolArray]:
    """(first local day, values ``(n_days, 19, 1440)``, present ``(n_days, 19, 1440)``)."""
    every = [m for m, _ in quantities.values()] + list(binaries.values())
    every += [hr[0]] if hr is not None else []
    every = [m for m in every if m.size]
    if not every:
        empty = np.zeros((0, N_CHANNELS, MINUTES_PER_DAY), dtype=np.float32)
        return 0, empty, empty.astype(np.bool_)
    first = int(min(int(m.min()) for m in every)) // MINUTES_PER_DAY
    n_days = int(max(int(m.max()) for m in every)) // MINUTES_PER_DAY - first + 1
    size, base = n_days * MINUTES_PER_DAY, first * MINUTES_PER_DAY
    values = np.zeros((N_CHANNELS, size), dtype=np.float64)
    present = np.zeros((N_CHANNELS, size), dtype=np.bool_)
    for ch, (m, w) in quantities.items():
        values[ch] = np.bincount(m - base, weights=w, minlength=size)
        present[ch] = np.bincount(m - base, minlength=size) > 0
    values[HR] = np.nan
    if hr is not None:
        count = np.bincount(hr[0] - base, minlength=size)
        total = np.bincount(hr[0] - base, weights=hr[1], minlength=size)
        present[HR] = count > 0
        values[HR] = np.where(present[HR], total / np.maximum(count, 1), np.nan)
    for ch, m in binaries.items():
        present[ch] = np.bincount(m - base, minlength=size) > 0
        values[ch] = present[ch]
    shape = (N_CHANNELS, n_days, MINUTES_PER_DAY)
    out = values.astype(np.float32).reshape(shape).transpose(1, 0, 2)
    return first, np.ascontiguousarray(out), np.ascontiguousarray(present.reshape(shape).transpose(1, 0, 2))


def me_labels(me: dict[str, str], last_day: str) -> list[dict[str, Any]]:
    """``sex``, ``age`` and ``age_band`` label rows from an export's ``<Me>`` attributes.

    Args:
        me: The ``<Me>`` element's attributes.
        last_day: ISO date of the user's last minute day (the label date and age reference).

    Returns:
        ``{"task", "value", "date"}`` rows; none for an unset or unreadable attribute.
    """
    rows: list[dict[str, Any]] = []
    sex = {"HKBiologicalSexMale": 1.0, "HKBiologicalSexFemale": 0.0}.get(
        me.get("HKCharacteristicTypeIdentifierBiologicalSex", "")
    )
    if sex is not None:
        rows.append({"task": "sex", "value": sex, "date": last_day})
    try:
        dob = dt.date.fromisoformat(me.get("HKCharacteristicTypeIdentifierDateOfBirth", ""))
    except ValueError:
        return rows
    ref = dt.date.fromisoformat(last_day)
    age = ref.year - dob.year - ((ref.month, ref.day) < (dob.month, dob.day))
    rows.append({"task": "age", "value": float(age), "date": last_day})
    band = next((float(i) for i, (_, lo, hi) in enumerate(AGE_BANDS) if lo <= age < hi), None)
    if band is not None:
        rows.append({"task": "age_band", "value": band, "date": last_day})
    return rows


def apple_health_minute_user(
    path: str | os.PathLike[str], *, non_wear: NonWearRule = no_watch_sample, user_id: str | None = None
) -> tuple[MinuteUser, dict[str, Any]]:
    """One export's dense minute days in the seed's 19 channels (see the module docstring).

    Args:
        path: ``export.xml``, ``export.zip`` or a folder holding ``export.xml``.
        non_wear: The non-wear rule (default :func:`no_watch_sample`).
        user_id: The user's id (default: ``<Me userId>``, else the file or folder name).

    Returns:
        (the user, a plain-JSON report: days, samples per channel, dropped samples, workout
        types, non-wear minutes, import rejects, ``labels`` from ``<Me>``: :func:`me_labels`).

    Raises:
        WearbenchError: For a missing, unreadable or malformed export.
    """
    path = Path(path)
    log = ImportLog()
    col = Collector(path.name, log, user_id_for(path, {}), keep_all=True)
    stream(path, col.start, col.end)
    counts: Counter[str] = Counter()
    first, values, present = _densify(
        _quantities(col, counts), _heart_rate(col, counts), _binaries(col, counts)
    )
    days = np.flatnonzero(present.any(axis=(1, 2)))
    values, present = values[days], present[days]
    mask = np.asarray(non_wear(values, present), dtype=np.bool_)
    dates = (np.datetime64("1970-01-01", "D") + first + days).astype("datetime64[D]")
    uid = user_id or user_id_for(path, col.me)
    report = {
        "user_id": uid,
        "days": int(values.shape[0]),
        "counts": dict(sorted(counts.items())),
        "non_wear_rule": getattr(non_wear, "__name__", repr(non_wear)),
        "non_wear_minutes": int(mask.sum()),
        "rejected": {k: int(v) for k, v in sorted(log.rejections.items())},
        "labels": me_labels(col.me, str(dates[-1])) if dates.size else [],
    }
    return MinuteUser(uid, dates, values, mask), report


def apple_health_minutes(
    paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
    out: str | os.PathLike[str] | None = None,
    *,
    non_wear: NonWearRule = no_watch_sample,
) -> MinuteCohort:
    """Several exports (one user each) → a :class:`MinuteCohort`, written to ``out`` if given.

    Args:
        paths: One export (file or folder) or several.
        out: Minute-cohort folder to write (see :func:`~wearbench.minutes.write_minute_cohort`).
        non_wear: The non-wear rule (default :func:`no_watch_sample`).

    Returns:
        The cohort; ``source`` holds ``{"source": "apple-health", "reports": [...]}``.

    Raises:
        WearbenchError: For an unreadable export, or two exports with the same user id.
    """
    items = [paths] if isinstance(paths, (str, os.PathLike)) else list(paths)
    users, reports = [], []
    for p in items:
        user, report = apple_health_minute_user(p, non_wear=non_wear)
        users.append(user)
        reports.append(report)
    source = {"source": "apple-health", "reports": reports}
    if out is not None:
        write_minute_cohort(users, out, source)
        labels = [{"user_id": r["user_id"], **row} for r in reports for row in r["labels"]]
        if labels:
            frame = pd.DataFrame(labels, columns=["user_id", "task", "value", "date"])
            frame.sort_values(["task", "user_id"]).to_csv(Path(out) / "labels.csv", index=False)
    return MinuteCohort(tuple(users), source)
