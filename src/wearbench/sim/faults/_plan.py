"""Fault plans: which fault (label) hits which patient over which minutes, and how hard."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from wearbench._errors import WearbenchError
from wearbench._registry import registry
from wearbench.sim.patient._params import FloatArray


@dataclass(frozen=True)
class FaultWindow:
    """What a fault function sees for one patient and one interval, up to the current minute.

    Attributes:
        values: The clean stream from the interval start to the current minute inclusive (mg/dL for
            ``cgm``, g for ``meal``, U/min for insulin streams).
        history: The clean stream before the interval, oldest first (same unit).
        duration: Interval length (min).
        intensity: Effect size in ``[0, 1]``.
        low: Lower limit of the stream (sensor minimum reading, mg/dL; pump minimum rate, U/min).
        high: Upper limit of the stream (sensor maximum reading; capped pump maximum rate).
        magnitude: Effect size in the stream's unit (see :attr:`FaultEvent.magnitude`), or
            ``None`` for the intensity-based size.
    """

    values: FloatArray
    history: FloatArray
    duration: int
    intensity: float
    low: float
    high: float
    magnitude: float | None = None


@dataclass(frozen=True)
class FaultEvent:
    """One fault interval ``[start, start + duration)`` (minutes from the run start) for one patient.

    Attributes:
        patient: Patient index (position in the ``patients`` list given to ``simulate``).
        start: First faulty minute.
        duration: Length (min), at least 1.
        label: Registered fault name, e.g. ``"positive_bias"``.
        intensity: Effect size in ``[0, 1]`` (see ``docs/cgm-faults.md`` per fault).
        description: Free text kept in ``faults.parquet``.
        magnitude: Effect size in the unit of the fault's ``size`` tag (mg/dL for a spike or bias
            offset, the shown reading for ``min_reading``/``max_reading``, g for ``false_meal``,
            U for ``false_bolus``), used instead of ``intensity``; ``None`` (default) keeps the
            intensity-based size. Only faults tagged with a ``size`` accept one.
    """

    patient: int
    start: int
    duration: int
    label: str
    intensity: float = 0.5
    description: str = ""
    magnitude: float | None = None

    @property
    def end(self) -> int:
        """First minute after the interval."""
        return self.start + self.duration


@dataclass(frozen=True)
class FaultPlan:
    """Fault intervals for a run; at most one fault per patient at any minute."""

    events: tuple[FaultEvent, ...] = ()

    def check(self, n_patients: int, minutes: int) -> None:
        """Validate against a run of ``n_patients`` x ``minutes``.

        Raises:
            WearbenchError: Unknown label, bad patient, interval outside the run, bad intensity, a
                magnitude that is not finite or given to a fault without a ``size`` tag, or
                overlapping intervals for one patient.
        """
        last_end: dict[int, FaultEvent] = {}
        for e in sorted(self.events, key=lambda e: (e.patient, e.start)):
            entry = registry.get("fault", e.label)
            if e.magnitude is not None and ("size" not in entry.tags or not math.isfinite(e.magnitude)):
                raise WearbenchError(
                    f"fault {e.label} at minute {e.start}: magnitude {e.magnitude!r} "
                    + ("is not finite" if "size" in entry.tags else "is not accepted (no size parameter)")
                )
            if not 0 <= e.patient < n_patients:
                raise WearbenchError(f"fault {e.label}: patient index {e.patient} not in 0..{n_patients - 1}")
            if e.duration < 1 or e.start < 0 or e.end > minutes:
                raise WearbenchError(f"fault {e.label} at minute {e.start}: interval outside 0..{minutes}")
            if not 0.0 <= e.intensity <= 1.0:
                raise WearbenchError(f"fault {e.label} at minute {e.start}: intensity must be in [0, 1]")
            prev = last_end.get(e.patient)
            if prev is not None and e.start < prev.end:
                raise WearbenchError(
                    f"fault {e.label} at minute {e.start} overlaps {prev.label} at minute {prev.start}"
                )
            last_end[e.patient] = e

    def label_matrix(self, n_patients: int, minutes: int) -> np.ndarray:
        """Per-minute labels, shape ``(n_patients, minutes)``, ``""`` where no fault is active."""
        out = np.full((n_patients, minutes), "", dtype=object)
        for e in self.events:
            out[e.patient, e.start : e.end] = e.label
        return out

    def to_frame(self, patients: Sequence[str]) -> pd.DataFrame:
        """Intervals as a table, in the CSV format read by :func:`faults_from_csv`.

        Columns: ``patient`` (name), ``start``, ``duration``, ``label``, ``intensity``,
        ``description``, and ``magnitude`` (NaN: intensity-based) when any event has one.
        """
        events = sorted(self.events, key=lambda e: (e.patient, e.start))
        table = pd.DataFrame(
            {
                "patient": [patients[e.patient] for e in events],
                "start": pd.array([e.start for e in events], dtype="int64"),
                "duration": pd.array([e.duration for e in events], dtype="int64"),
                "label": [e.label for e in events],
                "intensity": pd.array([e.intensity for e in events], dtype="float64"),
                "description": [e.description for e in events],
            }
        )
        if any(e.magnitude is not None for e in events):
            table["magnitude"] = pd.array(
                [np.nan if e.magnitude is None else e.magnitude for e in events], dtype="float64"
            )
        return table
