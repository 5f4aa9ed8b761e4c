"""Planted cross-signal couplings with known lags and signs.

Each user gets 2–4 *empirical* couplings drawn from :data:`MENU` (physiologically
plausible driver → response pairs), plus the *definitional* ones of :data:`DEFINITIONAL`
that every user has (``active_kcal`` is computed from ``steps`` and exercise; ``mets``
from exercise minutes and intensity).

An empirical coupling acts on day-to-day innovations. With ``z_d`` the driver's white
signal standardised per user (mean 0, SD 1 over the record; see :func:`driver_signals`:
the innovation of a persistent driver, the true daily series of an exercise driver),
the response's standardised innovation on day ``t`` is::

    sqrt(1 - beta**2) * e[t] + beta * z_d[t - lag]        (e: the response's own noise)

so ``beta`` is the standardised effect (response-innovation SDs per driver SD) and the
response's innovation variance is unchanged. A persistent response carries the
innovation on through its AR(1) state (:mod:`._persistence`), so
``corr(driver[t], response[t + L])`` peaks at ``L = lag`` and decays as ``phi_response **
(L - lag)`` after it and as ``phi_driver ** (lag - L)`` before it. A metric is never both
a driver and a response of one user's empirical couplings (so a driver's innovation is
its own noise), and a response has at most one driver, so no chain or conflicting lag is
planted.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from wearbench.sources.synthetic._config import FloatArray, IntArray
from wearbench.sources.synthetic._traits import Person


@dataclass(frozen=True)
class Edge:
    """A menu entry: driver → response with a sign and the lags (days) it may take."""

    driver: str
    response: str
    sign: int
    lags: tuple[int, ...]


MENU: tuple[Edge, ...] = (
    Edge("sleep_minutes", "hrv", +1, (0, 1)),
    Edge("steps", "resting_hr", -1, (1, 2, 3)),
    Edge("exercise_minutes", "resting_hr", -1, (1, 2, 3)),
    Edge("stress", "sleep_efficiency", -1, (0, 1)),
    Edge("exercise_minutes", "deep_sleep_pct", +1, (0, 1)),
    Edge("mets", "hrv", -1, (1, 2)),
    Edge("stress", "hrv", -1, (0, 1)),
    Edge("sleep_minutes", "stress", -1, (0, 1)),
    Edge("steps", "stress", -1, (0, 1)),
    Edge("sleep_efficiency", "resting_hr", -1, (0, 1)),
    Edge("sleep_minutes", "steps", +1, (1, 2)),
    Edge("stress", "resting_hr", +1, (0, 1)),
    Edge("exercise_minutes", "sleep_minutes", +1, (1,)),
)
#: Couplings every user has by construction: (driver, response), lag 0, positive.
DEFINITIONAL: tuple[tuple[str, str], ...] = (
    ("exercise_minutes", "active_kcal"),
    ("exercise_minutes", "mets"),
    ("steps", "active_kcal"),
)
#: Every metric that drives an empirical coupling, in menu order.
DRIVERS: tuple[str, ...] = tuple(dict.fromkeys(e.driver for e in MENU))
#: Drivers that are the same underlying behaviour for the driver/response role rule.
_ROLE = {"mets": "exercise_minutes"}
_EXERCISE_DRIVERS = frozenset({"exercise_minutes", "mets"})
#: Exercise-driven couplings need at least this daily exercise probability.
_MIN_EXERCISE_P = 0.15
_BETA_RANGE = (0.5, 0.8)


@dataclass(frozen=True)
class Coupling:
    """One planted empirical coupling of one user."""

    driver: str
    response: str
    lag: int
    beta: float  # signed, standardised

    def truth(self, user_id: str) -> dict[str, Any]:
        """JSON-ready truth row."""
        return {
            "user_id": user_id,
            "driver": self.driver,
            "response": self.response,
            "lag_days": self.lag,
            "sign": 1 if self.beta > 0 else -1,
            "beta": round(abs(self.beta), 4),
            "kind": "empirical",
        }


def _select_one(rng: np.random.Generator, exercise_p: float) -> tuple[Coupling, ...]:
    target = int(rng.integers(2, 5))
    drivers: set[str] = set()
    responses: set[str] = set()
    chosen: list[Coupling] = []
    for k in rng.permutation(len(MENU)):
        edge = MENU[int(k)]
        driver = _ROLE.get(edge.driver, edge.driver)
        if edge.driver in _EXERCISE_DRIVERS and exercise_p < _MIN_EXERCISE_P:
            continue
        if edge.response in responses or edge.response in drivers or driver in responses:
            continue
        beta = edge.sign * float(rng.uniform(*_BETA_RANGE))
        lag = int(edge.lags[int(rng.integers(len(edge.lags)))])
        chosen.append(Coupling(edge.driver, edge.response, lag, round(beta, 4)))
        drivers.add(driver)
        responses.add(edge.response)
        if len(chosen) == target:
            break
    return tuple(sorted(chosen, key=lambda c: (c.driver, c.response)))


def select_couplings(rngs: list[np.random.Generator], person: Person) -> list[tuple[Coupling, ...]]:
    """Draw each user's empirical couplings.

    Args:
        rngs: One generator per user (the ``COUPLINGS`` component stream).
        person: The chunk's users (rare exercisers get no exercise-driven coupling).
    """
    return [_select_one(g, float(person.exercise_p[i])) for i, g in enumerate(rngs)]


@dataclass(frozen=True)
class Planted:
    """Couplings of a chunk as arrays over :data:`MENU` entries.

    Attributes:
        beta: ``(users, len(MENU))`` signed standardised effects, 0 where not planted.
        lag: ``(users, len(MENU))`` lags in days.
    """

    beta: FloatArray
    lag: IntArray

    @classmethod
    def from_lists(cls, couplings: list[tuple[Coupling, ...]]) -> Planted:
        """Arrange per-user couplings by menu entry."""
        index = {(e.driver, e.response): k for k, e in enumerate(MENU)}
        beta = np.zeros((len(couplings), len(MENU)))
        lag = np.zeros((len(couplings), len(MENU)), dtype=np.int64)
        for u, user in enumerate(couplings):
            for c in user:
                k = index[(c.driver, c.response)]
                beta[u, k], lag[u, k] = c.beta, c.lag
        return cls(beta, lag)


def _standardise(x: FloatArray) -> FloatArray:
    mean = x.mean(axis=1, keepdims=True)
    sd = x.std(axis=1, keepdims=True)
    out: FloatArray = np.divide(x - mean, sd, out=np.zeros_like(x), where=sd > 0)
    return out


def _shift(z: FloatArray, lag: int) -> FloatArray:
    if lag == 0:
        return z
    out = np.zeros_like(z)
    out[:, lag:] = z[:, :-lag]
    return out


def driver_signals(noise: dict[str, FloatArray], series: dict[str, FloatArray]) -> dict[str, FloatArray]:
    """Standardised white signal of every driver in :data:`DRIVERS`.

    Args:
        noise: Own standard-normal innovations of the persistent drivers.
        series: True daily series of the other drivers (exercise: close to white).

    Returns:
        Driver name → ``(users, days)`` signal, mean 0 and SD 1 per user.
    """
    return {d: _standardise(noise[d] if d in noise else series[d]) for d in DRIVERS}


def couple(response: str, noise: FloatArray, drivers: dict[str, FloatArray], planted: Planted) -> FloatArray:
    """Standardised daily innovation of ``response`` with its planted drivers mixed in.

    Args:
        response: Response metric name.
        noise: The response's own standard-normal innovations, ``(users, days)``.
        drivers: Standardised driver signals from :func:`driver_signals`.
        planted: The chunk's couplings.

    Returns:
        ``(users, days)`` array with unit variance per user (up to sampling).
    """
    mixed = np.zeros_like(noise)
    beta2 = np.zeros(noise.shape[0])
    for k, edge in enumerate(MENU):
        beta = planted.beta[:, k]
        if edge.response != response or not beta.any():
            continue
        z = drivers[edge.driver]
        for lag in np.unique(planted.lag[beta != 0, k]):
            m = (beta != 0) & (planted.lag[:, k] == lag)
            mixed[m] += beta[m, None] * _shift(z[m], int(lag))
        beta2 += beta**2
    out: FloatArray = np.sqrt(1.0 - beta2)[:, None] * noise + mixed
    return out
