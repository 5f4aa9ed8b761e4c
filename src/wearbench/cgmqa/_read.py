"""Read a simulated or imported CGM folder into :class:`PatientRecord` objects, one per subject.

A simulated folder (``wearbench cgm simulate --profile healthloopqa``) holds ``readings.parquet``
(every grid point, NaN while missing), ``labels.parquet``, ``insulin.parquet`` and
``events.parquet``. An imported folder (``wearbench cgm import SOURCE PATH --grid 5``) holds the
readings on the grid (gaps are absent rows, which become NaN points here) and maybe events.
Every reading must lie on the 5-minute grid anchored at midnight; day 1 is the calendar day of a
subject's first reading.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path

import numpy as np
import pandas as pd

from wearbench._errors import WearbenchError
from wearbench.cgmqa._pump import pump_insulin
from wearbench.cgmqa._record import Bolus, Exercise, Meal, PatientRecord
from wearbench.cgmqa._rerun import rerun_folder, reruns_of, simulate_twin
from wearbench.cgmqa._series import DAY_MIN, POINTS_PER_DAY, STEP_MIN

READINGS = "readings.parquet"
LABELS = "labels.parquet"
INSULIN = "insulin.parquet"
EVENTS = "events.parquet"

#: Clock edges (minutes after midnight) typing a meal without a type or keyword: before 09:00
#: breakfast, to 11:30 morning snack, to 14:30 lunch, to 17:30 afternoon snack, then dinner (the
#: simulator's ``meal_type_at`` rule).
_MEAL_EDGES = ((540, "breakfast"), (690, "morning_snack"), (870, "lunch"), (1050, "afternoon_snack"))
_KEYWORDS = (("breakfast", "breakfast"), ("lunch", "lunch"), ("dinner", "dinner"), ("supper", "dinner"))


def read_records(folder: str | Path, *, rerun: bool = False) -> list[PatientRecord]:
    """Every subject of a simulated or imported CGM folder, sorted by subject id.

    Args:
        folder: A folder with ``readings.parquet`` (``subject_id``, ``time``, ``glucose`` mg/dL) and
            optionally ``labels.parquet`` (``fault_label``, ``hazard_label``), ``insulin.parquet``
            (``insulin_mu_per_min``) and ``events.parquet`` (``kind``, ``value``, ``detail`` and the
            simulator's typed columns).
        rerun: Re-simulate a simulated folder (its ``manifest.json`` says ``"source":
            "wearbench.sim"``) and set each record's ``rerun`` (:func:`rerun_folder`), for the
            counterfactual templates; other folders (real data) keep ``rerun`` None.

    Returns:
        One record per subject. Meals are the ``carbs`` events above 0 g; a table is None when the
        folder has no event of that kind at all. Without ``insulin.parquet``, a subject whose events
        hold basal rates (U/h) gets its insulin per sample from them and its boluses
        (:func:`~wearbench.cgmqa._pump.pump_insulin`).

    Raises:
        WearbenchError: Naming the file, subject and column, if a file lacks a column, a time is
            off the 5-minute grid or repeated, or a table covers a subject the readings lack; with
            ``rerun``, if a simulated folder cannot be re-simulated bit for bit.
    """
    root = Path(folder)
    if not (root / READINGS).is_file():
        raise WearbenchError(f"{root}: no {READINGS} (not a CGM folder)")
    readings = _table(root / READINGS, ("subject_id", "time", "glucose"))
    labels = _optional(root / LABELS, ("subject_id", "time", "fault_label", "hazard_label"))
    insulin = _optional(root / INSULIN, ("subject_id", "time", "insulin_mu_per_min"))
    events = _optional(root / EVENTS, ("subject_id", "time", "kind", "value", "detail"))
    subjects = sorted(readings["subject_id"].unique().tolist())
    for name, table in ((LABELS, labels), (INSULIN, insulin), (EVENTS, events)):
        extra = set() if table is None else set(table["subject_id"]) - set(subjects)
        if extra:
            raise WearbenchError(
                f"{root / name}: subject(s) {sorted(extra)[:3]} have no readings in {READINGS}"
            )
    kinds = set() if events is None else set(events["kind"])
    by = {name: _groups(t) for name, t in ((LABELS, labels), (INSULIN, insulin), (EVENTS, events))}
    records = _records(root, readings, by, kinds)
    if rerun and _simulated(root):
        reruns = rerun_folder(root, {r.subject: r.bg for r in records})
        records = [replace(r, rerun=reruns[r.subject]) for r in records]
    return records


def read_twin(folder: str | Path) -> list[PatientRecord]:
    """The records of a simulated folder's fault-free twin, each with its ``rerun``, by subject id.

    The twin (:func:`~wearbench.cgmqa._rerun.simulate_twin`: the folder's simulation with its
    faults switched off) is written to a temporary folder, read back as :func:`read_records`
    reads any folder (so its records equal those of a ``wearbench cgm simulate … --faults none``
    folder of the same settings, bit for bit) and deleted.

    Raises:
        WearbenchError: If the folder's manifest does not describe a profile simulation that can
            be run again (with the reason).
    """
    root = Path(folder)
    with tempfile.TemporaryDirectory(prefix="wearbench-twin-") as tmp:
        run = simulate_twin(root, Path(tmp) / "twin")
        records = read_records(Path(tmp) / "twin")
    reruns = reruns_of(root, run, {r.subject: r.bg for r in records})
    return [replace(r, rerun=reruns[r.subject]) for r in records]


def check_twin(folder: Path, records: Sequence[PatientRecord], twin: Sequence[PatientRecord]) -> None:
    """Check that ``twin`` is the fault-free twin of the folder's ``records``.

    Same subjects and days; per subject the same meals (hypo treatments aside: a person treats
    the lows of their own run; and the folder's false meals, a fault announced and not eaten) and
    exercise sessions (the scenario), and the same readings, bit for bit, before the first fault
    label (up to there the two runs are one).

    Raises:
        WearbenchError: ``"<folder>: its fault-free twin differs from it: …"``, naming the subject
            and what differs (the simulator, the profile or the manifest changed since the folder
            was written).
    """

    def fail(why: str) -> WearbenchError:
        return WearbenchError(
            f"{folder}: its fault-free twin differs from it: {why}; the simulator, the profile or the "
            "manifest may have changed since it was written (or build with --pm-pd-run same)"
        )

    twins = {r.subject: r for r in twin}
    if sorted(twins) != sorted(r.subject for r in records):
        raise fail(
            f"subjects {sorted(twins)} in the twin, {sorted(r.subject for r in records)} in the folder"
        )
    for r in records:
        t = twins[r.subject]
        if t.days != r.days:
            raise fail(f"subject {r.subject}: {t.days} days in the twin, {r.days} in the folder")
        for what, mine, theirs in (
            ("meals", _scenario(_eaten(r)), _scenario(_eaten(t))),
            ("exercise sessions", _scenario(r.exercise or ()), _scenario(t.exercise or ())),
        ):
            if mine != theirs:
                raise fail(f"subject {r.subject}: its {what} differ")
        first = r.bg.size if r.fault is None else int(np.argmax(np.append(r.fault != "", True)))
        if not np.array_equal(r.bg[:first], t.bg[:first], equal_nan=True):
            raise fail(
                f"subject {r.subject}: its readings differ before its first fault (minute {first * STEP_MIN})"
            )


def _eaten(record: PatientRecord) -> list[Meal]:
    """The meals of the scenario: neither a hypo treatment nor a false meal (announced, not eaten)."""
    labels = record.fault
    return [
        m
        for m in record.meals or ()
        if m.is_meal and (labels is None or labels[int(m.minute) // STEP_MIN] != "false_meal")
    ]


def _scenario(events: Iterable[object]) -> list[str]:
    """Events as comparable text (NaN equal to NaN)."""
    return [repr(e) for e in events]


def readings_sha256(records: Iterable[PatientRecord]) -> str:
    """sha256 of the readings of ``records`` (per subject in id order: id, NUL, readings as <f8).

    The readings are mg/dL, NaN while missing, as little-endian float64 bytes.
    """
    h = hashlib.sha256()
    for r in sorted(records, key=lambda r: r.subject):
        h.update(r.subject.encode("utf-8") + b"\0")
        h.update(np.asarray(r.bg, dtype="<f8").tobytes())
    return h.hexdigest()


def _simulated(root: Path) -> bool:
    """Whether the folder's manifest says the simulator wrote it."""
    try:
        return bool(json.loads((root / "manifest.json").read_text()).get("source") == "wearbench.sim")
    except (OSError, ValueError, AttributeError):
        return False


def _records(
    root: Path, readings: pd.DataFrame, by: dict[str, dict[str, pd.DataFrame]], kinds: set[str]
) -> list[PatientRecord]:
    """One record per subject of ``readings`` (``by``: the optional tables per subject)."""
    records = []
    for sid, rows in readings.groupby("subject_id", sort=True):
        s = str(sid)
        start = rows["time"].min().normalize()
        idx = _grid_index(rows["time"], start, root / READINGS, s)
        n = (int(idx.max()) // POINTS_PER_DAY + 1) * POINTS_PER_DAY
        bg = _scatter(n, idx, rows["glucose"].to_numpy(dtype=np.float64, na_value=np.nan), np.nan)
        fault = hazard = ins = None
        if (lab := by[LABELS].get(s)) is not None:
            li = _grid_index(lab["time"], start, root / LABELS, s, n)
            fault = _scatter(n, li, lab["fault_label"].fillna("").astype(str).to_numpy(dtype=object), "")
            hazard = _scatter(n, li, lab["hazard_label"].fillna("").astype(str).to_numpy(dtype=object), "")
        if (ir := by[INSULIN].get(s)) is not None:
            ii = _grid_index(ir["time"], start, root / INSULIN, s, n)
            ins = _scatter(
                n, ii, ir["insulin_mu_per_min"].to_numpy(dtype=np.float64, na_value=np.nan), np.nan
            )
        ev = by[EVENTS].get(s, _empty_events())
        minute = (ev["time"] - start).dt.total_seconds().to_numpy() / 60.0
        if ins is None:  # imported pump data: from its basal rates and boluses (``_pump``)
            ins = pump_insulin(ev, minute, n)
        keep = (minute >= 0) & (minute < n * STEP_MIN)
        ev, minute = ev[keep], minute[keep]
        records.append(
            PatientRecord(
                subject=s,
                start=start.to_pydatetime(),
                bg=bg,
                fault=fault,
                hazard=hazard,
                insulin=ins,
                meals=_meals(ev, minute) if "carbs" in kinds else None,
                boluses=_boluses(ev, minute) if "bolus" in kinds else None,
                exercise=_exercise(ev, minute) if "exercise" in kinds else None,
            )
        )
    return records


def _table(path: Path, columns: Sequence[str]) -> pd.DataFrame:
    try:
        df = pd.read_parquet(path)
    except Exception as e:  # pyarrow raises several types for a broken file
        raise WearbenchError(f"{path}: cannot read ({e})") from e
    missing = [c for c in columns if c not in df]
    if missing:
        raise WearbenchError(f"{path}: lacks column(s) {', '.join(missing)}")
    df = df.copy()
    df["subject_id"] = df["subject_id"].astype(str)
    df["time"] = pd.to_datetime(df["time"])
    if df["time"].isna().any():
        sid = df.loc[df["time"].isna(), "subject_id"].iloc[0]
        raise WearbenchError(f"{path}: subject {sid}: a missing value in column time")
    return df.sort_values(["subject_id", "time"], kind="stable").reset_index(drop=True)


def _optional(path: Path, columns: Sequence[str]) -> pd.DataFrame | None:
    return _table(path, columns) if path.is_file() else None


def _groups(table: pd.DataFrame | None) -> dict[str, pd.DataFrame]:
    return {} if table is None else {str(k): g for k, g in table.groupby("subject_id", sort=True)}


def _empty_events() -> pd.DataFrame:
    return pd.DataFrame(
        {"time": pd.Series([], dtype="datetime64[ns]"), "kind": [], "value": [], "detail": []}
    )


def _grid_index(
    times: pd.Series, start: pd.Timestamp, path: Path, subject: str, n: int | None = None
) -> np.ndarray:
    """Point index of each time; raises if one is off the grid, repeated, or (given ``n``) outside."""
    seconds = (times - start).dt.total_seconds().to_numpy()
    off = (seconds % (STEP_MIN * 60) != 0) | (seconds < 0)
    if n is not None:
        off |= seconds >= n * STEP_MIN * 60
    if off.any():
        t = times.iloc[int(np.flatnonzero(off)[0])]
        raise WearbenchError(
            f"{path}: subject {subject}: column time: {t} is off the 5-minute grid from midnight of the "
            f"first reading's day, or outside the readings' days ({int(off.sum())} such row(s)); "
            "import real data with --grid 5"
        )
    idx = (seconds // (STEP_MIN * 60)).astype(np.int64)
    if len(np.unique(idx)) != len(idx):
        dup = times.iloc[int(np.flatnonzero(pd.Series(idx).duplicated().to_numpy())[0])]
        raise WearbenchError(f"{path}: subject {subject}: column time: {dup} appears more than once")
    return idx


def _scatter(n: int, idx: np.ndarray, values: np.ndarray, fill: object) -> np.ndarray:
    out = np.full(n, fill, dtype=values.dtype)
    out[idx] = values
    return out


def _text(ev: pd.DataFrame, column: str, fallback: str) -> list[str]:
    """The typed column where given, else the detail, else ``fallback``."""
    typed = ev[column].fillna("").astype(str) if column in ev else pd.Series("", index=ev.index)
    detail = ev["detail"].fillna("").astype(str)
    return [t or d or fallback for t, d in zip(typed, detail, strict=True)]


def meal_type(detail: str, minute: float) -> str:
    """Meal type of an untyped intake: a keyword of its text, else its clock time.

    ``breakfast``, ``lunch``, ``dinner``/``supper`` in the text name the meal; ``snack`` is a
    ``morning_snack`` before noon and an ``afternoon_snack`` from noon; otherwise the clock edges of
    the simulator's rule (before 09:00 breakfast … from 17:30 dinner).
    """
    text = detail.lower()
    clock = minute % DAY_MIN
    for word, kind in _KEYWORDS:
        if word in text:
            return kind
    if "snack" in text:
        return "morning_snack" if clock < 720 else "afternoon_snack"
    return next((kind for edge, kind in _MEAL_EDGES if clock < edge), "dinner")


def _meals(ev: pd.DataFrame, minute: np.ndarray) -> tuple[Meal, ...]:
    sel = (ev["kind"] == "carbs").to_numpy() & (pd.to_numeric(ev["value"], errors="coerce").to_numpy() > 0)
    rows, mins = ev[sel], minute[sel]
    typed = rows["meal_type"].fillna("").astype(str).tolist() if "meal_type" in rows else [""] * len(rows)
    detail = rows["detail"].fillna("").astype(str).tolist()
    return tuple(
        Meal(float(m), float(v), t or meal_type(d, float(m)))
        for m, v, t, d in zip(mins, rows["value"].astype(float), typed, detail, strict=True)
    )


def _boluses(ev: pd.DataFrame, minute: np.ndarray) -> tuple[Bolus, ...]:
    sel = (ev["kind"] == "bolus").to_numpy()
    rows, mins = ev[sel], minute[sel]
    dose = rows["value"].astype(float).to_numpy()
    if "dosage" in rows:
        typed = pd.to_numeric(rows["dosage"], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        dose = np.where(np.isnan(typed), dose, typed)
    kinds = _text(rows, "insulin_type", "bolus")
    return tuple(Bolus(float(m), float(d), k) for m, d, k in zip(mins, dose, kinds, strict=True))


def _exercise(ev: pd.DataFrame, minute: np.ndarray) -> tuple[Exercise, ...]:
    sel = (ev["kind"] == "exercise").to_numpy()
    rows, mins = ev[sel], minute[sel]
    mag = (
        pd.to_numeric(rows["magnitude"], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
        if "magnitude" in rows
        else np.full(len(rows), np.nan)
    )
    kinds = _text(rows, "exercise_type", "exercise")
    return tuple(
        Exercise(float(m), float(d), k, float(g))
        for m, d, k, g in zip(mins, rows["value"].astype(float), kinds, mag, strict=True)
    )
