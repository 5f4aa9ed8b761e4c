"""Controller interface and simglucose's basal-bolus controller (``BBController``)."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import NamedTuple

import numpy as np

from wearbench.sim.patient import PatientParams
from wearbench.sim.patient._params import FloatArray


class ControllerAction(NamedTuple):
    """Insulin requested for the coming minute, each of shape ``(P,)``.

    Attributes:
        basal: Basal rate (U/min). For injection therapy (MDI) this is the absorption of the
            long-acting insulin already injected.
        bolus: Bolus delivered over the minute (U/min, i.e. U of rapid-acting insulin given in
            that minute).
        long_acting: Long-acting insulin injected this minute (U), recorded as an event; ``None``
            for pump therapies (the loop records zeros). Its absorption is in ``basal``.
    """

    basal: FloatArray
    bolus: FloatArray
    long_acting: FloatArray | None = None


class Controller(ABC):
    """Decides insulin for P patients from their CGM readings, called once per minute."""

    @abstractmethod
    def reset(self, params: PatientParams) -> None:
        """Prepare for a new run of the given patients (clears any internal state)."""

    @abstractmethod
    def policy(self, cgm: FloatArray, carbs: FloatArray, minute: int) -> ControllerAction:
        """Insulin for the coming minute.

        Args:
            cgm: Latest sensor glucose (mg/dL), shape ``(P,)``.
            carbs: Carbs announced this minute (g), shape ``(P,)``.
            minute: Minutes since the start of the run.

        Returns:
            Basal and bolus rates (U/min).
        """

    def observe(self, minute: int, basal: FloatArray, bolus: FloatArray) -> None:
        """The insulin the pump reports for ``minute``, called by the loop after :meth:`policy`.

        This is the pump history a real loop reads (after the pump's rounding and clipping, and
        including boluses the controller did not ask for); hidden delivery faults are not in it.
        The default ignores it; loops that count insulin on board override it.

        Args:
            minute: Minutes since the start of the run (the minute of the last :meth:`policy`).
            basal: Basal rate the pump shows (U/min), shape ``(P,)``.
            bolus: Bolus the pump shows in that minute (U), shape ``(P,)``.
        """
        del minute, basal, bolus


class BasalBolusController(Controller):
    """Basal-bolus therapy with carb counting, as simglucose's ``BBController``.

    Basal is the patient's steady-state rate ``u2ss * BW / 6000`` (U/min). When carbs are
    announced, a bolus of ``carbs / CR + (cgm > 150) * (cgm - target) / CF`` U is given in that
    minute (simglucose gives it one controller sample later, as its controller sees the meal after
    the step in which it was announced).

    Args:
        target: Glucose target for correction boluses (mg/dL).
    """

    def __init__(self, target: float = 140.0) -> None:
        self.target = target
        self._params: PatientParams | None = None

    def reset(self, params: PatientParams) -> None:
        self._params = params

    def policy(self, cgm: FloatArray, carbs: FloatArray, minute: int) -> ControllerAction:
        p = self._params
        if p is None:
            raise RuntimeError("BasalBolusController.reset(params) must be called before policy()")
        correction = np.where(cgm > 150.0, (cgm - self.target) / p.CF, 0.0)
        bolus = np.where(carbs > 0, carbs / p.CR + correction, 0.0)
        return ControllerAction(basal=p.basal_rate, bolus=bolus)
