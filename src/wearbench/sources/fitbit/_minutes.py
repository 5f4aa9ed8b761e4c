"""Fitabase minute files → the seed's 19 minute channels as dense days (a :class:`MinuteCohort`).

A Fitbit is a wrist device, so its signals go to the Watch channels:

=====================================  ==========================================================
channel                                Fitabase source
=====================================  ==========================================================
3 Watch StepCount (steps/min)          ``minuteStepsNarrow_merged`` ``Steps``
5 Watch HeartRate (bpm)                ``heartrate_seconds_merged*`` ``Value``, mean per minute
6 Watch ActiveEnergyBurned (kcal/min)  ``minuteCaloriesNarrow`` × (1 − 1/MET), MET =
                                       ``minuteMETsNarrow`` / 10 (Fitbit's calories are MET ×
                                       the resting rate, so this removes the resting part)
7 sleep:asleep                         ``minuteSleep_merged`` ``value`` = 1 (asleep)
8 sleep:inbed                          ``minuteSleep_merged`` any row (asleep, restless, awake)
=====================================  ==========================================================

The device has no iPhone channels (0–2), no minute distance (4) and no workout log (9–18):
those are all-NaN, and so is any channel whose file is absent or has no row for the user; the
report lists them per user. ``minuteIntensities`` has no seed channel and is not used.
Times are the participant's local wall clock (second-level times floored to the minute).
A user's days are the days any of its files has a row for; in a channel the user has, a
minute without a row is 0 (heart rate: NaN).
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
    ACTIVE_ENERGY,
    ASLEEP,
    CHANNEL_NAMES,
    HR,
    INBED,
    MINUTES_PER_DAY,
    N_CHANNELS,
    MinuteCohort,
    MinuteUser,
    write_minute_cohort,
)
from wearbench.sources.fitbit._fitabase import STAMP_FMT, _export_folders, _find, _heart_rate_files

F32Array = npt.NDArray[np.float32]
BoolArray = npt.NDArray[np.bool_]
#: ``rule(values, present) -> non_wear`` on ``(n_days, 19, 1440)`` arrays → ``(n_days, 1440)`` bool.
NonWearRule = Callable[[F32Array, BoolArray], BoolArray]
STEPS = 3
#: Channels a Fitabase export can fill.
FITBIT_CHANNELS: tuple[int, ...] = (STEPS, HR, ACTIVE_ENERGY, ASLEEP, INBED)
_Table = pd.DataFrame  # columns user (str), minute (int64, local minutes since 1970), value (float)


def fitbit_non_wear(values: F32Array, present: BoolArray) -> BoolArray:
    """The default Fitbit non-wear rule.

    For a user with heart rate: a minute with no heart-rate sample and no steps. For a user
    without any heart rate (the rule cannot see the sensor): every minute of a day without a
    step, and every minute without a steps row.

    Args:
        values: ``(n_days, 19, 1440)`` minute values.
        present: ``(n_days, 19, 1440)`` bool, True where a file has a row for the minute.

    Returns:
        ``(n_days, 1440)`` bool, True where the device counts as not worn.
    """
    steps = np.nan_to_num(values[:, STEPS]) > 0
    if present[:, HR].any():
        return np.asarray(~(present[:, HR] | steps), dtype=np.bool_)
    quiet_day = ~steps.any(axis=1, keepdims=True)
    return np.asarray(quiet_day | ~present[:, STEPS], dtype=np.bool_)


def _read(file: Path, time_col: str, value_col: str) -> _Table:
    """One narrow file as (user, local minute, value); times floored to the minute."""
    try:
        raw = pd.read_csv(file, usecols=["Id", time_col, value_col], dtype=str, engine="pyarrow")
    except (ValueError, OSError, pd.errors.ParserError) as e:
        raise WearbenchError(f"{file.name}: unreadable minute file ({str(e).splitlines()[0]})") from e
    codes, uniques = pd.factorize(raw[time_col])
    stamps = pd.to_datetime(pd.Series(uniques), format=STAMP_FMT, errors="coerce")
    bad = int(stamps.isna().sum())
    if bad:
        raise WearbenchError(f"{file.name}: {bad} {time_col} value(s) not in the form {STAMP_FMT!r}")
    minute = stamps.to_numpy().astype("datetime64[m]").astype(np.int64)[codes]
    value = pd.to_numeric(raw[value_col], errors="coerce").to_numpy(dtype=np.float64)
    return pd.DataFrame({"user": raw["Id"].str.strip(), "minute": minute, "value": value})


def _gather(files: Sequence[Path], time_col: str, value_col: str) -> _Table | None:
    if not files:
        return None
    return pd.concat([_read(f, time_col, value_col) for f in files], ignore_index=True)


def _reduce(table: _Table, how: str) -> _Table:
    """One row per user-minute: the ``how`` (``"max"``, ``"mean"``) of its values."""
    return pd.DataFrame(table.groupby(["user", "minute"], as_index=False).agg(value=("value", how)))


def _tables(path: Path) -> dict[str, _Table | None]:
    """Per channel: the rows of every user (duplicate user-minutes reduced)."""
    folders = _export_folders(path)

    def found(stem: str) -> list[Path]:
        return [f for f in (_find(folder, stem) for folder in folders) if f is not None]

    out: dict[str, _Table | None] = {}
    steps = _gather(found("minuteStepsNarrow_merged"), "ActivityMinute", "Steps")
    out["steps"] = None if steps is None else _reduce(steps, "max")
    hr = _gather(_heart_rate_files(path, folders), "Time", "Value")
    out["hr"] = None if hr is None else _reduce(hr, "mean")
    kcal = _gather(found("minuteCaloriesNarrow_merged"), "ActivityMinute", "Calories")
    mets = _gather(found("minuteMETsNarrow_merged"), "ActivityMinute", "METs")
    if kcal is None or mets is None:
        out["energy"] = None
    else:
        both = kcal.merge(mets, on=["user", "minute"], suffixes=("", "_met")).drop_duplicates(
            ["user", "minute"]
        )
        met = both["value_met"] / 10
        active = np.where(met > 0, both["value"] * (1 - 1 / met.where(met > 0, 1.0)), 0.0)
        out["energy"] = both.assign(value=np.maximum(active, 0.0))[["user", "minute", "value"]]
    sleep = _gather(found("minuteSleep_merged"), "date", "value")
    if sleep is None:
        out["asleep"] = out["inbed"] = None
    else:
        out["asleep"] = _reduce(sleep.assign(value=(sleep["value"] == 1).astype(np.float64)), "max")
        out["inbed"] = sleep.assign(value=1.0).drop_duplicates(["user", "minute"])
    return out


_CHANNEL_OF = {"steps": STEPS, "hr": HR, "energy": ACTIVE_ENERGY, "asleep": ASLEEP, "inbed": INBED}


def _user(user_id: str, parts: dict[str, _Table], non_wear: NonWearRule) -> tuple[MinuteUser, dict[str, Any]]:
    days = np.unique(np.concatenate([t["minute"].to_numpy() // MINUTES_PER_DAY for t in parts.values()]))
    values = np.full((days.size, N_CHANNELS, MINUTES_PER_DAY), np.nan, dtype=np.float32)
    present = np.zeros(values.shape, dtype=np.bool_)
    for name, table in parts.items():
        ch = _CHANNEL_OF[name]
        minute = table["minute"].to_numpy()
        d, m = np.searchsorted(days, minute // MINUTES_PER_DAY), minute % MINUTES_PER_DAY
        if ch != HR:
            values[:, ch] = 0.0
        values[d, ch, m] = table["value"].to_numpy(dtype=np.float32)
        present[d, ch, m] = True
    mask = np.asarray(non_wear(values, present), dtype=np.bool_)
    missing = [CHANNEL_NAMES[c] for c in range(N_CHANNELS) if not present[:, c].any()]
    report = {
        "user_id": user_id,
        "days": int(days.size),
        "rows": {CHANNEL_NAMES[_CHANNEL_OF[k]]: len(t) for k, t in parts.items()},
        "missing_channels": missing,
        "non_wear_minutes": int(mask.sum()),
    }
    dates = (np.datetime64("1970-01-01", "D") + days).astype("datetime64[D]")
    return MinuteUser(user_id, dates, values, mask), report


def fitabase_minutes(
    path: str | os.PathLike[str],
    out: str | os.PathLike[str] | None = None,
    *,
    non_wear: NonWearRule = fitbit_non_wear,
    users: Sequence[str] | None = None,
) -> MinuteCohort:
    """A Fitabase export's minute files → a :class:`MinuteCohort` (see the module docstring).

    Args:
        path: The Fitabase folder (``dailyActivity_merged.csv`` here or in ``Fitabase Data …/``
            subfolders; ``heartrate_seconds_merged*.csv[.gz]`` there or in ``heartrate/``).
        out: Minute-cohort folder to write, if given.
        non_wear: The non-wear rule (default :func:`fitbit_non_wear`).
        users: Only these user ids (default: every user with minute steps).

    Returns:
        The cohort; ``source`` holds ``{"source": "fitabase", "reports": [...],
        "missing_channels": {user: [channel names]}}``.

    Raises:
        WearbenchError: If the folder has no Fitabase export or no minute steps file, or a file
            is unreadable.
    """
    root = Path(path)
    tables = _tables(root)
    steps = tables["steps"]
    if steps is None:
        raise WearbenchError(f"{root}: no minuteStepsNarrow_merged file (needed for minute data)")
    ids = sorted(set(steps["user"])) if users is None else list(users)
    grouped = {k: dict(tuple(t.groupby("user"))) for k, t in tables.items() if t is not None}
    result, reports = [], []
    for uid in ids:
        parts = {k: g[uid] for k, g in grouped.items() if uid in g}
        if not parts:
            raise WearbenchError(f"{root}: user {uid!r} has no minute rows")
        user, report = _user(uid, parts, non_wear)
        result.append(user)
        reports.append(report)
    source = {
        "source": "fitabase",
        "non_wear_rule": getattr(non_wear, "__name__", repr(non_wear)),
        "reports": reports,
        "missing_channels": {r["user_id"]: r["missing_channels"] for r in reports},
    }
    if out is not None:
        write_minute_cohort(result, out, source)
    return MinuteCohort(tuple(result), source)
