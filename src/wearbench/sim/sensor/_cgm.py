"""CGM sensor: Johnson-SU correlated noise, sample-and-hold and clipping, as simglucose.

simglucose (``CGMSensor``/``CGMNoise``) draws a standard-normal AR sequence every 15 min,
``e_0 ~ N(0,1)``, ``e_k = PACF * (e_{k-1} + N(0,1))``, maps it through the Johnson SU transform
``eps = xi + lambda * sinh((e - gamma) / delta)`` (mg/dL), interpolates it cubically to the
sensor's sample times, adds it to subcutaneous glucose, clips to ``[min, max]`` and holds the
reading between samples. Differences here: one cubic spline over the whole run per patient
(simglucose splines 150-min chunks), and numpy's ``Generator`` instead of ``RandomState``, so
noise is statistically the same but not draw-for-draw identical.

:meth:`Sensor.exact` (``"exact:N"`` by name) is a noise-free sensor: subcutaneous glucose sampled
every ``N`` minutes and held, clipped to simglucose's Dexcom range ``[39, 600]`` mg/dL by default (as
simglucose's ``CGMSensor`` with its noise set to zero), for exact comparisons with simglucose.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass

import numpy as np
from scipy.interpolate import CubicSpline

from wearbench._errors import UnknownNameError, WearbenchError
from wearbench.sim._data import param_row, read_param_csv
from wearbench.sim.patient._params import FloatArray

_NOISE_STEP = 15  # min between AR noise draws
_EXACT = "exact:"  # name prefix of the noise-free sensor


def sensor_names() -> list[str]:
    """Sensors in simglucose's table (``Dexcom``, ``GuardianRT``, ``Navigator``)."""
    return [str(n) for n in read_param_csv("sensor_params.csv")["Name"]]


@dataclass(frozen=True)
class Sensor:
    """A CGM sensor's noise and sampling parameters (simglucose's ``sensor_params.csv``).

    Attributes:
        name: Sensor name.
        sample_time: Minutes between readings.
        pacf: Lag-one autocorrelation of the 15-min noise.
        gamma, lam, delta, xi: Johnson SU parameters (``lam``, ``xi`` in mg/dL).
        min_bg, max_bg: Reading limits (mg/dL).
        noise_free: ``True`` for :meth:`exact`: :meth:`noise` is zero and draws nothing.
    """

    name: str
    sample_time: int
    pacf: float
    gamma: float
    lam: float
    delta: float
    xi: float
    min_bg: float
    max_bg: float
    noise_free: bool = False

    @classmethod
    def named(cls, name: str = "Dexcom") -> Sensor:
        """The sensor ``name`` from simglucose's ``sensor_params.csv``, or ``"exact:N"`` (:meth:`exact`)."""
        if name.startswith(_EXACT):
            period = name[len(_EXACT) :]
            if not period.isdigit() or int(period) < 1:
                raise WearbenchError(
                    f"sensor {name!r}: expected exact:N, N >= 1 whole minutes between readings"
                )
            return cls.exact(int(period))
        r = param_row("sensor_params.csv", name)
        if not r:
            raise UnknownNameError("sensor", name, difflib.get_close_matches(name, sensor_names(), n=3))
        return cls(
            name=name,
            sample_time=int(r["sample_time"]),
            pacf=r["PACF"],
            gamma=r["gamma"],
            lam=r["lambda"],
            delta=r["delta"],
            xi=r["xi"],
            min_bg=r["min"],
            max_bg=r["max"],
        )

    @classmethod
    def exact(cls, sample_time: int, min_bg: float = 39.0, max_bg: float = 600.0) -> Sensor:
        """A noise-free sensor: subcutaneous glucose every ``sample_time`` minutes, held between.

        Args:
            sample_time: Minutes between readings (>= 1).
            min_bg: Lowest reading (mg/dL); the default is simglucose's Dexcom limit
                (``sensor_params.csv``), ``-inf`` for no clipping.
            max_bg: Highest reading (mg/dL); likewise (600), ``inf`` for no clipping.
        """
        if sample_time < 1:
            raise WearbenchError(f"exact sensor: sample_time must be >= 1 minute, got {sample_time}")
        return cls(f"{_EXACT}{sample_time}", sample_time, 0.0, 0.0, 0.0, 1.0, 0.0, min_bg, max_bg, True)

    def noise(self, n_patients: int, minutes: int, rng: np.random.Generator) -> FloatArray:
        """Additive sensor noise (mg/dL) at every minute, shape ``(P, minutes)``.

        Only the values at multiples of ``sample_time`` are used by :meth:`read`. A noise-free
        sensor returns zeros without drawing from ``rng``.
        """
        if self.noise_free:
            return np.zeros((n_patients, minutes))
        n15 = minutes // _NOISE_STEP + 2
        z = rng.standard_normal((n_patients, n15))
        e = np.empty_like(z)
        e[:, 0] = z[:, 0]
        for k in range(1, n15):
            e[:, k] = self.pacf * (e[:, k - 1] + z[:, k])
        eps = self.xi + self.lam * np.sinh((e - self.gamma) / self.delta)
        t15 = np.arange(n15, dtype=np.float64) * _NOISE_STEP
        spline = CubicSpline(t15, eps, axis=1)
        out: FloatArray = spline(np.arange(minutes, dtype=np.float64))
        return out

    def is_sample(self, minute: int) -> bool:
        """Whether the sensor takes a reading at ``minute``."""
        return minute % self.sample_time == 0

    def read(self, gsub: FloatArray, noise: FloatArray) -> FloatArray:
        """A reading (mg/dL): subcutaneous glucose plus noise, clipped to the sensor's range."""
        return np.clip(gsub + noise, self.min_bg, self.max_bg)
