"""Insulin pump model: simglucose's ``InsulinPump`` with parameters from ``pump_params.csv``."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

import numpy as np

from wearbench._errors import UnknownNameError
from wearbench.sim._data import param_row, read_param_csv
from wearbench.sim.patient._params import FloatArray

_U2PMOL = 6000.0


def pump_names() -> list[str]:
    """Pumps in simglucose's table (``Cozmo``, ``Insulet``)."""
    return [str(n) for n in read_param_csv("pump_params.csv")["Name"]]


@dataclass(frozen=True)
class Pump:
    """Rounds and clips insulin rates like simglucose's pump.

    simglucose converts the rate (U/min) to pmol/min, rounds to a multiple of the increment
    (``inc_basal``/``inc_bolus``, read as pmol/min), converts back and clips to
    ``[min, max]`` (U/min). The rounding is therefore tiny (0.05 pmol/min ~ 8e-6 U/min).

    Attributes:
        name: Pump name.
        min_basal, max_basal, inc_basal: Basal limits (U/min) and increment (pmol/min).
        min_bolus, max_bolus, inc_bolus: Bolus limits (U/min) and increment (pmol/min).
    """

    name: str
    min_basal: float
    max_basal: float
    inc_basal: float
    min_bolus: float
    max_bolus: float
    inc_bolus: float

    @classmethod
    def named(cls, name: str = "Insulet") -> Pump:
        """The pump ``name`` from simglucose's ``pump_params.csv``."""
        row = param_row("pump_params.csv", name)
        if not row:
            raise UnknownNameError("pump", name, difflib.get_close_matches(name, pump_names(), n=3))
        keys = ("min_basal", "max_basal", "inc_basal", "min_bolus", "max_bolus", "inc_bolus")
        return cls(name, *(row[k] for k in keys))

    def basal(self, rate: FloatArray) -> FloatArray:
        """Delivered basal rate (U/min) for a requested rate (U/min)."""
        return _deliver(rate, self.inc_basal, self.min_basal, self.max_basal)

    def bolus(self, rate: FloatArray) -> FloatArray:
        """Delivered bolus rate (U/min) for a requested rate (U/min)."""
        return _deliver(rate, self.inc_bolus, self.min_bolus, self.max_bolus)


def _deliver(rate: FloatArray, inc: float, lo: float, hi: float) -> FloatArray:
    pmol = np.round(rate * _U2PMOL / inc) * inc
    return np.clip(pmol / _U2PMOL, lo, hi)
