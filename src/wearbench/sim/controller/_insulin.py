"""Insulin and carb action curves, and dose histories, shared by the therapy controllers.

Curves are pure array kernels of the time since a dose (minutes):

* :func:`exponential_iob` / :func:`exponential_activity`: the exponential insulin action curve
  used by OpenAPS (oref0 >= 0.6) and Loop, derived by D. Maksimovic (LoopKit/Loop issue #388,
  2017; OpenAPS docs, "Understanding insulin on board calculations"). With peak time ``tp`` and
  duration ``td`` (minutes), ``tau = tp (1 - tp/td) / (1 - 2 tp/td)``, ``a = 2 tau / td`` and
  ``S = 1 / (1 - a + (1 + a) exp(-td/tau))``, the fraction of a dose acting per minute is
  ``activity(t) = S / tau^2 * t * (1 - t/td) * exp(-t/tau)`` and the fraction still on board is
  ``iob(t) = 1 - S (1 - a) ((t^2 / (tau td (1 - a)) - t/tau - 1) exp(-t/tau) + 1)``, both zero
  for ``t >= td``; ``iob`` is ``1 - integral of activity``.
* :func:`erlang_remaining`: fraction of a carb (or other) dose not yet absorbed, for a
  two-compartment (Erlang-2) absorption with time constant ``tau``: ``(1 + t/tau) exp(-t/tau)``.
* :func:`long_acting_rate`: absorption rate of one unit of glargine-like long-acting insulin
  (1/min): a 24-h box smoothed by an Erlang-2 onset, see the function.

:class:`DoseHistory` keeps each patient's doses of the last ``duration`` minutes (one slot a
minute) and sums a "remaining fraction" curve over them: insulin on board, carbs on board, and
their predicted change over a horizon.
"""

from __future__ import annotations

import numpy as np

from wearbench.sim.patient._params import FloatArray


def _shape(peak: float, dia: float) -> tuple[float, float, float]:
    if not 0 < 2 * peak < dia:
        raise ValueError(f"the exponential insulin curve needs 0 < 2*peak < dia, got peak={peak}, dia={dia}")
    tau = peak * (1 - peak / dia) / (1 - 2 * peak / dia)
    a = 2 * tau / dia
    s = 1 / (1 - a + (1 + a) * np.exp(-dia / tau))
    return tau, a, float(s)


def exponential_activity(t: FloatArray, dia: float = 300.0, peak: float = 75.0) -> FloatArray:
    """Fraction of an insulin dose acting per minute, ``t`` minutes after it (1/min).

    Args:
        t: Minutes since the dose (any shape; negative times give 0).
        dia: Duration of insulin action (min); the curve is 0 from ``dia`` on.
        peak: Time of peak activity (min), ``0 < 2 * peak < dia``.
    """
    tau, _, s = _shape(peak, dia)
    t = np.asarray(t, dtype=np.float64)
    inside = (t >= 0) & (t < dia)
    tt = np.where(inside, t, 0.0)
    return np.where(inside, s / tau**2 * tt * (1 - tt / dia) * np.exp(-tt / tau), 0.0)


def exponential_iob(t: FloatArray, dia: float = 300.0, peak: float = 75.0) -> FloatArray:
    """Fraction of an insulin dose still on board ``t`` minutes after it (1 at 0, 0 from ``dia``).

    Args:
        t: Minutes since the dose (any shape; negative times give 1).
        dia: Duration of insulin action (min).
        peak: Time of peak activity (min), ``0 < 2 * peak < dia``.
    """
    tau, a, s = _shape(peak, dia)
    t = np.asarray(t, dtype=np.float64)
    tt = np.clip(t, 0.0, dia)
    iob = 1 - s * (1 - a) * ((tt**2 / (tau * dia * (1 - a)) - tt / tau - 1) * np.exp(-tt / tau) + 1)
    return np.where(t >= dia, 0.0, np.where(t <= 0, 1.0, iob))


def erlang_remaining(t: FloatArray, tau: float) -> FloatArray:
    """Fraction not yet absorbed ``t`` minutes after a dose, two-compartment absorption.

    ``(1 + t/tau) exp(-t/tau)`` for ``t >= 0`` (1 before); the absorption rate peaks at ``tau``.

    Args:
        t: Minutes since the dose.
        tau: Time constant of each compartment (min).
    """
    tt = np.maximum(np.asarray(t, dtype=np.float64), 0.0)
    return np.asarray((1 + tt / tau) * np.exp(-tt / tau), dtype=np.float64)


def long_acting_rate(t: FloatArray, onset: float = 54.0, duration: float = 1440.0) -> FloatArray:
    """Absorption rate (1/min) of one unit of glargine-like long-acting insulin.

    The profile is a box of length ``duration`` (a flat release of ``1/duration`` per minute)
    convolved with an Erlang-2 onset of time constant ``onset``:
    ``(K(t) - K(t - duration)) / duration`` with ``K(t) = 1 - (1 + t/onset) exp(-t/onset)``.
    It rises to half its plateau after ``1.68 * onset`` minutes (90 min by default, the onset of
    action of glargine, 1.5 +- 0.3 h, in Lepore et al. 2000, Diabetes 49:2142), stays flat without
    a peak, and fades over a few hours after ``duration`` (end of action 22 +- 4 h in the same
    study). It integrates to 1, and because a box of length ``duration`` tiles time, doses repeated
    every ``duration / n`` minutes give an exactly constant steady-state rate.

    Args:
        t: Minutes since the injection.
        onset: Erlang-2 time constant of the onset (min).
        duration: Length of the flat release (min).
    """
    t = np.asarray(t, dtype=np.float64)
    return (_absorbed(t, onset) - _absorbed(t - duration, onset)) / duration


def _absorbed(t: FloatArray, tau: float) -> FloatArray:
    return np.where(t >= 0, 1 - erlang_remaining(t, tau), 0.0)


def rule_1800_isf(basal_rate: FloatArray, basal_fraction: float = 0.5) -> FloatArray:
    """Correction factor (mg/dL per U) by the "1800 rule": ``1800 / TDI``.

    The total daily insulin is estimated from the basal need as ``TDI = 1440 * basal_rate /
    basal_fraction`` (basal about half of TDI). The rule: Walsh & Roberts, *Pumping Insulin*
    (4th ed., 2006), ch. 12; Davidson et al. 2008, Endocr Pract 14:1095 (1700-1800 rules).

    Args:
        basal_rate: Basal need (U/min), shape ``(P,)``.
        basal_fraction: Share of the total daily insulin given as basal.
    """
    return np.asarray(1800.0 * basal_fraction / (1440.0 * basal_rate))


class DoseHistory:
    """Per-minute doses of P patients over the last ``len(remaining) - 1`` minutes.

    ``remaining[a]`` is the fraction of a dose still to act ``a`` minutes after it (1 at ``a = 0``,
    0 at the last index). Call :meth:`record` once per minute with that minute's doses; the
    totals at minute ``t`` cover the doses of minutes before ``t``.

    Args:
        n_patients: Patients P.
        remaining: Remaining-fraction curve at ages ``0, 1, ...`` minutes; its last value must be 0.
    """

    def __init__(self, n_patients: int, remaining: FloatArray) -> None:
        curve = np.asarray(remaining, dtype=np.float64)
        if curve.ndim != 1 or curve.size < 2 or curve[-1] != 0.0:
            raise ValueError("remaining must be a 1-D curve ending at 0")
        self.size = curve.size - 1
        self._curve = curve
        self._doses = np.zeros((n_patients, self.size))
        self._weights: dict[tuple[int, int], FloatArray] = {}

    def record(self, minute: int, doses: FloatArray) -> None:
        """Store the doses given at ``minute`` (overwrites those of ``minute - size``)."""
        self._doses[:, minute % self.size] = doses

    def _by_age(self, minute: int) -> FloatArray:
        # slot j holds the dose of the latest minute m < `minute` with m % size == j; column i of
        # the result is the dose given i + 1 minutes before `minute`
        return self._doses[:, (minute - 1 - np.arange(self.size)) % self.size]

    def on_board(self, minute: int) -> FloatArray:
        """Total still to act at ``minute`` (dose units), shape ``(P,)``."""
        return np.asarray(np.einsum("pa,a->p", self._by_age(minute), self._curve[1:]))

    def future(self, minute: int, steps: int, step: int = 5) -> FloatArray:
        """Amount still to act at ``minute + k * step`` for ``k = 0..steps``, shape ``(P, steps + 1)``.

        Only doses already recorded count (nothing is assumed to be given later).
        """
        key = (steps, step)
        if key not in self._weights:
            ages = np.arange(1, self.size + 1)[:, None] + step * np.arange(steps + 1)[None, :]
            self._weights[key] = self._curve[np.minimum(ages, self.size)]
        # einsum, not matmul: small products, and BLAS threads are slow on a busy machine
        return np.asarray(np.einsum("pa,ak->pk", self._by_age(minute), self._weights[key]))
