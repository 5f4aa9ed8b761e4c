"""A finished simulation with everything a re-run from any of its minutes needs."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

from wearbench._errors import WearbenchError
from wearbench.sim._loop import LoopState
from wearbench.sim._simglucose_mode import simglucose_output
from wearbench.sim.faults import FaultPlan
from wearbench.sim.patient import PatientParams
from wearbench.sim.patient._params import FloatArray
from wearbench.sim.pump import Pump
from wearbench.sim.scenario import RescueCarbs
from wearbench.sim.sensor import Sensor


@dataclass(frozen=True)
class SimulationRun:
    """The inputs, recorded streams and checkpoints of one run of :func:`run_simulation`.

    Every array is indexed by patient (the position in ``patients``) and by minute of the run.
    A re-run from a checkpoint with the same inputs reproduces ``streams`` bit for bit
    (:func:`~wearbench.sim.simulate_counterfactual`).

    Attributes:
        patients: Patient names, one per simulated patient (repeats allowed).
        params: Their parameters.
        days: Days simulated.
        seed: The integer seed, or ``None`` when a generator was given.
        controller: The controller's registered name, or its class name when an object was given.
        eaten: Carbs eaten (g), shape ``(P, minutes)``: the meal scenario.
        exercise: Exercise intensity (0-1), shape ``(P, minutes)``, or ``None``.
        sessions: The exercise sessions table, or ``None``.
        sensor: The CGM sensor, or ``None`` (noise-free, every minute).
        noise: The sensor noise (mg/dL) drawn for this run, shape ``(P, minutes)``, or ``None``.
        pump: The pump, or ``None``.
        faults: The fault plan, or ``None``.
        substeps: RK4 steps per minute.
        streams: Each stream of :data:`~wearbench.sim._loop.RECORDED`, shape ``(minutes, P)``.
        checkpoints: The loop's state at the start of chosen minutes (always minute 0).
        loop: ``"default"`` or ``"simglucose"`` (``docs/cgm-simglucose.md``).
        env_step: The simglucose env's step (the sensor sample time, min; 1 without a sensor).
        engine: The patient step's engine, ``"numpy"`` or ``"numba"``; re-runs use the same one so
            that they reproduce ``streams`` bit for bit.
        rescue: The hypoglycaemia self-treatment rule, or ``None``; re-runs carry its state from
            the checkpoint.
    """

    patients: tuple[str, ...]
    params: PatientParams
    days: int
    seed: int | None
    controller: str
    eaten: FloatArray
    exercise: FloatArray | None
    sessions: pd.DataFrame | None
    sensor: Sensor | None
    noise: FloatArray | None
    pump: Pump | None
    faults: FaultPlan | None
    substeps: int
    streams: Mapping[str, FloatArray]
    checkpoints: Mapping[int, LoopState]
    loop: str = "default"
    env_step: int = 1
    engine: str = "numpy"
    rescue: RescueCarbs | None = None

    @property
    def minutes(self) -> int:
        """Minutes in the run."""
        return int(self.eaten.shape[1])

    def patient_index(self, patient: int | str) -> int:
        """The position of ``patient`` (an index, or a name: its first occurrence).

        Raises:
            WearbenchError: An unknown name or an index outside the run.
        """
        n = len(self.patients)
        if isinstance(patient, str):
            if patient not in self.patients:
                raise WearbenchError(f"patient {patient!r} is not in this run ({', '.join(self.patients)})")
            return self.patients.index(patient)
        if not 0 <= int(patient) < n:
            raise WearbenchError(f"patient index {patient} is not in 0..{n - 1}")
        return int(patient)

    def checkpoint_before(self, minute: int) -> LoopState:
        """The latest checkpoint at or before ``minute``.

        Raises:
            WearbenchError: The run kept no checkpoint at or before ``minute``.
        """
        if not any(m <= minute for m in self.checkpoints):
            raise WearbenchError(
                f"this run kept no checkpoint at or before minute {minute}: run it with "
                "run_simulation(..., checkpoint_every=N) to re-run it from a minute"
            )
        return self.checkpoints[max(m for m in self.checkpoints if m <= minute)]

    def frame(self) -> pd.DataFrame:
        """The run as :func:`~wearbench.sim.simulate` returns it (one row per patient and minute)."""
        n, minutes = self.eaten.shape
        rec = dict(self.streams)
        columns = ["true_bg", "gsub", "cgm", "carbs", "insulin"]
        if self.faults is not None:
            columns = ["true_bg", "gsub", "cgm", "cgm_clean", "carbs", "carbs_eaten", "insulin",
                       "insulin_requested", "insulin_delivered"]  # fmt: skip
        rec["carbs_eaten"] = self.eaten.T
        names, codes = np.unique(np.asarray(self.patients), return_inverse=True)  # as pd.Categorical
        frame = pd.DataFrame(
            {
                "patient": pd.Categorical.from_codes(np.repeat(codes, minutes), categories=pd.Index(names)),
                "minute": np.tile(np.arange(minutes), n),
                **{k: rec[k].T.ravel() for k in (*columns, "basal", "bolus")},
            }
        )
        if self.faults is not None:
            frame["label"] = self.faults.label_matrix(n, minutes).ravel()
        if self.exercise is not None:
            frame["exercise"] = self.exercise.ravel()
        if self.rescue is not None:
            frame["rescue"] = rec["rescue"].T.ravel()
        if rec["long_acting"].any():
            frame["long_acting"] = rec["long_acting"].T.ravel()
        if self.loop == "simglucose":
            frame["env_bg"] = simglucose_output(rec["gsub"], self.env_step).T.ravel()
            frame["env_cgm"] = simglucose_output(rec["cgm"], self.env_step).T.ravel()
        return frame
