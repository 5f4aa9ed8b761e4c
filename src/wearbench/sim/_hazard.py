"""Hazard labels on the displayed CGM: hypoglycaemia and hyperglycaemia per sample, and intervals.

HealthLoopQA labels each 5-minute sample of the *displayed* (possibly faulty) CGM trace:
``hypoglycemia`` below 70 mg/dL, ``hyperglycemia`` above 180 mg/dL, ``""`` otherwise; a missing
(NaN) reading has no hazard and breaks an interval. An interval is a run of consecutive samples
of one subject with the same label.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from wearbench._errors import WearbenchError
from wearbench.sim.patient._params import FloatArray

HAZARD_LABELS = ("hypoglycemia", "hyperglycemia")
#: Columns of :func:`hazard_intervals`.
HAZARD_COLUMNS = ["subject_id", "start", "end", "label", "samples", "min_glucose", "max_glucose"]


def hazard_labels(glucose: FloatArray, *, low: float = 70.0, high: float = 180.0) -> np.ndarray:
    """The hazard label of each reading.

    Args:
        glucose: Displayed readings (mg/dL), any shape; NaN for a missing reading.
        low: Hypoglycaemia below this (mg/dL, strict).
        high: Hyperglycaemia above this (mg/dL, strict).

    Returns:
        An object array of the same shape: ``"hypoglycemia"``, ``"hyperglycemia"`` or ``""``.
    """
    if not low < high:
        raise WearbenchError(f"hazard thresholds: need low < high, got {low:g} and {high:g} mg/dL")
    g = np.asarray(glucose, dtype=np.float64)
    out = np.full(g.shape, "", dtype=object)
    with np.errstate(invalid="ignore"):
        out[g < low] = HAZARD_LABELS[0]
        out[g > high] = HAZARD_LABELS[1]
    return out


def hazard_intervals(
    readings: pd.DataFrame, sample_time: int, *, low: float = 70.0, high: float = 180.0
) -> pd.DataFrame:
    """Runs of consecutive samples with the same hazard label, per subject.

    Args:
        readings: ``subject_id``, ``time``, ``glucose`` (mg/dL, NaN when missing): one row per
            sample on a regular grid, in time order within each subject.
        sample_time: Minutes between samples; an interval ends one sample after its last one.
        low: Hypoglycaemia threshold (mg/dL).
        high: Hyperglycaemia threshold (mg/dL).

    Returns:
        :data:`HAZARD_COLUMNS`: ``start`` (time of the first sample), ``end`` (exclusive: last
        sample + ``sample_time``), ``label``, ``samples`` (count), ``min_glucose`` and
        ``max_glucose`` (mg/dL) over the interval; sorted by subject and start.
    """
    labels = hazard_labels(readings["glucose"].to_numpy(dtype=np.float64), low=low, high=high)
    subject = readings["subject_id"].astype(str).to_numpy()
    new_run = np.ones(len(labels), dtype=bool)
    new_run[1:] = (labels[1:] != labels[:-1]) | (subject[1:] != subject[:-1])
    run_id = np.cumsum(new_run)
    frame = pd.DataFrame(
        {
            "run": run_id,
            "subject_id": subject,
            "time": readings["time"].to_numpy(),
            "label": labels,
            "glucose": readings["glucose"].to_numpy(dtype=np.float64),
        }
    )
    frame = frame[frame["label"] != ""]
    grouped = frame.groupby("run", sort=True)
    out = pd.DataFrame(
        {
            "subject_id": grouped["subject_id"].first().astype(str),
            "start": grouped["time"].first(),
            "end": grouped["time"].last() + pd.Timedelta(minutes=sample_time),
            "label": grouped["label"].first().astype(str),
            "samples": grouped["glucose"].size().astype("int64"),
            "min_glucose": grouped["glucose"].min().astype("float64"),
            "max_glucose": grouped["glucose"].max().astype("float64"),
        },
        columns=HAZARD_COLUMNS,
    )
    return out.sort_values(["subject_id", "start"], kind="stable").reset_index(drop=True)
