"""Write a simulation as a CGM dataset: sensor readings and true BG per sample, events, manifest.

Files: ``readings.parquet`` (the canonical CGM record: ``subject_id``, ``time``, ``glucose`` = what
the sensor showed, mg/dL, at the sensor's sample time), ``truth.parquet`` (``subject_id``,
``time``, ``true_bg``, ``cgm`` at the same samples, and with ``loop="simglucose"`` simglucose's
``env_bg``, ``env_cgm``), ``events.parquet`` (carbs in g with the meal
type, basal insulin in U per minute of delivery and boluses in U, as canonical events) and
``manifest.json`` (parameters, sha256 of each file). Times count from ``start`` (local midnight
of the first day).

With a fault plan, also ``labels.parquet`` (``subject_id``, ``time``, ``label`` per sensor sample;
``""`` when normal) and ``faults.parquet`` (one row per interval: ``subject_id``, ``start``, ``end``
(exclusive), ``label``, ``intensity``, ``description``); ``readings`` then hold what the faulty
sensor showed (NaN while the signal is missing), ``truth`` gains ``cgm_clean``, and the insulin
events are what the pump showed (see ``docs/cgm-faults.md``).

With exercise sessions, ``events.parquet`` also holds one ``kind="exercise"`` row per session at
its start: ``value`` = duration (``unit`` ``"min"``), ``detail`` = ``"running@0.60"`` (kind and
nominal intensity, fraction of heart-rate reserve; see ``docs/cgm-exercise.md``).

``layout="healthloopqa"`` (the ``healthloopqa`` profile, ``docs/cgm-healthloopqa.md``) writes
instead: ``labels.parquet`` with ``fault_label`` and ``hazard_label`` per sample,
``hazards.parquet`` (hazard intervals), ``insulin.parquet`` (mean rates over each sample, mU/min),
``faults.parquet`` with a ``magnitude`` column, and typed events (meal types from the meal table,
bolus ``dosage``/``insulin_type``, exercise magnitude) without per-minute basal events. Carbs
eaten to treat a low (the frame's ``rescue`` column) are ``kind="carbs"`` events with
``meal_type="hypo_treatment"``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal

import numpy as np
import pandas as pd

from wearbench._errors import WearbenchError
from wearbench._folder import replaced_folder
from wearbench._version import __version__
from wearbench.cgm import EVENT_COLUMNS, EVENTS_FILE, READINGS_FILE, write_cgm_tables
from wearbench.sim._hazard import hazard_intervals, hazard_labels
from wearbench.sim.faults import FaultPlan
from wearbench.sim.patient import patient_names
from wearbench.sim.scenario import HYPO_TREATMENT, meal_type_at

_RANGE = re.compile(r"^(adult|adolescent|child)#(\d{3})\.\.(?:(adult|adolescent|child)#)?(\d{3})$")


def parse_patients(spec: str) -> list[str]:
    """Patient names from ``adult#001..adult#010``, ``child#001,child#002`` or ``all``.

    Raises:
        WearbenchError: For a malformed range (unknown names fail later, with suggestions).
    """
    out: list[str] = []
    for part in (p.strip() for p in spec.split(",") if p.strip()):
        if part == "all":
            out += patient_names()
            continue
        m = _RANGE.match(part)
        if m is None:
            out.append(part)
            continue
        group, lo, group2, hi = m.group(1), int(m.group(2)), m.group(3), int(m.group(4))
        if (group2 and group2 != group) or hi < lo:
            raise WearbenchError(f"patients {part!r}: a range is GROUP#NNN..GROUP#MMM within one group")
        out += [f"{group}#{k:03d}" for k in range(lo, hi + 1)]
    if not out:
        raise WearbenchError(f"patients {spec!r}: no patient named")
    return out


def meal_type(times: pd.Series) -> list[str]:
    """Meal type by local clock time: breakfast 05–10 h, lunch 11–15 h, dinner 17–21 h, else snack.

    The simulator's scenarios announce carbs without a type (simglucose's random scenario draws
    breakfast, lunch, dinner and three snacks in those windows), so the type is read off the time.
    """
    hours = pd.to_datetime(times).dt.hour.to_numpy()
    kinds = np.select(
        [(hours >= 5) & (hours <= 10), (hours >= 11) & (hours <= 15), (hours >= 17) & (hours <= 21)],
        ["breakfast", "lunch", "dinner"],
        default="snack",
    )
    return [str(k) for k in kinds]


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def write_simulation(
    frame: pd.DataFrame,
    out: Path,
    *,
    sample_time: int,
    params: Mapping[str, Any],
    start: str = "2024-01-01",
    faults: FaultPlan | None = None,
    exercise: pd.DataFrame | None = None,
    meals: pd.DataFrame | None = None,
    layout: Literal["default", "healthloopqa"] = "default",
) -> Path:
    """Write :func:`~wearbench.sim.simulate` output as a CGM dataset folder (see the module docstring).

    Args:
        frame: The simulation (run with ``faults`` when ``faults`` is given).
        out: Folder to write. An existing simulation folder is replaced as a whole (written to a
            hidden sibling and swapped in when complete); a non-empty folder without a
            ``manifest.json`` is refused before anything is written.
        sample_time: Sensor sample period (min).
        params: Run parameters for the manifest.
        start: Time of minute 0.
        faults: The plan the frame was simulated with, to write labels and intervals.
        exercise: The sessions table the frame was simulated with (``patient`` row index,
            ``start``, ``duration``, ``kind``, ``intensity``), written as exercise events.
        meals: The meal table the frame was simulated with (``patient``, ``start``,
            ``carbs_g``, ``meal_type``, ``perturbation``), for typed carbs events
            (``healthloopqa`` layout; without it carbs are typed by clock time).
        layout: ``"default"``, or ``"healthloopqa"`` (needs ``faults``; see the module docstring).
    """
    if layout == "healthloopqa" and faults is None:
        raise WearbenchError("write_simulation: the healthloopqa layout needs the fault plan (maybe empty)")
    with replaced_folder(out, "CGM simulation", "manifest.json") as new:
        if layout == "healthloopqa":
            _write_healthloopqa(
                frame, new, sample_time, params, start, faults or FaultPlan(), exercise, meals
            )
        else:
            _write_simulation(
                frame,
                new,
                sample_time=sample_time,
                params=params,
                start=start,
                faults=faults,
                exercise=exercise,
            )
    return Path(out)


def _write_simulation(
    frame: pd.DataFrame,
    out: Path,
    *,
    sample_time: int,
    params: Mapping[str, Any],
    start: str = "2024-01-01",
    faults: FaultPlan | None = None,
    exercise: pd.DataFrame | None = None,
) -> Path:
    """Write the dataset files into the empty folder ``out`` (see :func:`write_simulation`)."""
    time = pd.Timestamp(start) + pd.to_timedelta(frame["minute"], unit="min")
    sampled = frame[frame["minute"] % sample_time == 0]
    t_s = time[sampled.index]
    subject = sampled["patient"].astype(str)
    truth = {"subject_id": subject, "time": t_s, "true_bg": sampled["true_bg"], "cgm": sampled["cgm"]}
    if faults is not None:
        truth["cgm_clean"] = sampled["cgm_clean"]
    for env in ("env_bg", "env_cgm"):  # simulate(loop="simglucose"): simglucose's BG and CGM
        if env in sampled.columns:
            truth[env] = sampled[env]
    pd.DataFrame(truth).to_parquet(out / "truth.parquet", index=False)
    names = [READINGS_FILE, "truth.parquet", EVENTS_FILE]
    if faults is not None:
        _write_faults(frame, out, sampled, subject, t_s, faults, pd.Timestamp(start))
        names += ["labels.parquet", "faults.parquet"]
    events = []
    for kind, column, unit in (("carbs", "carbs", "g"), ("basal", "basal", "U"), ("bolus", "bolus", "U")):
        rows = frame[frame[column] > 0]
        detail = meal_type(time[rows.index]) if kind == "carbs" else [""] * len(rows)
        events.append(pd.DataFrame({"subject_id": rows["patient"].astype(str), "time": time[rows.index],
                                    "kind": kind, "value": rows[column].astype("float64"), "unit": unit,
                                    "detail": detail}))  # fmt: skip
    if exercise is not None and len(exercise):
        minutes = int(frame["minute"].max()) + 1
        subjects = frame["patient"].astype(str).to_numpy()[::minutes]
        events.append(pd.DataFrame({
            "subject_id": subjects[exercise["patient"].to_numpy(dtype=np.int64)],
            "time": pd.Timestamp(start) + pd.to_timedelta(exercise["start"].to_numpy(), unit="min"),
            "kind": "exercise", "value": exercise["duration"].astype("float64").to_numpy(), "unit": "min",
            "detail": [f"{k}@{v:.2f}" for k, v in zip(exercise["kind"], exercise["intensity"], strict=True)],
        }))  # fmt: skip
    readings = pd.DataFrame({"subject_id": subject, "time": t_s, "glucose": sampled["cgm"].astype("float64")})
    write_cgm_tables(
        readings, pd.concat(events, ignore_index=True).sort_values(["subject_id", "time", "kind"]), out
    )
    _write_manifest(out, names, params, sample_time, start)
    return out


def _write_manifest(
    out: Path, names: list[str], params: Mapping[str, Any], sample_time: int, start: str
) -> None:
    files = {name: _sha(out / name) for name in names}
    manifest = {"wearbench_version": __version__, "source": "wearbench.sim", "params": dict(params),
                "sample_time_min": sample_time, "start": start, "files": files}  # fmt: skip
    (out / "manifest.json").write_text(
        json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )


def _write_faults(
    frame: pd.DataFrame,
    out: Path,
    sampled: pd.DataFrame,
    subject: pd.Series,
    t_s: pd.Series,
    faults: FaultPlan,
    t0: pd.Timestamp,
) -> None:
    if "label" not in frame.columns:
        raise WearbenchError("write_simulation: faults given but the frame was simulated without them")
    pd.DataFrame({"subject_id": subject, "time": t_s, "label": sampled["label"].astype(str)}).to_parquet(
        out / "labels.parquet", index=False
    )
    _fault_intervals(frame, faults, t0).to_parquet(out / "faults.parquet", index=False)


def _subjects(frame: pd.DataFrame) -> list[str]:
    """Subject of each patient index (the frame is patient-major)."""
    minutes = int(frame["minute"].max()) + 1
    return [str(s) for s in frame["patient"].astype(str).to_numpy()[::minutes]]


def _fault_intervals(
    frame: pd.DataFrame, faults: FaultPlan, t0: pd.Timestamp, magnitude: bool = False
) -> pd.DataFrame:
    """``faults.parquet``: one row per interval, times from ``t0``; ``magnitude`` adds that column."""
    table = faults.to_frame(_subjects(frame))
    out = pd.DataFrame(
        {
            "subject_id": table["patient"].astype(str),
            "start": t0 + pd.to_timedelta(table["start"], unit="min"),
            "end": t0 + pd.to_timedelta(table["start"] + table["duration"], unit="min"),
            "label": table["label"].astype(str),
            "intensity": table["intensity"].astype("float64"),
            "description": table["description"].astype(str),
        }
    )
    if magnitude:
        out["magnitude"] = table["magnitude"].astype("float64") if "magnitude" in table else np.nan
    return out


#: ``meal_type`` (and ``detail``) of the carbs a simulated person ate to treat a low.

#: Extra ``events.parquet`` columns of the healthloopqa layout (NaN or ``""`` where they do not apply).
PROFILE_EVENT_COLUMNS = [
    "meal_type",
    "perturbation",
    "exercise_type",
    "magnitude",
    "magnitude_unit",
    "incline_pct",
    "dosage",
    "insulin_type",
]


def _write_healthloopqa(
    frame: pd.DataFrame,
    out: Path,
    sample_time: int,
    params: Mapping[str, Any],
    start: str,
    faults: FaultPlan,
    exercise: pd.DataFrame | None,
    meals: pd.DataFrame | None,
) -> None:
    """The healthloopqa layout (see the module docstring and ``docs/cgm-healthloopqa.md``)."""
    if "label" not in frame.columns:
        raise WearbenchError("write_simulation: the healthloopqa layout needs a frame simulated with faults")
    t0 = pd.Timestamp(start)
    sampled = frame[frame["minute"] % sample_time == 0]
    subject = sampled["patient"].astype(str).to_numpy()
    t_s = (t0 + pd.to_timedelta(sampled["minute"], unit="min")).to_numpy()
    cgm = sampled["cgm"].to_numpy(dtype=np.float64)
    rates = _sample_rates(frame, sample_time)
    truth = pd.DataFrame(
        {
            "subject_id": subject,
            "time": t_s,
            "true_bg": sampled["true_bg"].to_numpy(),
            "cgm": cgm,
            "cgm_clean": sampled["cgm_clean"].to_numpy(),
            "insulin_delivered_mu_per_min": rates["insulin_delivered"],
        }
    )
    truth.to_parquet(out / "truth.parquet", index=False)
    insulin = pd.DataFrame(
        {
            "subject_id": subject,
            "time": t_s,
            "insulin_mu_per_min": rates["insulin"],
            "basal_mu_per_min": rates["basal"],
            "bolus_mu_per_min": rates["bolus"],
        }
    )
    insulin.to_parquet(out / "insulin.parquet", index=False)
    readings = pd.DataFrame({"subject_id": subject, "time": t_s, "glucose": cgm})
    labels = pd.DataFrame(
        {
            "subject_id": subject,
            "time": t_s,
            "fault_label": sampled["label"].astype(str).to_numpy(),
            "hazard_label": hazard_labels(cgm).astype(str),
        }
    )
    labels.to_parquet(out / "labels.parquet", index=False)
    _fault_intervals(frame, faults, t0, magnitude=True).to_parquet(out / "faults.parquet", index=False)
    hazard_intervals(readings, sample_time).to_parquet(out / "hazards.parquet", index=False)
    write_cgm_tables(readings, _profile_events(frame, t0, exercise, meals), out)
    names = [
        READINGS_FILE,
        "truth.parquet",
        EVENTS_FILE,
        "insulin.parquet",
        "labels.parquet",
        "faults.parquet",
        "hazards.parquet",
    ]
    _write_manifest(out, names, params, sample_time, start)


def _sample_rates(frame: pd.DataFrame, sample_time: int) -> dict[str, np.ndarray]:
    """Mean rate over each sample ``[t, t + sample_time)`` in mU/min, patient-major like the samples."""
    minutes = int(frame["minute"].max()) + 1
    if minutes % sample_time:
        raise WearbenchError(
            f"write_simulation: {minutes} minutes is not a whole number of {sample_time}-min samples"
        )
    out = {}
    for column in ("insulin", "insulin_delivered", "basal", "bolus"):
        per_minute = frame[column].to_numpy(dtype=np.float64).reshape(-1, sample_time)
        out[column] = per_minute.mean(axis=1) * 1000.0
    return out


def _profile_events(
    frame: pd.DataFrame, t0: pd.Timestamp, exercise: pd.DataFrame | None, meals: pd.DataFrame | None
) -> pd.DataFrame:
    """Carbs (typed), rescue carbs, boluses (rapid; long-acting as ``long``) and exercise sessions."""
    subjects = np.asarray(_subjects(frame), dtype=object)
    minutes = int(frame["minute"].max()) + 1
    patient = np.repeat(np.arange(len(subjects)), minutes)
    minute = frame["minute"].to_numpy()
    parts = [_carb_events(frame, patient, minute, subjects, meals)]
    if "rescue" in frame:
        parts.append(_rescue_events(frame["rescue"].to_numpy(dtype=np.float64), patient, minute, subjects))
    for column, kind in (("bolus", "rapid"), ("long_acting", "long")):
        if column not in frame:
            continue
        hit = frame[column].to_numpy(dtype=np.float64) > 0
        dose = frame[column].to_numpy(dtype=np.float64)[hit]
        parts.append(
            pd.DataFrame(
                {
                    "subject_id": subjects[patient[hit]],
                    "minute": minute[hit],
                    "kind": "bolus",
                    "value": dose,
                    "unit": "U",
                    "detail": kind,
                    "dosage": dose,
                    "insulin_type": kind,
                }
            )
        )
    if exercise is not None and len(exercise):
        ex = exercise.reset_index(drop=True)
        parts.append(
            pd.DataFrame(
                {
                    "subject_id": subjects[ex["patient"].to_numpy(dtype=np.int64)],
                    "minute": ex["start"].to_numpy(),
                    "kind": "exercise",
                    "value": ex["duration"].to_numpy(dtype=np.float64),
                    "unit": "min",
                    "detail": ex["kind"].astype(str),
                    "exercise_type": ex["kind"].astype(str),
                    **{c: ex.get(c, np.nan) for c in ("magnitude", "magnitude_unit", "incline_pct")},
                    "perturbation": ex["perturbation"].astype(str) if "perturbation" in ex else "",
                }
            )
        )
    events = pd.concat(parts, ignore_index=True)
    events["time"] = t0 + pd.to_timedelta(events.pop("minute"), unit="min")
    for c in PROFILE_EVENT_COLUMNS:
        text = c in ("meal_type", "perturbation", "exercise_type", "magnitude_unit", "insulin_type")
        if c not in events:
            events[c] = "" if text else np.nan
        events[c] = events[c].fillna("").astype(str) if text else events[c].astype("float64")
    events = events[[*EVENT_COLUMNS, *PROFILE_EVENT_COLUMNS]]
    return events.sort_values(["subject_id", "time", "kind"], kind="stable").reset_index(drop=True)


def _rescue_events(
    grams: np.ndarray, patient: np.ndarray, minute: np.ndarray, subjects: np.ndarray
) -> pd.DataFrame:
    """Carbs eaten to treat a low (g per minute, patient-major) as ``hypo_treatment`` carbs events."""
    hit = grams > 0
    return pd.DataFrame(
        {
            "subject_id": subjects[patient[hit]],
            "minute": minute[hit],
            "kind": "carbs",
            "value": grams[hit],
            "unit": "g",
            "detail": HYPO_TREATMENT,
            "meal_type": HYPO_TREATMENT,
            "perturbation": "",
        }
    )


def _carb_events(
    frame: pd.DataFrame,
    patient: np.ndarray,
    minute: np.ndarray,
    subjects: np.ndarray,
    meals: pd.DataFrame | None,
) -> pd.DataFrame:
    """Announced carbs, typed from the meal table at the same patient and minute, else by clock."""
    carbs = frame["carbs"].to_numpy(dtype=np.float64)
    hit = carbs > 0
    p, m = patient[hit], minute[hit]
    meal_type = meal_type_at(m).astype(object)
    perturbation = np.full(len(m), "", dtype=object)
    if meals is not None and len(meals):
        eaten = meals[meals["carbs_g"] > 0]
        table = {
            (int(a), int(b)): (t, q)
            for a, b, t, q in zip(
                eaten["patient"], eaten["start"], eaten["meal_type"], eaten["perturbation"], strict=True
            )
        }
        for k, key in enumerate(zip(p.tolist(), m.tolist(), strict=True)):
            if key in table:
                meal_type[k], perturbation[k] = table[key]
    return pd.DataFrame(
        {
            "subject_id": subjects[p],
            "minute": m,
            "kind": "carbs",
            "value": carbs[hit],
            "unit": "g",
            "detail": meal_type,
            "meal_type": meal_type,
            "perturbation": perturbation,
        }
    )
