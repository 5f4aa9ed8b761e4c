"""The 13-state UVA/Padova T1D model (Dalla Man et al. 2007; Kovatchev et al. 2009).

The right-hand side reproduces simglucose's ``T1DPatient.model`` term by term, vectorised over
patients: the state is an array of shape ``(13, P)``. State layout and units (per kg body weight):

==  ======  =====================================================  ===========
 i  name    meaning                                                unit
==  ======  =====================================================  ===========
 0  Qsto1   stomach, solid phase                                   mg
 1  Qsto2   stomach, liquid phase                                  mg
 2  Qgut    intestine                                              mg
 3  Gp      plasma glucose                                         mg/kg
 4  Gt      tissue glucose                                         mg/kg
 5  Ip      plasma insulin                                         pmol/kg
 6  X       insulin action on utilisation                          pmol/L
 7  I'      delayed insulin (first compartment)                    pmol/L
 8  XL      delayed insulin action on production                   pmol/L
 9  Il      liver insulin                                          pmol/kg
10  Isc1    subcutaneous insulin, compartment 1                    pmol/kg
11  Isc2    subcutaneous insulin, compartment 2                    pmol/kg
12  Gs      subcutaneous glucose                                   mg/kg
==  ======  =====================================================  ===========

Blood glucose is ``Gp / Vg`` and sensor-site glucose ``Gs / Vg`` (mg/dL); simglucose reports the
latter as "BG". As in simglucose, the stomach compartments hold mg (not mg/kg): the rate of
appearance divides by body weight.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from wearbench.sim.patient._params import N_STATES, FloatArray, PatientParams

EXERCISE_UPTAKE = 0.012
"""Insulin-independent uptake from plasma per unit intensity (1/min): ``dGp -= beta * e * Gp``."""
EXERCISE_SENSITIVITY = 1.5
"""Rise of insulin-dependent utilisation per unit of the sensitivity state: ``Vmx * (1 + alpha * Z)``."""
EXERCISE_TAU_ON = 15.0
"""Time constant (min) with which the sensitivity state ``Z`` rises towards the intensity."""
EXERCISE_TAU_OFF = 240.0
"""Time constant (min) of the decay of ``Z`` (raised insulin sensitivity) after a session."""

# Extra rows of the linear system: the EGP argument, the renal-excretion argument and Vmt.
_EGP, _RENAL, _VMT = N_STATES, N_STATES + 1, N_STATES + 2
# simglucose zeroes the derivative of states 3, 4, 5, 9, 10, 11, 12 while they are negative.
_NO_CLIP = np.ones((N_STATES, 1), dtype=bool)
_NO_CLIP[[3, 4, 5, 9, 10, 11, 12]] = False


class LinearSystem(NamedTuple):
    """The affine-in-state part of the model (see :func:`linear_system`).

    Attributes:
        A: Matrix of shape ``(P, 16, 13)``.
        const: Input-free constant column, shape ``(16, P)``.
    """

    A: FloatArray
    const: FloatArray


class MinuteTerms(NamedTuple):
    """Inputs of the right-hand side that are constant over a minute (see :func:`minute_terms`).

    Attributes:
        A: Linear system matrix, shape ``(P, 16, 13)``.
        const: Constant column including this minute's carb and insulin inputs, ``(16, P)``.
        aa, cc, b_dbar, d_dbar: Gastric-emptying coefficients (1/mg, 1/mg, mg, mg), ``(P,)``.
        kmax, half_range: ``kmax`` and ``(kmax - kmin) / 2`` (1/min), ``(P,)``.
        uptake: Exercise insulin-independent uptake rate (1/min) of plasma glucose, ``(P,)``, or
            ``None`` without exercise.
        vmx_gain: Exercise rise of ``Vmx`` as a fraction (``alpha * Z``), ``(P,)``, or ``None``.
    """

    A: FloatArray
    const: FloatArray
    aa: FloatArray
    cc: FloatArray
    b_dbar: FloatArray
    d_dbar: FloatArray
    kmax: FloatArray
    half_range: FloatArray
    uptake: FloatArray | None = None
    vmx_gain: FloatArray | None = None


def exercise_step(intensity: FloatArray, z: FloatArray) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Exercise terms for one minute and the next sensitivity state (pure).

    The sensitivity state ``Z`` (dimensionless) follows the intensity ``e`` (fraction of heart-rate
    reserve, 0-1) with time constant ``EXERCISE_TAU_ON`` while ``e > Z`` and decays with
    ``EXERCISE_TAU_OFF`` otherwise (after the session): ``Z' = (e - Z)/tau_on`` or ``-Z/tau_off``.

    Args:
        intensity: Exercise intensity this minute, shape ``(P,)``, in [0, 1].
        z: Sensitivity state at the start of the minute, shape ``(P,)``.

    Returns:
        ``(uptake, vmx_gain, z_next)``: uptake rate ``beta * e`` (1/min), the fractional rise of
        ``Vmx`` (``alpha * Z``) and ``Z`` one minute later, each of shape ``(P,)``.
    """
    rising = intensity > z
    z_next = np.where(
        rising,
        intensity + (z - intensity) * np.exp(-1.0 / EXERCISE_TAU_ON),
        z * np.exp(-1.0 / EXERCISE_TAU_OFF),
    )
    uptake: FloatArray = EXERCISE_UPTAKE * intensity
    gain: FloatArray = EXERCISE_SENSITIVITY * z
    return uptake, gain, z_next


def linear_system(params: PatientParams) -> LinearSystem:
    """The affine-in-state part of the model: ``A @ x + const`` with 16 rows.

    Rows 0-12 hold every linear term of ``dx/dt`` except gastric emptying ``kgut * x1`` and the
    inputs; row 13 is ``kp1 - kp2*Gp - kp3*XL`` (EGP before ``max(., 0)``), row 14 is
    ``ke1*(Gp - ke2)`` (renal excretion before ``max(., 0)``) and row 15 is ``Vm0 + Vmx*X``.
    """
    p = params
    a = np.zeros((16, N_STATES, p.n_patients))
    a[0, 0] = -p.kmax
    a[1, 0] = p.kmax
    a[2, 2] = -p.kabs
    a[3, 2] = p.f * p.kabs / p.BW
    a[3, 3], a[3, 4] = -p.k1, p.k2
    a[4, 3], a[4, 4] = p.k1, -p.k2
    a[5, 5], a[5, 9], a[5, 10], a[5, 11] = -(p.m2 + p.m4), p.m1, p.ka1, p.ka2
    a[6, 5], a[6, 6] = p.p2u / p.Vi, -p.p2u
    a[7, 5], a[7, 7] = p.ki / p.Vi, -p.ki
    a[8, 7], a[8, 8] = p.ki, -p.ki
    a[9, 5], a[9, 9] = p.m2, -(p.m1 + p.m30)
    a[10, 10] = -(p.ka1 + p.kd)
    a[11, 10], a[11, 11] = p.kd, -p.ka2
    a[12, 3], a[12, 12] = p.ksc, -p.ksc
    a[_EGP, 3], a[_EGP, 8] = -p.kp2, -p.kp3
    a[_RENAL, 3] = p.ke1
    a[_VMT, 6] = p.Vmx
    const = np.zeros((16, p.n_patients))
    const[3] = -p.Fsnc
    const[6] = -p.p2u * p.Ib
    const[_EGP] = p.kp1
    const[_RENAL] = -p.ke1 * p.ke2
    const[_VMT] = p.Vm0
    return LinearSystem(np.ascontiguousarray(a.transpose(2, 0, 1)), const)


def minute_terms(
    carbs_rate: FloatArray,
    insulin_rate: FloatArray,
    dbar: FloatArray,
    params: PatientParams,
    system: LinearSystem | None = None,
    uptake: FloatArray | None = None,
    vmx_gain: FloatArray | None = None,
) -> MinuteTerms:
    """Precompute the right-hand side's inputs for a minute with constant inputs.

    Args:
        carbs_rate: Carbohydrate ingestion rate (g/min), shape ``(P,)``.
        insulin_rate: Subcutaneous insulin infusion rate (U/min), shape ``(P,)``.
        dbar: Size of the current meal (mg): stomach content when the meal started plus the carbs
            eaten since; it sets the gastric-emptying nonlinearity. ``<= 0`` means no meal yet.
        params: Patient parameters.
        system: ``linear_system(params)``, if already computed.
        uptake: Exercise insulin-independent uptake rate (1/min), ``(P,)``; ``None`` for none.
        vmx_gain: Exercise fractional rise of ``Vmx``, ``(P,)``; ``None`` for none.

    Returns:
        The terms for :func:`rhs_terms`.
    """
    p = params
    lin = linear_system(p) if system is None else system
    const = lin.const.copy()
    const[0] = carbs_rate * 1000.0  # g/min -> mg/min
    const[10] = insulin_rate * (6000.0 / p.BW)  # U/min -> pmol/kg/min
    # Without a meal kgut = kmax: zero coefficients make both tanh terms vanish.
    has_meal = dbar > 0
    inv = 2.5 / np.where(has_meal, dbar, np.inf)
    return MinuteTerms(
        A=lin.A,
        const=const,
        aa=inv / (1.0 - p.b),
        cc=inv / p.d,
        b_dbar=np.where(has_meal, p.b * dbar, 0.0),
        d_dbar=np.where(has_meal, p.d * dbar, 0.0),
        kmax=p.kmax,
        half_range=(p.kmax - p.kmin) / 2.0,
        uptake=uptake,
        vmx_gain=vmx_gain,
    )


def rhs_terms(x: FloatArray, terms: MinuteTerms, params: PatientParams) -> FloatArray:
    """``dx/dt`` from the state and precomputed minute terms (pure; the fast path of :func:`rhs`).

    Args:
        x: State, shape ``(13, P)``.
        terms: From :func:`minute_terms`.
        params: Patient parameters.

    Returns:
        ``dx/dt`` (units per min), shape ``(13, P)``.
    """
    lin: FloatArray = np.matmul(terms.A, x.T[:, :, None])[:, :, 0].T + terms.const  # (16, P)
    dx = lin[:N_STATES]
    # gastric emptying kgut = kmin + (kmax - kmin)/2 * (tanh(.) - tanh(.) + 2), falling from kmax
    # towards kmin and back as the stomach empties
    qsto = x[0] + x[1]
    kgut = terms.kmax + terms.half_range * (
        np.tanh(terms.aa * (qsto - terms.b_dbar)) - np.tanh(terms.cc * (qsto - terms.d_dbar))
    )
    emptying = kgut * x[1]
    dx[1] -= emptying
    dx[2] += emptying
    # endogenous production (non-negative) and renal excretion above the threshold ke2
    dx[3] += np.maximum(lin[_EGP], 0.0) - np.maximum(lin[_RENAL], 0.0)
    # insulin-dependent utilisation, Michaelis-Menten
    vmt = lin[_VMT]
    if terms.vmx_gain is not None:  # exercise: insulin sensitivity Vmx * (1 + alpha * Z)
        vmt = vmt + terms.vmx_gain * params.Vmx * x[6]
    dx[4] -= vmt * x[4] / (params.Km0 + x[4])
    if terms.uptake is not None:  # exercise: insulin-independent uptake beta * e * Gp
        dx[3] -= terms.uptake * x[3]
    dx *= (x >= 0) | _NO_CLIP
    return dx


def rhs(
    x: FloatArray,
    carbs_rate: FloatArray,
    insulin_rate: FloatArray,
    dbar: FloatArray,
    params: PatientParams,
) -> FloatArray:
    """Time derivative of the UVA/Padova state for P patients (pure; does not modify inputs).

    Term by term as simglucose's ``T1DPatient.model``: gastric emptying with the meal-size
    dependent ``kgut`` (``kmax``/``kmin``, ``b``, ``d``), intestinal absorption ``kabs`` and rate of
    appearance ``f*kabs*Qgut/BW``, endogenous production ``max(kp1 - kp2*Gp - kp3*XL, 0)``,
    insulin-independent utilisation ``Fsnc``, renal excretion ``ke1*(Gp - ke2)`` above ``ke2``,
    plasma/tissue exchange ``k1``/``k2``, Michaelis-Menten utilisation ``(Vm0 + Vmx*X)*Gt/(Km0 + Gt)``,
    insulin kinetics (``m1``, ``m2``, ``m4``, ``m30``), subcutaneous insulin (``ka1``, ``ka2``, ``kd``)
    and subcutaneous glucose (``ksc``).

    Args:
        x: State, shape ``(13, P)``, units as in the module table.
        carbs_rate: Carbohydrate ingestion rate (g/min), shape ``(P,)``.
        insulin_rate: Subcutaneous insulin infusion rate (U/min), shape ``(P,)``.
        dbar: Size of the current meal (mg), see :func:`minute_terms`.
        params: Patient parameters.

    Returns:
        ``dx/dt`` (units per min), shape ``(13, P)``.
    """
    return rhs_terms(x, minute_terms(carbs_rate, insulin_rate, dbar, params), params)
