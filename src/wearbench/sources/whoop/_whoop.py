"""The ``whoop`` loader: a WHOOP app data export (``physiological_cycles.csv``, ``workouts.csv``)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from wearbench._errors import WearbenchError
from wearbench.sources._loader import LoadedSource, loader
from wearbench.sources._report import ImportLog
from wearbench.sources.whoop._cycles import read_cycles
from wearbench.sources.whoop._workouts import read_workouts

CYCLES_FILE = "physiological_cycles.csv"
WORKOUTS_FILE = "workouts.csv"
SLEEPS_FILE = "sleeps.csv"


def _files(path: Path) -> tuple[Path, Path | None, Path | None]:
    """The cycles file and the optional workouts and sleeps files beside it."""
    if path.is_dir():
        cycles = path / CYCLES_FILE
        if not cycles.is_file():
            raise WearbenchError(f"{path}: no {CYCLES_FILE} in this folder (expected a WHOOP export)")
    elif path.name.lower() in (WORKOUTS_FILE, SLEEPS_FILE):
        raise WearbenchError(f"{path}: pass {CYCLES_FILE} or the export folder (this file is read beside it)")
    else:
        cycles = path
    folder = cycles.parent
    workouts, sleeps = folder / WORKOUTS_FILE, folder / SLEEPS_FILE
    return cycles, workouts if workouts.is_file() else None, sleeps if sleeps.is_file() else None


def _merge_workouts(daily: pd.DataFrame, workouts: pd.DataFrame) -> pd.DataFrame:
    """Cycle days plus workout days; a cycle day with no workout has 0 sessions and 0 minutes."""
    out = daily.merge(workouts, on=["user_id", "date"], how="outer")
    for col in ("exercise_count", "exercise_minutes"):
        out[col] = out[col].fillna(0.0).where(out["date"].isin(daily["date"]) | out[col].notna())
    return out.sort_values("date", kind="stable").reset_index(drop=True)


@loader(
    "whoop",
    formats="WHOOP data export: physiological_cycles.csv (file or its folder), optional workouts.csv",
    description="WHOOP cycles → resting HR, HRV, sleep, deep/REM %, bedtime regularity; workouts → exercise",
)
def load_whoop(path: Path, log: ImportLog) -> LoadedSource:
    """Load a WHOOP export (one person; ``user_id`` is the name of the export's folder).

    Args:
        path: ``physiological_cycles.csv`` or the folder holding it (``workouts.csv`` beside it
            is read too; ``sleeps.csv`` is not needed: the cycles carry each night's main sleep).
        log: Import log to fill.

    Returns:
        Daily canonical metrics per local calendar day (the wake date of the cycle's sleep).

    Raises:
        WearbenchError: Missing, empty or malformed files (one line naming file and column).
    """
    cycles_path, workouts_path, sleeps_path = _files(path)
    user = cycles_path.resolve().parent.name or "whoop"
    daily = read_cycles(cycles_path, user, log)
    if workouts_path is not None:
        daily = _merge_workouts(daily, read_workouts(workouts_path, user, log))
    if sleeps_path is not None:
        log.note("whoop: sleeps.csv not read (main sleeps are in the cycles; naps are not main sleep)")
    return LoadedSource(daily=daily, extras={"user_id": user})
