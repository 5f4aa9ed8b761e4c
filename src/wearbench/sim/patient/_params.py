"""UVA/Padova virtual-patient parameters, one column per patient.

Values come from simglucose's ``vpatient_params.csv`` (30 patients: ``adolescent#001``-``#010``,
``adult#001``-``#010``, ``child#001``-``#010``) and ``Quest.csv`` (carb ratio, correction factor).
Units follow Dalla Man et al. (2007) as tabulated by simglucose: masses per kg body weight
(glucose mg/kg, insulin pmol/kg), volumes dL/kg (``Vg``) or L/kg (``Vi``), rates 1/min.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, fields

import numpy as np
import numpy.typing as npt

from wearbench._errors import UnknownNameError
from wearbench.sim._data import read_param_csv

FloatArray = npt.NDArray[np.float64]
N_STATES = 13


@dataclass(frozen=True)
class PatientParams:
    """Model parameters of P patients; every array has shape ``(P,)`` unless stated.

    Attributes:
        names: Patient names, length P.
        x0: Initial (steady-state) model state, shape ``(13, P)``.
        BW: Body weight (kg).
        Vg: Glucose distribution volume (dL/kg).
        Vi: Insulin distribution volume (L/kg).
        Ib: Basal plasma insulin (pmol/L).
        u2ss: Steady-state insulin infusion (pmol/kg/min); basal rate is ``u2ss*BW/6000`` U/min.
        CR: Carbohydrate ratio (g/U), from ``Quest.csv``.
        CF: Correction factor (mg/dL per U), from ``Quest.csv``.
        kabs, kmax, kmin, b, d, f: Oral glucose absorption (1/min; b, d, f dimensionless).
        kp1, kp2, kp3: Endogenous glucose production (mg/kg/min; 1/min; mg/kg/min per pmol/L).
        ki: Delay of insulin action on production (1/min).
        Fsnc: Insulin-independent utilisation (mg/kg/min).
        ke1, ke2: Renal excretion (1/min; mg/kg threshold).
        k1, k2: Glucose exchange plasma/tissue (1/min).
        Vm0, Vmx, Km0: Insulin-dependent utilisation (mg/kg/min; mg/kg/min per pmol/L; mg/kg).
        p2u: Insulin action on utilisation (1/min).
        m1, m2, m4, m30: Insulin kinetics (1/min).
        ka1, ka2, kd: Subcutaneous insulin absorption (1/min).
        ksc: Subcutaneous glucose exchange (1/min).
    """

    names: tuple[str, ...]
    x0: FloatArray
    BW: FloatArray
    Vg: FloatArray
    Vi: FloatArray
    Ib: FloatArray
    u2ss: FloatArray
    CR: FloatArray
    CF: FloatArray
    kabs: FloatArray
    kmax: FloatArray
    kmin: FloatArray
    b: FloatArray
    d: FloatArray
    f: FloatArray
    kp1: FloatArray
    kp2: FloatArray
    kp3: FloatArray
    ki: FloatArray
    Fsnc: FloatArray
    ke1: FloatArray
    ke2: FloatArray
    k1: FloatArray
    k2: FloatArray
    Vm0: FloatArray
    Vmx: FloatArray
    Km0: FloatArray
    p2u: FloatArray
    m1: FloatArray
    m2: FloatArray
    m4: FloatArray
    m30: FloatArray
    ka1: FloatArray
    ka2: FloatArray
    kd: FloatArray
    ksc: FloatArray

    @property
    def n_patients(self) -> int:
        """Number of patients P."""
        return len(self.names)

    @property
    def basal_rate(self) -> FloatArray:
        """Steady-state basal insulin rate (U/min), ``u2ss * BW / 6000``."""
        return self.u2ss * self.BW / 6000.0


_SCALAR_FIELDS = tuple(f.name for f in fields(PatientParams) if f.name not in {"names", "x0", "CR", "CF"})


def patient_names() -> list[str]:
    """Names of all virtual patients in simglucose's table (30), in table order."""
    return [str(n) for n in read_param_csv("vpatient_params.csv")["Name"]]


def load_params(names: list[str] | tuple[str, ...]) -> PatientParams:
    """Load parameters for the named patients (duplicates allowed), columns in the given order.

    Args:
        names: Patient names such as ``"adult#001"``, ``"adolescent#003"``, ``"child#007"``.

    Returns:
        The parameters with one column per requested patient.

    Raises:
        UnknownNameError: A name is not in simglucose's patient table.
    """
    table = read_param_csv("vpatient_params.csv").set_index("Name")
    quest = read_param_csv("Quest.csv").set_index("Name")
    known = [str(n) for n in table.index]
    for name in names:
        if name not in table.index or name not in quest.index:
            raise UnknownNameError("patient", name, difflib.get_close_matches(name, known, n=3))
    rows = table.loc[list(names)]
    q = quest.loc[list(names)]
    x0 = rows.iloc[:, 1:14].to_numpy(dtype=np.float64).T.copy()  # columns x0_ 1 .. x0_13
    values = {k: rows[k].to_numpy(dtype=np.float64) for k in _SCALAR_FIELDS}
    return PatientParams(
        names=tuple(names),
        x0=x0,
        CR=q["CR"].to_numpy(dtype=np.float64),
        CF=q["CF"].to_numpy(dtype=np.float64),
        **values,
    )
