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
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from wearbench._errors import WearbenchError
from wearbench._folder import replaced_folder
from wearbench._version import __version__
from wearbench.cgm import EVENTS_FILE, READINGS_FILE, write_cgm_tables
from wearbench.sim.faults import FaultPlan
from wearbench.sim.patient import patient_names

__all__ = ["meal_type", "parse_patients", "write_simulation"]

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
    """
    with replaced_folder(out, "CGM simulation", "manifest.json") as new:
        _write_simulation(
            frame, new, sample_time=sample_time, params=params, start=start, faults=faults, exercise=exercise
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
    files = {name: _sha(out / name) for name in names}
    manifest = {"wearbench_version": __version__, "source": "wearbench.sim", "params": dict(params),
                "sample_time_min": sample_time, "start": start, "files": files}  # fmt: skip
    (out / "manifest.json").write_text(
        json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8"
    )
    return out


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
    minutes = int(frame["minute"].max()) + 1
    names = frame["patient"].astype(str).to_numpy()[::minutes]
    table = faults.to_frame(list(names))
    pd.DataFrame(
        {
            "subject_id": table["patient"].astype(str),
            "start": t0 + pd.to_timedelta(table["start"], unit="min"),
            "end": t0 + pd.to_timedelta(table["start"] + table["duration"], unit="min"),
            "label": table["label"].astype(str),
            "intensity": table["intensity"].astype("float64"),
            "description": table["description"].astype(str),
        }
    ).to_parquet(out / "faults.parquet", index=False)
