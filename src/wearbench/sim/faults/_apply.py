"""Apply a :class:`FaultPlan` inside the simulator's minute loop, one stream at a time."""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

import numpy as np

from wearbench._registry import registry
from wearbench.sim.faults._plan import FaultPlan, FaultWindow
from wearbench.sim.patient._params import FloatArray

#: Streams a fault can act on: sensor reading, announced carbs, basal, bolus, hidden total delivery.
STREAMS = ("cgm", "meal", "basal", "bolus", "total")


class FaultInjector:
    """Records each clean stream minute by minute and returns it with the active faults applied.

    Args:
        plan: The checked fault plan.
        n_patients: Patients in the run.
        minutes: Minutes in the run.
        limits: Per stream, ``(low, high)`` arrays of shape ``(P,)`` (missing streams: 0 and inf).
    """

    #: For checkpoints and batches (``sim/_state.py``): the (minutes, P) arrays' patient axis, and
    #: what snapshots share (the plan, and the clean streams, written only at the current minute).
    patient_axes: ClassVar[Mapping[str, int]] = {"_active": 1, "_clean": 1}
    snapshot_shares: ClassVar[tuple[str, ...]] = ("_active", "_clean", "_limits")

    def __init__(
        self,
        plan: FaultPlan,
        n_patients: int,
        minutes: int,
        limits: Mapping[str, tuple[FloatArray, FloatArray]],
    ) -> None:
        self._events = plan.events
        self._active = np.full((minutes, n_patients), -1, dtype=np.intp)
        self._stream: list[str] = []
        self._fns = []
        for i, e in enumerate(plan.events):
            entry = registry.get("fault", e.label)
            self._active[e.start : e.end, e.patient] = i
            self._stream.append(str(entry.tags.get("stream", entry.tags["target"])))
            self._fns.append(entry.obj)
        self._clean = {s: np.zeros((minutes, n_patients)) for s in STREAMS}
        inf = np.full(n_patients, np.inf)
        self._limits = {s: limits.get(s, (np.zeros(n_patients), inf)) for s in STREAMS}

    def apply(self, stream: str, minute: int, clean: FloatArray) -> FloatArray:
        """The values of ``stream`` at ``minute`` after faults, shape ``(P,)`` (a new array).

        Args:
            stream: One of :data:`STREAMS`.
            minute: Minute of the run (each stream is applied once per minute, in order).
            clean: The fault-free values (unit of the stream), shape ``(P,)`` or a scalar.
        """
        out = np.array(np.broadcast_to(clean, self._clean[stream].shape[1:]), dtype=np.float64)
        self._clean[stream][minute] = out
        low, high = self._limits[stream]
        for p in np.flatnonzero(self._active[minute] >= 0):
            i = int(self._active[minute, p])
            if self._stream[i] != stream:
                continue
            e = self._events[i]
            column = self._clean[stream][:, p]
            window = FaultWindow(
                values=column[e.start : minute + 1],
                history=column[: e.start],
                duration=e.duration,
                intensity=e.intensity,
                low=float(low[p]),
                high=float(high[p]),
                magnitude=e.magnitude,
            )
            out[p] = self._fns[i](window)[-1]
        return out
