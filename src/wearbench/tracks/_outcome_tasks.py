"""Outcome-prediction tasks and labels (seed 004, Track 1).

A task (:class:`OutcomeTask`) names a label, its domain, its kind (``binary``, ``ordinal``,
``regression``, ``multiclass``) and its window ``[t - before, t + after]`` days around the label
date ``t`` (``before = None``: the whole history up to ``t``, the recommended default). A
participant is **included** in a task iff the label is present and at least one retained day lies
in the window (:func:`window_mask`).

Labels are one long table, ``user_id, task, value, date`` (:data:`LABEL_COLUMNS`): ``value`` is a
float (binary 0/1, ordinal 0..K-1, multiclass the class index into ``OutcomeTask.classes``, a
regression target in the task's unit), ``date`` the ISO label date. :func:`cohort_labels` finds a
minute cohort's labels:

1. a ``labels.csv`` in the cohort folder (any source: real datasets' questionnaires, hand-made);
2. otherwise, for a folder written by ``wearbench track synth-minutes``, the daily synthetic cohort
   is regenerated from the manifest's ``source`` (seed, users, days, start: about 1 s per 100 users
   x 30 days), its ``content_hash`` checked against the recorded ``daily_content_hash``, and
   :func:`synthetic_labels` derives the labels from its demographics, latent traits and blood panel.

Regenerating keeps the minute folder's format and hash untouched and cannot drift from the users it
was drawn from (the hash check). Fitabase minute files carry no labels; a real cohort gets labels
only through ``labels.csv``.
"""

from __future__ import annotations

import itertools
import math
import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt
import pandas as pd

from wearbench._errors import WearbenchError
from wearbench.cohort import AGE_BANDS, ETHNICITIES, Cohort, content_hash
from wearbench.minutes import read_minute_manifest
from wearbench.sources import synthesize

TaskKind = Literal["binary", "ordinal", "regression", "multiclass"]
#: The four task kinds and the metric of each (multiclass accuracy is reported, kept out of S).
TASK_METRIC: dict[str, str] = {
    "binary": "auprc",
    "ordinal": "spearman",
    "regression": "pearson",
    "multiclass": "accuracy",
}
#: The seed's domains (the public code's TASK_DOMAIN_MAP names).
DOMAINS: tuple[str, ...] = (
    "Demographics",
    "Medical",
    "Body & biomarkers",
    "Mental",
    "Wearable physiology",
    "Sleep & lifestyle",
)
#: Columns of a label table.
LABEL_COLUMNS: tuple[str, ...] = ("user_id", "task", "value", "date")
#: Labels file read from a minute-cohort folder when present.
LABELS_FILE = "labels.csv"
#: BMI band edges (kg/m^2): underweight < 18.5 <= normal < 25 <= overweight < 30 <= obese.
BMI_EDGES: tuple[float, ...] = (18.5, 25.0, 30.0)
#: High LDL cut-off, mg/dL (borderline-high and above).
HIGH_LDL = 130.0
#: Elevated HbA1c cut-off, % (prediabetes range and above).
ELEVATED_HBA1C = 5.7


@dataclass(frozen=True)
class OutcomeTask:
    """One outcome-prediction task.

    Attributes:
        name: Task name (the ``task`` column of the label table).
        domain: One of :data:`DOMAINS`.
        kind: ``binary``, ``ordinal``, ``regression`` or ``multiclass``.
        source: Where the label comes from (e.g. ``"blood.ldl"``), for the docs and manifests.
        before: Days before the label date in the window; None = the whole history.
        after: Days after the label date in the window.
        classes: Class names of ordinal / multiclass tasks (value = index), else empty.
        unit: Unit of a regression target.
    """

    name: str
    domain: str
    kind: TaskKind
    source: str
    before: int | None = None
    after: int = 0
    classes: tuple[str, ...] = ()
    unit: str = ""

    @classmethod
    def from_dict(cls, spec: Mapping[str, Any]) -> OutcomeTask:
        """From a manifest's task entry (extra keys ignored)."""
        before = spec.get("before")
        return cls(
            str(spec["name"]), str(spec["domain"]), spec["kind"], str(spec.get("source", "")),
            None if before is None else int(before), int(spec.get("after", 0)),
            tuple(spec.get("classes", ())), str(spec.get("unit", "")),
        )  # fmt: skip

    @property
    def metric(self) -> str:
        """The task's metric name (:data:`TASK_METRIC`)."""
        return TASK_METRIC[self.kind]


def _bands(edges: tuple[float, ...]) -> tuple[str, ...]:
    lo = [f"<{edges[0]:g}"]
    mid = [f"{a:g}-{b:g}" for a, b in itertools.pairwise(edges)]
    return (*lo, *mid, f">={edges[-1]:g}")


#: The synthetic cohort's tasks, keyed by name.
SYNTHETIC_TASKS: dict[str, OutcomeTask] = {
    t.name: t
    for t in (
        OutcomeTask("sex", "Demographics", "binary", "demographics.sex (M = 1)"),
        OutcomeTask(
            "age_band", "Demographics", "ordinal", "demographics.age", classes=tuple(b[0] for b in AGE_BANDS)
        ),
        OutcomeTask("ethnicity", "Demographics", "multiclass", "demographics.ethnicity", classes=ETHNICITIES),
        OutcomeTask(
            "bmi_band", "Body & biomarkers", "ordinal", "demographics.bmi", classes=_bands(BMI_EDGES)
        ),
        OutcomeTask("high_ldl", "Body & biomarkers", "binary", f"blood.ldl >= {HIGH_LDL:g} mg/dL"),
        OutcomeTask(
            "homa_ir",
            "Body & biomarkers",
            "regression",
            "blood.fasting_glucose x blood.insulin / 405",
            unit="1",
        ),
        OutcomeTask("elevated_hba1c", "Medical", "binary", f"blood.hba1c >= {ELEVATED_HBA1C:g} %"),
        OutcomeTask(
            "vo2max", "Wearable physiology", "regression", "traits.baseline_vo2max", unit="mL/kg/min"
        ),
        OutcomeTask("stress", "Mental", "regression", "traits.baseline_stress", unit="score"),
        OutcomeTask(
            "sleep_need", "Sleep & lifestyle", "regression", "traits.baseline_sleep_minutes", unit="min"
        ),
    )
}


#: Tasks of real datasets' labels (PMData overview and wellness, Apple Health ``Me``); ``sex`` and
#: ``age_band`` are shared with :data:`SYNTHETIC_TASKS`. Wellness labels average 28 days of answers.
REAL_TASKS: dict[str, OutcomeTask] = {
    t.name: t
    for t in (
        OutcomeTask("age", "Demographics", "regression", "overview Age / Me date of birth", unit="years"),
        OutcomeTask("height", "Body & biomarkers", "regression", "participant-overview Height", unit="cm"),
        *(
            OutcomeTask(f"wellness_{item}", domain, "regression", f"pmsys wellness.csv {item}, 28-day mean",
                        before=27, unit="score")
            for item, domain in (
                ("fatigue", "Mental"), ("mood", "Mental"), ("readiness", "Mental"), ("stress", "Mental"),
                ("sleep_quality", "Sleep & lifestyle"),
            )
        ),
    )
}  # fmt: skip
#: Every defined task: :data:`SYNTHETIC_TASKS` and :data:`REAL_TASKS`.
OUTCOME_TASKS: dict[str, OutcomeTask] = {**SYNTHETIC_TASKS, **REAL_TASKS}


def window_mask(
    dates: npt.NDArray[np.datetime64], label_date: np.datetime64, task: OutcomeTask
) -> npt.NDArray[np.bool_]:
    """Which retained days lie in the task's window ``[t - before, t + after]`` (inclusive).

    Args:
        dates: ``(n,)`` ``datetime64[D]`` retained days.
        label_date: ``t``, ``datetime64[D]``.
        task: The task (its ``before`` / ``after`` days).

    Returns:
        ``(n,)`` bool.
    """
    d = dates.astype("datetime64[D]")
    t = np.asarray(label_date).astype("datetime64[D]")
    keep = d <= t + np.timedelta64(task.after, "D")
    if task.before is not None:
        keep &= d >= t - np.timedelta64(task.before, "D")
    return np.asarray(keep, dtype=bool)


def _rows(
    frame: pd.DataFrame, task: str, col: str | Callable[[pd.DataFrame], pd.Series], dates: pd.Series
) -> pd.DataFrame:
    values = col(frame) if callable(col) else frame[col]
    out = pd.DataFrame(
        {"user_id": frame["user_id"].to_numpy(), "task": task, "value": values.to_numpy(dtype=float)}
    )
    out["date"] = pd.to_datetime(dates.to_numpy()).strftime("%Y-%m-%d")
    return out


def _code(values: pd.Series, classes: tuple[str, ...]) -> pd.Series:
    pos = {c: float(i) for i, c in enumerate(classes)}
    return values.map(lambda v: pos.get(v, math.nan)).astype(float)


def _age_code(age: pd.Series) -> pd.Series:
    def one(a: float) -> float:
        for i, (_, lo, hi) in enumerate(AGE_BANDS):
            if lo <= a < hi:
                return float(i)
        return math.nan

    return age.astype(float).map(one)


def synthetic_labels(cohort: Cohort) -> pd.DataFrame:
    """Labels of :data:`SYNTHETIC_TASKS` from a synthetic daily cohort.

    Demographic and trait labels are dated on the user's last daily record; blood labels on the
    user's first blood draw.

    Args:
        cohort: A cohort from :func:`wearbench.sources.synthesize` (needs ``truth["traits"]``).

    Returns:
        The label table (:data:`LABEL_COLUMNS`), rows with a missing value dropped, sorted.

    Raises:
        WearbenchError: If the cohort has no synthetic traits.
    """
    traits = pd.DataFrame((cohort.truth or {}).get("traits", []))
    if traits.empty:
        raise WearbenchError("the cohort has no synthetic traits (truth['traits']): not a synthetic cohort?")
    last = cohort.daily.groupby("user_id")["date"].max()
    demo = cohort.demographics.merge(last.rename("date"), left_on="user_id", right_index=True)
    traits = traits.merge(last.rename("date"), left_on="user_id", right_index=True)
    blood = cohort.blood.sort_values(["user_id", "draw_date"]).drop_duplicates("user_id")
    parts = [
        _rows(demo, "sex", lambda f: (f["sex"] == "M").astype(float).where(f["sex"].notna()), demo["date"]),
        _rows(demo, "age_band", lambda f: _age_code(f["age"]), demo["date"]),
        _rows(demo, "ethnicity", lambda f: _code(f["ethnicity"], ETHNICITIES), demo["date"]),
        _rows(demo, "bmi_band", lambda f: _bmi_code(f["bmi"]), demo["date"]),
        _rows(blood, "high_ldl", lambda f: _at_least(f["ldl"], HIGH_LDL), blood["draw_date"]),
        _rows(blood, "homa_ir", lambda f: f["fasting_glucose"] * f["insulin"] / 405.0, blood["draw_date"]),
        _rows(blood, "elevated_hba1c", lambda f: _at_least(f["hba1c"], ELEVATED_HBA1C), blood["draw_date"]),
        _rows(traits, "vo2max", "baseline_vo2max", traits["date"]),
        _rows(traits, "stress", "baseline_stress", traits["date"]),
        _rows(traits, "sleep_need", "baseline_sleep_minutes", traits["date"]),
    ]
    out = pd.concat(parts, ignore_index=True)
    out = out[np.isfinite(out["value"].to_numpy())]
    return pd.DataFrame(out.sort_values(["task", "user_id"]).reset_index(drop=True))


def _bmi_code(bmi: pd.Series) -> pd.Series:
    x = bmi.to_numpy(dtype=float)
    return pd.Series(np.where(np.isfinite(x), np.searchsorted(BMI_EDGES, x, side="right"), np.nan))


def _at_least(x: pd.Series, cut: float) -> pd.Series:
    v = x.to_numpy(dtype=float)
    return pd.Series(np.where(np.isfinite(v), (v >= cut).astype(float), np.nan))


def read_labels(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a label table (CSV with :data:`LABEL_COLUMNS`).

    Raises:
        WearbenchError: Naming the file for a missing column, a non-numeric value or a bad date.
    """
    file = Path(path)
    try:
        frame = pd.read_csv(file, dtype={"user_id": str, "task": str, "date": str})
    except (OSError, ValueError) as e:
        raise WearbenchError(f"{file}: cannot read labels ({e})") from e
    missing = [c for c in LABEL_COLUMNS if c not in frame.columns]
    if missing:
        raise WearbenchError(f"{file}: label table lacks column(s) {', '.join(missing)}")
    try:
        frame["value"] = frame["value"].astype(float)
        pd.to_datetime(frame["date"], format="%Y-%m-%d")
    except ValueError as e:
        raise WearbenchError(f"{file}: a label value is not a number or a date is not ISO ({e})") from e
    frame = frame.loc[np.isfinite(frame["value"].to_numpy()), list(LABEL_COLUMNS)]
    return pd.DataFrame(frame.sort_values(["task", "user_id"]).reset_index(drop=True))


def cohort_labels(cohort_dir: str | os.PathLike[str]) -> tuple[pd.DataFrame, dict[str, Any]]:
    """The labels of a minute-cohort folder, and where they came from.

    Args:
        cohort_dir: Minute-cohort folder.

    Returns:
        ``(labels, origin)``: the label table and ``{"kind": "file" | "synthetic", ...}``.

    Raises:
        WearbenchError: If the folder has no ``labels.csv`` and is not a synthetic minute cohort, or
            the regenerated daily cohort's hash differs from the recorded one.
    """
    path = Path(cohort_dir)
    if (path / LABELS_FILE).is_file():
        return read_labels(path / LABELS_FILE), {"kind": "file", "file": LABELS_FILE}
    source = read_minute_manifest(path).get("source") or {}
    if not isinstance(source, Mapping) or source.get("name") != "synthetic-minutes":
        raise WearbenchError(
            f"{path}: no {LABELS_FILE} and not a synthetic minute cohort: no outcome labels "
            f"(write {LABELS_FILE} with columns {', '.join(LABEL_COLUMNS)})"
        )
    args = (int(source["n_users"]), int(source["n_days"]), int(source["seed"]))
    daily = synthesize(*args, reference_users=0, start=str(source["start"]))
    got = content_hash(daily)
    if got != source.get("daily_content_hash"):
        raise WearbenchError(
            f"{path}: the daily synthetic cohort regenerated from the manifest has content_hash {got}, "
            f"not the recorded {source.get('daily_content_hash')} (another generator version?)"
        )
    return synthetic_labels(daily), {"kind": "synthetic", "daily_content_hash": got}
