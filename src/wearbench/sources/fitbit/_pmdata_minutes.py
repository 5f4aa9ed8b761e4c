"""PMData (Fitbit Versa 2 JSON per participant) → the seed's 19 minute channels (a :class:`MinuteCohort`).

=====================================  ==========================================================
channel                                PMData source (``pNN/fitbit/``)
=====================================  ==========================================================
3 Watch StepCount (steps/min)          ``steps.json`` ``value`` per ``dateTime`` minute
4 Watch DistanceWalkingRunning (m/min) ``distance.json`` ``value`` / 100 (Fitbit writes cm)
7 sleep:asleep                         ``sleep.json`` ``levels.data``: ``asleep``, ``light``,
                                       ``deep``, ``rem`` (every log, naps included)
8 sleep:inbed                          ``sleep.json`` ``levels.data``: any level (also ``wake``,
                                       ``awake``, ``restless``, ``unknown``)
9–18 workouts                          ``exercise.json`` ``[startTime, startTime + duration)``,
                                       ``activityName`` mapped by :data:`PMDATA_WORKOUTS`
=====================================  ==========================================================

Missing for everyone (reported per user): the iPhone channels 0–2, Watch heart rate 5
(``heart_rate.json`` is not in the shared copy) and Watch active energy 6 (``calories.json``
neither). A person without ``steps.json`` (8 of the 10 in the shared copy) is **kept** with NaN
steps and distance: the sleep and workout minutes are real and the outcome labels are per person.
Steps and distance densify with 0 (Fitbit's export leaves out most zero-step minutes), sleep and
workout minutes are 1 where a level or session overlaps the minute, else 0. A day is a local day
that a step, sleep or exercise record touches. Times are the participant's local wall clock.

Non-wear (pluggable, ``rule(values, present, worn_day)``): without heart rate the minute-level
wear signal is gone; the default :func:`pmdata_non_wear` uses Fitbit's own daily verdict
(``sedentary_minutes.json``: a day with 1440 sedentary minutes, or no row, is not worn; every
minute of such a day is non-wear, every minute of a worn day is worn).
:func:`pmdata_record_non_wear` is the strict minute rule (no step row and not in bed).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd

from wearbench._errors import WearbenchError
from wearbench.minutes import (
    ASLEEP,
    CHANNEL_NAMES,
    INBED,
    MINUTES_PER_DAY,
    N_CHANNELS,
    WORKOUTS,
    MinuteCohort,
    MinuteUser,
    write_minute_cohort,
)
from wearbench.sources.fitbit._common import load_json_list
from wearbench.sources.fitbit._pmdata import _participants
from wearbench.sources.fitbit._pmdata_labels import pmdata_labels

F32Array = npt.NDArray[np.float32]
BoolArray = npt.NDArray[np.bool_]
I64Array = npt.NDArray[np.int64]
#: ``rule(values, present, worn_day) -> non_wear``: values and present ``(n_days, 19, 1440)``,
#: worn_day ``(n_days,)`` bool (Fitbit's daily sedentary minutes < 1440) → ``(n_days, 1440)`` bool.
PmdataNonWearRule = Callable[[F32Array, BoolArray, BoolArray], BoolArray]
STEPS, DISTANCE = 3, 4
#: Channels PMData's shared copy can fill.
PMDATA_CHANNELS: tuple[int, ...] = (STEPS, DISTANCE, ASLEEP, INBED, *WORKOUTS)
#: ``sleep.json`` levels that count as asleep (classic: ``asleep``; stages: light, deep, REM).
ASLEEP_LEVELS: frozenset[str] = frozenset({"asleep", "light", "deep", "rem"})
#: Fitbit ``activityName`` → the seed's workout type; any other name goes to ``Other``.
PMDATA_WORKOUTS: dict[str, str] = {
    "Walk": "Walking",
    "Run": "Running",
    "Outdoor Bike": "Cycling",
    "Bike": "Cycling",
    "Spinning": "Cycling",
    "Weights": "TraditionalStrengthTraining",
    "Elliptical": "Elliptical",
    "Interval Workout": "HighIntensityIntervalTraining",
    "Aerobic Workout": "MixedMetabolicCardioTraining",
    "Yoga": "Yoga",
}
_CHANNEL = {name: CHANNEL_NAMES.index(name) for name in CHANNEL_NAMES}
_EPOCH = np.datetime64("1970-01-01T00:00", "m")


def pmdata_non_wear(values: F32Array, present: BoolArray, worn_day: BoolArray) -> BoolArray:
    """The default PMData rule: every minute of a day Fitbit did not count as worn.

    Args:
        values: ``(n_days, 19, 1440)`` minute values (unused).
        present: ``(n_days, 19, 1440)`` bool, True where a record touches the minute (unused).
        worn_day: ``(n_days,)`` bool, True where ``sedentary_minutes.json`` has a value < 1440.

    Returns:
        ``(n_days, 1440)`` bool, True where the device counts as not worn.
    """
    del values
    return np.repeat(~worn_day[:, None], present.shape[2], axis=1)


def pmdata_record_non_wear(values: F32Array, present: BoolArray, worn_day: BoolArray) -> BoolArray:
    """The strict minute rule: a minute with no ``steps.json`` row that is not in bed.

    Args:
        values: ``(n_days, 19, 1440)`` minute values (unused).
        present: ``(n_days, 19, 1440)`` bool, True where a record touches the minute.
        worn_day: ``(n_days,)`` bool (unused).

    Returns:
        ``(n_days, 1440)`` bool. Fitbit's export leaves out most zero-step minutes, so this rule
        drops most days (and every day of a person without ``steps.json``).
    """
    del values, worn_day
    return np.asarray(~(present[:, STEPS] | present[:, INBED]), dtype=np.bool_)


def _minute(stamps: Sequence[Any], where: str) -> I64Array:
    """Local timestamps (``2019-11-01 00:48:00`` or ISO with ``T``) → minutes since 1970 (floored)."""
    return _seconds(stamps, where) // 60


def _seconds(stamps: Sequence[Any], where: str) -> I64Array:
    """Local timestamps (``2019-11-01 00:48:00`` or ISO with ``T``) → seconds since 1970."""
    parsed = pd.to_datetime(pd.Series([str(s).replace("T", " ") for s in stamps]), errors="coerce")
    if parsed.isna().any():
        bad = stamps[int(np.flatnonzero(parsed.isna().to_numpy())[0])]
        raise WearbenchError(f"{where}: unreadable time {bad!r}")
    return np.asarray(parsed.to_numpy().astype("datetime64[s]").astype(np.int64), dtype=np.int64)


def _spans(start: I64Array, seconds: npt.NDArray[np.float64]) -> I64Array:
    """Every minute (since 1970) that an interval ``[start, start + seconds)`` (local seconds) overlaps.

    A zero-length interval keeps its own minute.
    """
    m0 = start // 60
    m1 = np.maximum(np.ceil((start + seconds) / 60).astype(np.int64) - 1, m0)
    n = m1 - m0 + 1
    offsets = np.arange(int(n.sum()), dtype=np.int64) - np.repeat(np.cumsum(n) - n, n)
    return np.asarray(np.repeat(m0, n) + offsets, dtype=np.int64)


def _series(folder: Path, name: str) -> tuple[I64Array, npt.NDArray[np.float64]] | None:
    file = folder / "fitbit" / f"{name}.json"
    if not file.is_file():
        return None
    data = load_json_list(file, f"{folder.name}/fitbit/{file.name}", ("dateTime", "value"))
    value = pd.to_numeric(pd.Series([r["value"] for r in data]), errors="coerce").to_numpy(dtype=np.float64)
    minute = _minute([r["dateTime"] for r in data], f"{folder.name}/fitbit/{file.name}")
    keep = np.isfinite(value)
    return minute[keep], value[keep]


def _sleep(folder: Path) -> dict[int, I64Array] | None:
    file = folder / "fitbit" / "sleep.json"
    if not file.is_file():
        return None
    logs = load_json_list(file, f"{folder.name}/fitbit/sleep.json", ("levels",))
    rows = [d for log in logs for d in (log["levels"] or {}).get("data", [])]
    if not rows:
        return {ASLEEP: np.zeros(0, np.int64), INBED: np.zeros(0, np.int64)}
    start = _seconds([d["dateTime"] for d in rows], f"{folder.name}/fitbit/sleep.json levels.data")
    length = np.array([float(d["seconds"]) for d in rows])
    asleep = np.array([d.get("level") in ASLEEP_LEVELS for d in rows])
    return {ASLEEP: _spans(start[asleep], length[asleep]), INBED: _spans(start, length)}


def _exercise(folder: Path) -> tuple[dict[int, I64Array], dict[str, int]] | None:
    file = folder / "fitbit" / "exercise.json"
    if not file.is_file():
        return None
    sessions = load_json_list(file, f"{folder.name}/fitbit/exercise.json", ("startTime", "duration"))
    start = _seconds([s["startTime"] for s in sessions], f"{folder.name}/fitbit/exercise.json")
    length = np.array([float(s["duration"]) / 1000 for s in sessions])
    names = [str(s.get("activityName", "")) for s in sessions]
    channel = np.array([_CHANNEL[PMDATA_WORKOUTS.get(n, "Other")] for n in names])
    seen: dict[str, int] = {}
    for n in names:
        key = n + ("" if n in PMDATA_WORKOUTS else " → Other")
        seen[key] = seen.get(key, 0) + 1
    return {ch: _spans(start[channel == ch], length[channel == ch]) for ch in WORKOUTS}, dict(
        sorted(seen.items())
    )


def _worn_days(folder: Path, days: I64Array) -> BoolArray:
    file = folder / "fitbit" / "sedentary_minutes.json"
    if not file.is_file():
        return np.zeros(days.size, dtype=np.bool_)
    data = load_json_list(file, f"{folder.name}/fitbit/{file.name}", ("dateTime", "value"))
    day = _minute([r["dateTime"] for r in data], f"{folder.name}/fitbit/{file.name}") // MINUTES_PER_DAY
    sedentary = pd.to_numeric(pd.Series([r["value"] for r in data]), errors="coerce").to_numpy()
    worn = set(day[np.asarray(sedentary < MINUTES_PER_DAY)].tolist())
    return np.array([d in worn for d in days.tolist()], dtype=np.bool_)


def _pieces(
    folder: Path,
) -> tuple[dict[int, tuple[I64Array, npt.NDArray[np.float64] | None]], dict[str, int]]:
    """Per channel: (minutes, values; None for a binary channel); and the workout names seen."""
    out: dict[int, tuple[I64Array, npt.NDArray[np.float64] | None]] = {}
    for ch, name, scale in ((STEPS, "steps", 1.0), (DISTANCE, "distance", 0.01)):
        got = _series(folder, name)
        if got is not None:
            out[ch] = (got[0], got[1] * scale)
    sleep = _sleep(folder)
    if sleep is not None:
        out.update({ch: (m, None) for ch, m in sleep.items()})
    exercise = _exercise(folder)
    if exercise is None:
        return out, {}
    out.update({ch: (m, None) for ch, m in exercise[0].items()})
    return out, exercise[1]


def pmdata_minute_user(
    folder: str | os.PathLike[str], *, non_wear: PmdataNonWearRule = pmdata_non_wear
) -> tuple[MinuteUser, dict[str, Any]]:
    """One PMData participant folder (``pNN``) → dense minute days (see the module docstring).

    Returns:
        (the user, a plain-JSON report: days, rows per channel, workout names, missing channels,
        worn days, non-wear minutes).

    Raises:
        WearbenchError: For an unreadable file, or a person with no step, sleep or exercise record.
    """
    folder = Path(folder)
    pieces, workouts = _pieces(folder)
    every = [m for m, _ in pieces.values() if m.size]
    if not every:
        raise WearbenchError(f"{folder}: user {folder.name} has no steps, sleep or exercise minute")
    days = np.unique(np.concatenate(every) // MINUTES_PER_DAY)
    values = np.full((days.size, N_CHANNELS, MINUTES_PER_DAY), np.nan, dtype=np.float32)
    present = np.zeros(values.shape, dtype=np.bool_)
    for ch, (minute, value) in pieces.items():
        d, m = np.searchsorted(days, minute // MINUTES_PER_DAY), minute % MINUTES_PER_DAY
        values[:, ch] = 0.0
        if value is None:
            values[d, ch, m] = 1.0
        else:  # two rows of one minute (overlapping export months): the larger
            np.maximum.at(values[:, ch], (d, m), value.astype(np.float32))
        present[d, ch, m] = True
    worn = _worn_days(folder, days)
    mask = np.asarray(non_wear(values, present, worn), dtype=np.bool_)
    report = {
        "user_id": folder.name,
        "days": int(days.size),
        "worn_days": int(worn.sum()),
        "rows": {CHANNEL_NAMES[ch]: int(m.size) for ch, (m, _) in pieces.items() if ch not in WORKOUTS},
        "workouts": workouts,
        "missing_channels": [CHANNEL_NAMES[c] for c in range(N_CHANNELS) if c not in pieces],
        "non_wear_minutes": int(mask.sum()),
    }
    dates = (np.datetime64("1970-01-01", "D") + days).astype("datetime64[D]")
    return MinuteUser(folder.name, dates, values, mask), report


def pmdata_minutes(
    path: str | os.PathLike[str],
    out: str | os.PathLike[str] | None = None,
    *,
    non_wear: PmdataNonWearRule = pmdata_non_wear,
    users: Sequence[str] | None = None,
) -> MinuteCohort:
    """The PMData folder's participants → a :class:`MinuteCohort` (see the module docstring).

    Args:
        path: The PMData folder (``pNN/fitbit/*.json``) or one ``pNN`` folder.
        out: Minute-cohort folder to write, if given (with ``labels.csv``:
            :func:`~wearbench.sources.fitbit.pmdata_labels`).
        non_wear: The non-wear rule (default :func:`pmdata_non_wear`).
        users: Only these participants (default: every ``pNN`` folder).

    Returns:
        The cohort; ``source`` holds ``{"source": "pmdata", "non_wear_rule", "reports",
        "missing_channels": {user: [channel names]}}``.

    Raises:
        WearbenchError: For a folder without participants, an unknown user, an unreadable file.
    """
    root = Path(path)
    folders = {p.name: p for p in _participants(root)}
    ids = sorted(folders) if users is None else list(users)
    unknown = [u for u in ids if u not in folders]
    if unknown:
        raise WearbenchError(f"{root}: no participant folder {', '.join(unknown)}")
    pairs = [pmdata_minute_user(folders[u], non_wear=non_wear) for u in ids]
    reports = [r for _, r in pairs]
    source = {
        "source": "pmdata",
        "non_wear_rule": getattr(non_wear, "__name__", repr(non_wear)),
        "reports": reports,
        "missing_channels": {r["user_id"]: r["missing_channels"] for r in reports},
    }
    cohort = MinuteCohort(tuple(u for u, _ in pairs), source)
    if out is not None:
        write_minute_cohort(cohort.users, out, source)
        write_pmdata_labels(cohort, root.parent if (root / "fitbit").is_dir() else root, out)
    return cohort


def write_pmdata_labels(
    cohort: MinuteCohort, root: str | os.PathLike[str], out: str | os.PathLike[str]
) -> Path:
    """Write ``labels.csv`` (:func:`pmdata_labels`) into the minute-cohort folder ``out``.

    Returns:
        The file written.
    """
    last = {u.user_id: str(u.dates[-1]) for u in cohort.users}
    file = Path(out) / "labels.csv"
    pmdata_labels(Path(root), last).to_csv(file, index=False)
    return file
