"""The ``pmdata`` loader: PMData (Thambawita et al. 2020), Fitbit Versa 2 JSON exports per participant.

``path`` is the dataset folder (``pNN/fitbit/*.json`` per participant, ``participant-overview.xlsx`` or
``.csv``) or one participant folder. Times in the Fitbit JSON are the participant's local wall clock.
See ``docs/sources-fitbit.md`` for the mapping and every derivation.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import numpy as np
import pandas as pd

from wearbench._errors import WearbenchError
from wearbench.sources._days import bedtime_regularity, onset_minutes
from wearbench.sources._loader import LoadedSource, loader
from wearbench.sources._report import ImportLog
from wearbench.sources.fitbit._common import load_json_list
from wearbench.sources.fitbit._overview import pmdata_demographics

_STAMP = "%Y-%m-%d %H:%M:%S"
_Record = dict[str, Any]
_T = TypeVar("_T")
#: Fields that date a record, in order of preference (for rejection examples).
_DATE_KEYS = ("dateTime", "dateOfSleep", "startTime")


def _each(
    data: list[_Record], folder: Path, name: str, log: ImportLog, convert: Callable[[_Record, str], _T]
) -> list[_T]:
    """``convert(record, where)`` for every record; a record it cannot read is rejected and counted.

    The rejection example names file, record index, field and value (from the error), user and date.
    """
    out = []
    for i, rec in enumerate(data):
        where = f"{folder.name}/fitbit/{name}.json: record {i}"
        try:
            out.append(convert(rec, where))
        except WearbenchError as exc:
            day = next((str(rec[k]) for k in _DATE_KEYS if k in rec), "?")
            log.reject(f"{name}.json: unreadable record, rejected", f"{exc} (user {folder.name}, date {day})")
    return out


def _number(value: Any, where: str) -> float:
    """A JSON number or numeric string as float (None → NaN); anything else is a one-line error."""
    if value is None:
        return float("nan")
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise WearbenchError(f"{where}: expected a number, found {type(value).__name__}")
    try:
        return float(value)
    except ValueError:
        raise WearbenchError(f"{where}: expected a number, found {value!r}") from None


def _stamp(value: Any, where: str) -> pd.Timestamp:
    """A Fitbit local timestamp (``2019-11-01 14:56:32`` or ISO ``2019-11-02T07:19:30.000``)."""
    try:
        stamp = pd.Timestamp(str(value).replace("T", " "))
    except ValueError:
        raise WearbenchError(f"{where}: unreadable time {value!r}") from None
    if pd.isna(stamp):
        raise WearbenchError(f"{where}: unreadable time {value!r}")
    return stamp


def _records(folder: Path, name: str, keys: tuple[str, ...], log: ImportLog) -> list[_Record] | None:
    file = folder / "fitbit" / f"{name}.json"
    if not file.is_file():
        return None
    label = f"{folder.name}/fitbit/{file.name}"
    data = load_json_list(file, label, keys, log)
    log.read(f"{name}.json", len(data))
    ident = "logId" if data and "logId" in data[0] else "dateTime" if "dateTime" in keys else None
    if ident is None:
        return data
    seen: set[str] = set()
    kept = []
    for i, rec in enumerate(data):
        key = str(rec.get(ident))
        if key in seen:
            log.repair(
                f"{name}.json: repeated record (same {ident}, overlapping export months) dropped",
                f"{label}: record {i}, {ident} = {key}",
            )
            continue
        seen.add(key)
        kept.append(rec)
    return kept


def _resting_hr(folder: Path, log: ImportLog) -> pd.DataFrame | None:
    """``resting_heart_rate.json``: ``value.value`` (bpm) dated by ``dateTime``; 0 means no data."""
    data = _records(folder, "resting_heart_rate", ("dateTime", "value"), log)
    if data is None:
        return None

    def read(rec: _Record, where: str) -> tuple[pd.Timestamp, float]:
        inner = rec["value"]
        if not isinstance(inner, dict) or "value" not in inner:
            raise WearbenchError(f"{where}: expected value to be an object with 'value', found {inner!r}")
        return _stamp(rec["dateTime"], f"{where}, dateTime").normalize(), _number(
            inner["value"], f"{where}, value.value"
        )

    rows = _each(data, folder, "resting_heart_rate", log, read)
    for day, bpm in rows:
        if bpm == 0:
            log.repair(
                "resting_heart_rate.json: value 0 (no data) set missing",
                f"user {folder.name}, {day.date()}, resting_hr = 0",
            )
    frame = pd.DataFrame(rows, columns=["date", "resting_hr"])
    frame["resting_hr"] = frame["resting_hr"].astype("float64").replace(0.0, np.nan)
    return frame


def _daily_values(folder: Path, name: str, log: ImportLog) -> pd.Series | None:
    """A daily ``[{dateTime, value}]`` file as a float series indexed by local day."""
    data = _records(folder, name, ("dateTime", "value"), log)
    if data is None:
        return None

    def read(rec: _Record, where: str) -> tuple[pd.Timestamp, float]:
        return _stamp(rec["dateTime"], f"{where}, dateTime").normalize(), _number(
            rec["value"], f"{where}, value"
        )

    rows = _each(data, folder, name, log, read)
    days = pd.DatetimeIndex([d for d, _ in rows])
    return pd.Series([v for _, v in rows], index=days, dtype="float64").groupby(level=0).first()


def _stage_minutes(rec: _Record, where: str) -> tuple[float, float, float]:
    """Deep, REM and asleep (deep + light + REM) minutes of a ``stages`` log; NaN for ``classic`` logs."""
    summary = rec.get("levels", {}).get("summary", {}) if isinstance(rec.get("levels"), dict) else {}
    if rec.get("type") != "stages" or not all(k in summary for k in ("deep", "light", "rem")):
        return float("nan"), float("nan"), float("nan")
    deep, light, rem = (
        _number(summary[k].get("minutes"), f"{where}, levels.summary.{k}") for k in ("deep", "light", "rem")
    )
    return deep, rem, deep + light + rem


def _night(rec: _Record, where: str) -> dict[str, Any]:
    """One main-sleep record: wake date, minutes, efficiency, stage shares and onset time."""
    asleep = _number(rec["minutesAsleep"], f"{where}, minutesAsleep")
    in_bed = _number(rec["timeInBed"], f"{where}, timeInBed")
    deep, rem, staged = _stage_minutes(rec, where)
    start = _stamp(rec["startTime"], f"{where}, startTime")
    latency = _number(rec.get("minutesToFallAsleep"), f"{where}, minutesToFallAsleep")
    return {
        "date": _stamp(rec["dateOfSleep"], f"{where}, dateOfSleep").normalize(),
        "sleep_minutes": asleep,
        "sleep_efficiency": asleep / in_bed * 100 if in_bed > 0 else np.nan,
        "deep_sleep_pct": deep / staged * 100 if staged > 0 else np.nan,
        "rem_sleep_pct": rem / staged * 100 if staged > 0 else np.nan,
        "onset": start + pd.Timedelta(minutes=np.nan_to_num(latency)),
    }


def _sleep(folder: Path, log: ImportLog) -> pd.DataFrame | None:
    """Main sleep per wake date (``dateOfSleep``): minutes, efficiency, stage shares, onset."""
    keys = ("dateOfSleep", "startTime", "minutesAsleep", "timeInBed")
    data = _records(folder, "sleep", keys, log)
    if data is None:
        return None
    main = []
    for rec in data:
        if rec.get("mainSleep") is False:
            log.reject(
                "sleep.json: not the main sleep (nap): not used", f"user {folder.name}, {rec['dateOfSleep']}"
            )
        else:
            main.append(rec)
    rows = _each(main, folder, "sleep", log, _night)
    if not rows:
        return None
    frame = pd.DataFrame(rows).sort_values("sleep_minutes", ascending=False, kind="stable")
    dup = frame.duplicated("date")
    if dup.any():
        day = frame[dup]["date"].iloc[0].date()
        log.repair(
            "sleep.json: two main sleeps on one wake date: kept the longest",
            f"user {folder.name}, {day}",
            n=int(dup.sum()),
        )
    frame = frame[~dup].sort_values("date")
    frame["bedtime_regularity"] = bedtime_regularity(frame["date"], onset_minutes(frame["onset"]))
    return frame.drop(columns="onset")


def _exercise(folder: Path, weight_kg: float, log: ImportLog) -> pd.DataFrame | None:
    """Sessions per local start day: count, minutes, duration-weighted mean HR, MET-hours, VO2max."""
    data = _records(folder, "exercise", ("startTime", "duration"), log)
    if data is None:
        return None

    def read(rec: _Record, where: str) -> dict[str, Any]:
        vo2 = rec.get("vo2Max")
        return {
            "date": _stamp(rec["startTime"], f"{where}, startTime").normalize(),
            "minutes": _number(rec["duration"], f"{where}, duration") / 60_000,
            "hr": _number(rec.get("averageHeartRate"), f"{where}, averageHeartRate"),
            "kcal": _number(rec.get("calories"), f"{where}, calories"),
            "vo2": _number(vo2.get("vo2Max"), f"{where}, vo2Max") if isinstance(vo2, dict) else np.nan,
        }

    rows = _each(data, folder, "exercise", log, read)
    if not rows:
        return None
    s = pd.DataFrame(rows)
    s["hr_w"] = s["hr"] * s["minutes"]
    s["hr_min"] = s["minutes"].where(s["hr"].notna())
    g = s.groupby("date")
    out = pd.DataFrame(
        {
            "exercise_count": g.size().astype("float64"),
            "exercise_minutes": g["minutes"].sum(),
            "exercise_avg_hr": g["hr_w"].sum(min_count=1) / g["hr_min"].sum(min_count=1),
            "mets": g["kcal"].sum(min_count=1) / weight_kg,
            "vo2max": g["vo2"].mean(),
        }
    )
    return out.rename_axis("date").reset_index()


def _steps(folder: Path, log: ImportLog) -> pd.Series | None:
    """Minute-level ``steps.json`` summed per local day (days absent from the file stay missing)."""
    data = _records(folder, "steps", ("dateTime", "value"), log)
    if data is None:
        return None
    frame = pd.DataFrame(data)
    stamps = pd.to_datetime(frame["dateTime"], format=_STAMP, errors="coerce")
    values = pd.to_numeric(frame["value"], errors="coerce")
    bad = stamps.isna() | values.isna()
    if bad.any():
        first = int(np.flatnonzero(bad.to_numpy())[0])
        log.reject(
            "steps.json: unreadable minute record",
            f"{folder.name}/fitbit/steps.json: record {first}",
            n=int(bad.sum()),
        )
    return values[~bad].groupby(stamps[~bad].dt.normalize()).sum()


def _worn_days(folder: Path, log: ImportLog) -> pd.Series | None:
    """Days the tracker was worn: sedentary minutes < 1440 (a 1440-sedentary day is non-wear)."""
    sedentary = _daily_values(folder, "sedentary_minutes", log)
    return None if sedentary is None else sedentary < 1440


def _person(folder: Path, weight_kg: float, log: ImportLog) -> pd.DataFrame | None:
    worn = _worn_days(folder, log)
    readers: list[Callable[[], pd.DataFrame | None]] = [
        lambda: _resting_hr(folder, log),
        lambda: _sleep(folder, log),
        lambda: _exercise(folder, weight_kg, log),
    ]
    parts = [p for p in (read() for read in readers) if p is not None]
    steps = _steps(folder, log)
    if steps is not None:
        parts.append(steps.rename("steps").rename_axis("date").reset_index())
    if not parts and worn is None:
        return None
    daily = pd.DataFrame({"date": pd.DatetimeIndex([])})
    for part in parts:
        daily = daily.merge(part, on="date", how="outer")
    if worn is not None:
        daily = _zero_fill_exercise(daily, worn, folder.name, log)
        if "steps" in daily:
            off = daily["date"].isin(worn[~worn].index) & daily["steps"].notna()
            if off.any():
                log.repair(
                    "steps.json: minutes on a non-wear day (1440 sedentary min): steps set missing",
                    f"user {folder.name}, {daily.loc[off, 'date'].iloc[0].date()}",
                    n=int(off.sum()),
                )
                daily.loc[off, "steps"] = np.nan
    return daily.assign(user_id=folder.name)


def _zero_fill_exercise(daily: pd.DataFrame, worn: pd.Series, user: str, log: ImportLog) -> pd.DataFrame:
    """Worn days without a logged session get 0 sessions and 0 exercise minutes (a real zero)."""
    worn_days = worn[worn].index
    daily = daily.merge(pd.DataFrame({"date": worn_days}), on="date", how="outer")
    for col in ("exercise_count", "exercise_minutes"):
        if col not in daily:
            daily[col] = np.nan
    fill = daily["date"].isin(worn_days) & daily["exercise_count"].isna()
    daily.loc[fill, ["exercise_count", "exercise_minutes"]] = 0.0
    nonwear = (~worn).sum()
    if nonwear:
        log.repair(
            "sedentary_minutes.json: non-wear day (1440 sedentary min): no exercise zeros",
            f"user {user}, {worn[~worn].index[0].date()}",
            n=int(nonwear),
        )
    return daily


def _participants(path: Path) -> list[Path]:
    if (path / "fitbit").is_dir():
        return [path]
    found = sorted(
        p for p in path.iterdir() if p.is_dir() and re.fullmatch(r"p\d+", p.name) and (p / "fitbit").is_dir()
    )
    if not found:
        raise WearbenchError(f"{path}: no participant folders (pNN/fitbit/) found")
    return found


@loader(
    "pmdata",
    formats="PMData folder: pNN/fitbit/*.json (Fitbit Takeout JSON) + participant-overview.xlsx/.csv",
    description="PMData (Thambawita et al. 2020), Fitbit Versa 2: resting HR, sleep stages, exercise, steps",
)
def load_pmdata(path: Path, log: ImportLog) -> LoadedSource:
    """Load PMData (see the module docstring); ``path`` is the dataset folder or one ``pNN`` folder."""
    people = _participants(path)
    overview = path if len(people) > 1 or people[0] != path else path.parent
    demo, weights = pmdata_demographics(overview, people, log)
    frames = []
    for folder in people:
        person = _person(folder, weights.get(folder.name, float("nan")), log)
        if person is not None:
            frames.append(person)
    if not frames:
        raise WearbenchError(f"{path}: no Fitbit data in any participant folder")
    daily = pd.concat(frames, ignore_index=True)
    for note in _NOTES:
        log.note(note)
    return LoadedSource(daily, demo, extras={"participants": [p.name for p in people]})


_NOTES = (
    "pmdata: resting_hr = resting_heart_rate.json value.value (Fitbit's own daily RHR), 0 → missing",
    "pmdata: sleep from mainSleep logs dated by dateOfSleep (wake date); sleep_efficiency = "
    "minutesAsleep / timeInBed × 100 (not Fitbit's own 'efficiency' field); stage shares over "
    "deep + light + REM ('stages' logs only)",
    "pmdata: exercise_* from exercise.json sessions by local start day; worn days (sedentary < 1440 min) "
    "without a session get 0 sessions / 0 min; exercise_avg_hr = duration-weighted mean of averageHeartRate",
    "pmdata: mets = Σ session kcal / body weight (kg) (1 MET = 1 kcal/kg/h), weight = median "
    "self-reported weight",
    "pmdata: vo2max = mean of the day's exercise vo2Max estimates (GPS runs only)",
    "pmdata: steps only where minute-level steps.json exists; calories.json and heart_rate.json are not read",
    "pmdata: not in this source: hrv, active_kcal, bmr_kcal, stress",
)
