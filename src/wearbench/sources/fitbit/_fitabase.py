"""The ``fitabase`` loader: Fitabase CSV exports (Furberg et al. 2016, Kaggle "FitBit Fitness Tracker Data").

Reads, per ``Fitabase Data <span>/`` export folder: ``dailyActivity_merged.csv`` (steps, active minutes,
total kcal), ``minuteMETsNarrow`` + ``minuteCaloriesNarrow`` (BMR, active kcal, MET-hours),
``sleepDay_merged.csv`` (sleep minutes, efficiency), ``minuteSleep_merged.csv`` if present (onset →
bedtime regularity), ``weightLogInfo_merged.csv`` (BMI) and any ``heartrate_seconds_merged*.csv[.gz]``
(resting HR, our derivation).
All Fitabase times are the participant's local wall clock; days are local calendar days.
See ``docs/sources-fitbit.md`` for the mapping and every derivation.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from wearbench._errors import WearbenchError
from wearbench.sources._days import bedtime_regularity, onset_minutes
from wearbench.sources._loader import LoadedSource, loader
from wearbench.sources._report import ImportLog
from wearbench.sources.fitbit._common import dates_or_reject, numbers_or_reject, read_csv_checked

DAY_FMT = "%m/%d/%Y"
STAMP_FMT = "%m/%d/%Y %I:%M:%S %p"
#: Days with fewer heart-rate minutes than this get no resting HR.
MIN_HR_MINUTES = 720
#: Rolling window (minutes) and fewest minutes with data in it for the resting-HR derivation.
RHR_WINDOW, RHR_MIN_MINUTES = 30, 20
_ACTIVITY_METRICS = ("steps", "exercise_minutes", "total_kcal", "bmr_kcal", "mets")


def _find(folder: Path, stem: str) -> Path | None:
    for suffix in (".csv", ".csv.gz", ".zip"):
        candidate = folder / f"{stem}{suffix}"
        if candidate.is_file():
            return candidate
    return None


def _export_folders(path: Path) -> list[Path]:
    if _find(path, "dailyActivity_merged"):
        return [path]
    folders = sorted(p for p in path.glob("Fitabase Data *") if _find(p, "dailyActivity_merged"))
    if not folders:
        raise WearbenchError(f"{path}: no dailyActivity_merged.csv here or in a 'Fitabase Data …' subfolder")
    return folders


def _heart_rate_files(path: Path, folders: list[Path]) -> list[Path]:
    places = [*folders, path, path / "heartrate", path / "heartrate_subsets"]
    found = {f for place in places for f in place.glob("heartrate_seconds_merged*.csv*")}
    return sorted(found)


def _activity(file: Path, log: ImportLog) -> pd.DataFrame:
    """Daily steps, exercise minutes (very + fairly active) and total kcal; non-wear days flagged."""
    cols = ("TotalSteps", "VeryActiveMinutes", "FairlyActiveMinutes", "SedentaryMinutes", "Calories")
    raw = read_csv_checked(file, ("Id", "ActivityDate", *cols))
    log.read(file.name, len(raw))
    raw = numbers_or_reject(raw, cols, file.name, log)
    raw, day = dates_or_reject(raw, "ActivityDate", DAY_FMT, file.name, log)
    out = pd.DataFrame(
        {
            "user_id": raw["Id"].str.strip(),
            "date": day,
            "steps": raw["TotalSteps"],
            "exercise_minutes": raw["VeryActiveMinutes"] + raw["FairlyActiveMinutes"],
            "total_kcal": raw["Calories"],
            "nonwear": (raw["TotalSteps"] == 0) & (raw["SedentaryMinutes"] >= 1440),
        }
    )
    kind = "dailyActivity: non-wear day (0 steps, 1440 sedentary min): activity metrics set missing"
    for _, row in out[out["nonwear"]].head(5).iterrows():
        log.repair(kind, f"{file.name}: user {row.user_id}, {row.date.date()}, TotalSteps = 0", n=0)
    if out["nonwear"].any():
        log.repair(kind, n=int(out["nonwear"].sum()))
    return out


def _minute_energy(folder: Path, log: ImportLog) -> pd.DataFrame | None:
    """Per user-day BMR (kcal) and moderate-or-vigorous MET-hours from the minute METs and calories files."""
    mets_file, kcal_file = (
        _find(folder, "minuteMETsNarrow_merged"),
        _find(folder, "minuteCaloriesNarrow_merged"),
    )
    if mets_file is None or kcal_file is None:
        log.note("fitabase: minute METs/calories files absent: no bmr_kcal, active_kcal or mets")
        return None
    frames = []
    for file, col in ((mets_file, "METs"), (kcal_file, "Calories")):
        raw = read_csv_checked(file, ("Id", "ActivityMinute", col), name=file.name)
        log.read(file.name, len(raw))
        raw = numbers_or_reject(raw, (col,), file.name, log)
        keep = [col, "line"] if col == "METs" else [col]
        frames.append(raw.set_index(["Id", "ActivityMinute"])[keep])
    both = pd.concat(frames, axis=1, join="inner").reset_index()  # line = the METs file's line
    both, stamp = dates_or_reject(both, "ActivityMinute", STAMP_FMT, mets_file.name, log)
    both = both.assign(user_id=both["Id"].str.strip(), date=stamp.dt.normalize(), met=both["METs"] / 10)
    rest = both[both["met"] == 1.0].groupby(["user_id", "date"])["Calories"].agg(["median", "size"])
    bmr = (rest["median"] * 1440).where(rest["size"] >= 60)
    vig = both[both["met"] >= 3.0]
    met_h = (vig["met"] / 60).groupby([vig["user_id"], vig["date"]]).sum()
    minutes = both.groupby(["user_id", "date"]).size()
    out = pd.DataFrame({"bmr_kcal": bmr, "mets": met_h}).reindex(minutes.index)
    out["mets"] = out["mets"].fillna(0.0)
    out["minutes"] = minutes
    log.note(
        "fitabase: bmr_kcal = 1440 × the day's median kcal/min at 1.0 MET (Fitbit's BMR rate); "
        "active_kcal = dailyActivity Calories − bmr_kcal; mets = Σ MET/60 over minutes ≥ 3 MET "
        "(minuteMETsNarrow stores MET × 10)"
    )
    return out.reset_index()


def _sleep_days(file: Path, log: ImportLog) -> pd.DataFrame:
    """Sleep minutes and efficiency (asleep / in bed × 100) per sleep day; exact duplicate rows dropped."""
    cols = ("TotalSleepRecords", "TotalMinutesAsleep", "TotalTimeInBed")
    raw = read_csv_checked(file, ("Id", "SleepDay", *cols))
    log.read(file.name, len(raw))
    dup = raw.drop(columns="line").duplicated()
    kind = f"{file.name}: exact duplicate row dropped"
    for _, row in raw[dup].head(5).iterrows():
        log.repair(kind, f"{file.name} line {row['line']}: user {row['Id']}, {row['SleepDay']}", n=0)
    if dup.any():
        log.repair(kind, n=int(dup.sum()))
    raw = numbers_or_reject(raw[~dup], cols, file.name, log)
    raw, day = dates_or_reject(raw, "SleepDay", STAMP_FMT, file.name, log)
    in_bed = raw["TotalTimeInBed"].where(raw["TotalTimeInBed"] > 0)
    log.note("fitabase: sleepDay TotalMinutesAsleep sums all of the day's sleep records (naps included)")
    return pd.DataFrame(
        {
            "user_id": raw["Id"].str.strip(),
            "date": day.dt.normalize(),
            "sleep_minutes": raw["TotalMinutesAsleep"],
            "sleep_efficiency": raw["TotalMinutesAsleep"] / in_bed * 100,
        }
    )


def _minute_sleep(file: Path, log: ImportLog) -> pd.DataFrame:
    """Bedtime regularity from ``minuteSleep_merged.csv``: onset of each wake date's longest sleep log."""
    raw = read_csv_checked(file, ("Id", "date", "value", "logId"))
    log.read(file.name, len(raw))
    raw = numbers_or_reject(raw, ("value",), file.name, log)
    raw, stamp = dates_or_reject(raw, "date", STAMP_FMT, file.name, log)
    frame = pd.DataFrame(
        {"user_id": raw["Id"].str.strip(), "log": raw["logId"], "t": stamp, "v": raw["value"]}
    )
    logs = frame.groupby(["user_id", "log"]).agg(
        end=("t", "max"), n=("t", "size"), onset=("t", lambda t: t[frame.loc[t.index, "v"] == 1].min())
    )
    logs = logs.dropna(subset=["onset"]).reset_index()
    logs["date"] = logs["end"].dt.normalize()
    main = logs.sort_values("n", ascending=False, kind="stable").drop_duplicates(["user_id", "date"])
    main = main.sort_values(["user_id", "date"]).assign(onset_min=lambda d: onset_minutes(d["onset"]))
    parts = [
        bedtime_regularity(g["date"], g["onset_min"]).rename("bedtime_regularity")
        for _, g in main.groupby("user_id", sort=False)
    ]
    main = main.join(pd.concat(parts)) if parts else main.assign(bedtime_regularity=np.nan)
    log.note("fitabase: bedtime onset = first asleep minute (value 1) of the wake date's longest sleep log")
    return main[["user_id", "date", "bedtime_regularity"]]


def resting_hr_from_seconds(minute_hr: pd.Series) -> float:
    """Our resting-HR derivation (bpm) for one local day of per-minute mean heart rate.

    The lowest rolling mean over :data:`RHR_WINDOW` consecutive minutes (at least :data:`RHR_MIN_MINUTES`
    with data); NaN when the day has fewer than :data:`MIN_HR_MINUTES` minutes with data.

    Args:
        minute_hr: Mean bpm per minute, indexed by the minute's timestamp (one local day).
    """
    if minute_hr.notna().sum() < MIN_HR_MINUTES:
        return float("nan")
    day = minute_hr.index.min().normalize()
    full = minute_hr.reindex(pd.date_range(day, periods=1440, freq="min"))
    return float(full.rolling(RHR_WINDOW, min_periods=RHR_MIN_MINUTES).mean().min())


def _resting_hr(files: list[Path], log: ImportLog) -> pd.DataFrame | None:
    if not files:
        log.note("fitabase: no heartrate_seconds file: no resting_hr")
        return None
    rows: list[tuple[str, pd.Timestamp, float]] = []
    for file in files:
        raw = read_csv_checked(file, ("Id", "Time", "Value"))
        log.read(file.name, len(raw))
        raw = numbers_or_reject(raw, ("Value",), file.name, log)
        bad = (raw["Value"] <= 0) | (raw["Value"] > 250)
        if bad.any():
            first = raw[bad].iloc[0]
            example = f"{file.name} line {first['line']}: user {first['Id']}, Value = {first['Value']:g}"
            log.reject(f"{file.name}: heart rate outside 1–250 bpm", example, n=int(bad.sum()))
        raw, stamp = dates_or_reject(raw[~bad], "Time", STAMP_FMT, file.name, log)
        per_min = raw["Value"].groupby([raw["Id"].str.strip(), stamp.dt.floor("min")]).mean()
        per_min.index = per_min.index.set_names(["user_id", "minute"])
        days = pd.DatetimeIndex(per_min.index.get_level_values("minute")).normalize()
        for (user, day), series in per_min.groupby([per_min.index.get_level_values("user_id"), days]):
            day_ts = pd.Timestamp(str(day))
            value = resting_hr_from_seconds(series.droplevel("user_id"))
            if np.isnan(value):
                log.reject(
                    f"heartrate: day with < {MIN_HR_MINUTES} minutes of heart rate: no resting_hr",
                    f"{file.name}: user {user}, {day_ts.date()}, {series.size} minutes",
                )
            rows.append((str(user), day_ts, value))
    log.note(
        f"fitabase: resting_hr is OUR derivation (Fitbit's RHR algorithm is proprietary): the lowest "
        f"{RHR_WINDOW}-min rolling mean of per-minute HR in the local day "
        f"(≥ {RHR_MIN_MINUTES} min in the window, ≥ {MIN_HR_MINUTES} min of HR that day); "
        "it includes sleep, so it runs lower than the app's RHR"
    )
    return pd.DataFrame(rows, columns=["user_id", "date", "resting_hr"])


def _bmi(file: Path | None, log: ImportLog) -> pd.DataFrame | None:
    if file is None:
        return None
    raw = read_csv_checked(file, ("Id", "BMI"))
    log.read(file.name, len(raw))
    raw = numbers_or_reject(raw, ("BMI",), file.name, log)
    bmi = raw.assign(user_id=raw["Id"].str.strip()).groupby("user_id")["BMI"].median()
    log.note("fitabase: bmi = median of the user's weightLogInfo BMI entries; age, sex and ethnicity unknown")
    return bmi.reset_index().rename(columns={"BMI": "bmi"})


def _dedupe(table: pd.DataFrame, what: str, log: ImportLog) -> pd.DataFrame:
    """Drop repeated user-days (overlapping exports) before merging, keeping the first (counted)."""
    dup = table.duplicated(["user_id", "date"], keep="first")
    if dup.any():
        row = table[dup].iloc[0]
        log.repair(
            f"{what}: user-day in two exports: kept the first",
            f"user {row.user_id}, {row.date.date()}",
            n=int(dup.sum()),
        )
    return table[~dup]


def _tables(folders: list[Path], log: ImportLog) -> dict[str, list[pd.DataFrame]]:
    tables: dict[str, list[pd.DataFrame]] = {
        "activity": [],
        "energy": [],
        "sleep": [],
        "onset": [],
        "bmi": [],
    }
    for folder in folders:
        tables["activity"].append(_activity(_find(folder, "dailyActivity_merged") or folder, log))
        energy = _minute_energy(folder, log)
        if energy is not None:
            tables["energy"].append(energy)
        sleep = _find(folder, "sleepDay_merged")
        if sleep is not None:
            tables["sleep"].append(_sleep_days(sleep, log))
        minute_sleep = _find(folder, "minuteSleep_merged")
        if minute_sleep is not None:
            tables["onset"].append(_minute_sleep(minute_sleep, log))
        bmi = _bmi(_find(folder, "weightLogInfo_merged"), log)
        if bmi is not None:
            tables["bmi"].append(bmi)
    return tables


def _blank_nonwear_and_partial(daily: pd.DataFrame, log: ImportLog) -> None:
    """Non-wear days lose every activity metric; partial days (< 1440 minute rows) lose the daily totals."""
    nonwear = daily["nonwear"].fillna(False).astype(bool)
    for col in _ACTIVITY_METRICS:
        if col in daily:
            daily.loc[nonwear, col] = np.nan
    if "minutes" not in daily:
        return
    partial = (daily["minutes"] < 1440) & ~nonwear
    if partial.any():
        row = daily[partial].iloc[0]
        log.repair(
            "minute files: partial day (< 1440 minutes, e.g. the export's last): daily totals set missing",
            f"user {row.user_id}, {row.date.date()}, {row.minutes:.0f} minutes",
            n=int(partial.sum()),
        )
    for col in ("steps", "exercise_minutes", "total_kcal", "mets"):
        daily.loc[partial, col] = np.nan


def _active_kcal(daily: pd.DataFrame, log: ImportLog) -> None:
    """``active_kcal`` = total − BMR; a day whose total is below its BMR gets none (counted)."""
    active = daily["total_kcal"] - daily["bmr_kcal"]
    short = (active < 0) & ~daily["nonwear"].fillna(False).astype(bool)
    if short.any():
        row = daily[short].iloc[0]
        example = (
            f"user {row.user_id}, {row.date.date()}, Calories = {row.total_kcal:g} < BMR {row.bmr_kcal:.0f}"
        )
        log.repair(
            "dailyActivity: Calories below the day's BMR (partial day): no active_kcal",
            example,
            int(short.sum()),
        )
    daily["active_kcal"] = active.where(active >= 0)


@loader(
    "fitabase",
    formats="Fitabase export folder ('Fitabase Data …/' *_merged.csv) + heartrate_seconds_merged*.csv[.gz]",
    description="Fitbit via Fitabase (Furberg et al. 2016): steps, kcal, active minutes, sleep, resting HR",
)
def load_fitabase(path: Path, log: ImportLog) -> LoadedSource:
    """Load a Fitabase export (see the module docstring); ``path`` is the export or the folder above it."""
    folders = _export_folders(path)
    tables = _tables(folders, log)
    daily = _dedupe(pd.concat(tables["activity"], ignore_index=True), "dailyActivity", log)
    for name, keys in (("energy", "minute files"), ("sleep", "sleepDay"), ("onset", "minuteSleep")):
        if tables[name]:
            daily = daily.merge(
                _dedupe(pd.concat(tables[name]), keys, log), on=["user_id", "date"], how="outer"
            )
    if not tables["onset"]:
        log.note("fitabase: minuteSleep_merged.csv absent: no bedtime_regularity")
    heart = _resting_hr(_heart_rate_files(path, folders), log)
    if heart is not None:
        daily = daily.merge(_dedupe(heart, "heartrate", log), on=["user_id", "date"], how="outer")
    _blank_nonwear_and_partial(daily, log)
    if "bmr_kcal" in daily:
        _active_kcal(daily, log)
    log.note(
        "fitabase: exercise_minutes = VeryActiveMinutes + FairlyActiveMinutes (no session log in Fitabase)"
    )
    log.note(
        "fitabase: not in this source: hrv, vo2max, exercise_count, exercise_avg_hr, sleep stages, stress"
    )
    daily = daily.drop(columns=["total_kcal", "nonwear", "minutes"], errors="ignore")
    demo = pd.concat(tables["bmi"]).drop_duplicates("user_id") if tables["bmi"] else None
    return LoadedSource(daily, demo, extras={"exports": [f.name for f in folders]})
