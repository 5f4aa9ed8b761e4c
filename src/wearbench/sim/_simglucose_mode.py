"""simglucose's ``T1DSimEnv`` semantics on the one minute loop (``simulate(..., loop="simglucose")``).

simglucose's environment (``simulation/env.py``, ``sim_engine.py``) runs the patient one minute at a
time, but the controller only every ``sample_time`` minutes (the sensor's, 3 for Dexcom):

* **Observation.** The step ending at minute ``t = k*st`` reports the mean, over its ``st`` minutes,
  of the CHO the scenario announced at the start of each minute (window ``[t-st, t)``, g/min) and
  of the sensor's held reading and of ``Gsub`` after each minute (window ``(t-st, t]``, mg/dL).
  The controller sees that observation at ``t``; at minute 0 it sees the reading at 0 and no CHO.
* **Action.** The controller's ``basal`` and ``bolus`` (U/min) are held over the next ``st``
  minutes; ``BBController`` converts the bolus (U) to a rate by dividing it by ``st`` and reads
  the meal as ``CHO * st`` (g). The pump rounds each minute's rate (as :class:`PlainPump`).
* **Output.** ``BG`` (which is subcutaneous glucose ``Gsub``, not plasma glucose) and ``CGM`` are
  those step means, stamped at the step's end ``t``; at minute 0 the values at 0.

Here the loop still runs every minute; :class:`SampledController` reproduces the first two points
around any :class:`~wearbench.sim.controller.Controller` (:func:`env_controller` also gives a PID
controller the env's time step), and :func:`simglucose_output` computes the
third from the recorded minute streams. See ``docs/cgm-simglucose.md``.
"""

from __future__ import annotations

import numpy as np

from wearbench.sim.controller import Controller, ControllerAction, PIDController
from wearbench.sim.patient import PatientParams
from wearbench.sim.patient._params import FloatArray


class SampledController(Controller):
    """Calls ``inner`` only every ``sample_time`` minutes, with simglucose's env observation.

    At minute ``t = k * sample_time`` (``k >= 1``) ``inner.policy`` gets the mean of the readings
    at minutes ``t-sample_time+1 .. t`` and the carbs announced in minutes
    ``t-sample_time .. t-1`` (their sum, g, as ``BBController`` reads ``meal * sample_time``). Its
    basal rate is then held, and its bolus (U, given in one minute by our controllers) is spread
    evenly over the ``sample_time`` minutes ``t .. t+sample_time-1`` as a rate (U/min). At minute 0
    ``inner`` gets the reading at 0 and no carbs. A long-acting injection is passed on once, at the
    minute ``inner`` returned it.

    Args:
        inner: The controller to sample (reset by :meth:`reset`).
        sample_time: Minutes between controller calls (the sensor's sample time), >= 1.
    """

    def __init__(self, inner: Controller, sample_time: int) -> None:
        if sample_time < 1:
            raise ValueError(f"sample_time must be >= 1 minute, got {sample_time}")
        self.inner, self.sample_time = inner, sample_time
        self._held: ControllerAction | None = None
        self._cgm_mean: FloatArray = np.zeros(0)
        self._carbs_sum: FloatArray = np.zeros(0)

    def reset(self, params: PatientParams) -> None:
        self.inner.reset(params)
        self._held = None
        self._cgm_mean = np.zeros(params.n_patients)
        self._carbs_sum = np.zeros(params.n_patients)

    def policy(self, cgm: FloatArray, carbs: FloatArray, minute: int) -> ControllerAction:
        st = self.sample_time
        if self._held is not None and minute % st != 0:
            self._cgm_mean = self._cgm_mean + cgm / st
            self._carbs_sum = self._carbs_sum + carbs
            return self._held
        if self._held is None:  # the env's reset: the reading now, no meal
            seen_cgm, seen_carbs = cgm, np.zeros_like(self._carbs_sum)
        else:  # running sums in the env's order: CGM += reading / sample_time each minute
            seen_cgm, seen_carbs = self._cgm_mean + cgm / st, self._carbs_sum
        action = self.inner.policy(seen_cgm, seen_carbs, minute)
        self._held = ControllerAction(basal=action.basal, bolus=action.bolus / st)
        self._cgm_mean = np.zeros_like(self._cgm_mean)
        self._carbs_sum = np.zeros_like(self._carbs_sum) + carbs
        if action.long_acting is not None:
            return self._held._replace(long_acting=action.long_acting)
        return self._held

    def observe(self, minute: int, basal: FloatArray, bolus: FloatArray) -> None:
        """Pass the pump's report of every minute on to the wrapped controller."""
        self.inner.observe(minute, basal, bolus)


def env_controller(controller: Controller, sample_time: int) -> SampledController:
    """``controller`` as simglucose's env drives it: a :class:`SampledController`.

    A :class:`~wearbench.sim.controller.PIDController` is rebuilt with its ``dt`` (minutes between
    calls) set to ``sample_time``, as simglucose's PID integrates and differentiates over the env's
    sample time; the controller passed in is not changed.

    Args:
        controller: The controller (not yet reset).
        sample_time: The env's step (the sensor's sample time, minutes).
    """
    if isinstance(controller, PIDController):
        c = controller
        controller = PIDController(c.p, c.i, c.d, c.target, dt=float(sample_time))
    return SampledController(controller, sample_time)


def simglucose_output(stream: FloatArray, sample_time: int) -> FloatArray:
    """The env's reported value of a minute stream: the mean over each step, stamped at its end.

    ``stream[t]`` is the value at the start of minute ``t`` (shape ``(minutes, P)``), as the loop
    records ``gsub`` and ``cgm``. The env's value stamped at ``t = k * sample_time`` (``k >= 1``) is
    ``sum(stream[t-sample_time+1 .. t] / sample_time)``, summed in that order as the env does; at
    ``t = 0`` it is ``stream[0]``. Other minutes are NaN. With ``gsub`` this is simglucose's ``BG``
    (mg/dL), with ``cgm`` its ``CGM``.

    Args:
        stream: A recorded stream, shape ``(minutes, P)``.
        sample_time: The env's step (the sensor's sample time, minutes), >= 1.

    Returns:
        Shape ``(minutes, P)``: the env's value at step ends, NaN elsewhere.
    """
    if sample_time < 1:
        raise ValueError(f"sample_time must be >= 1 minute, got {sample_time}")
    minutes = stream.shape[0]
    out = np.full(stream.shape, np.nan)
    ends = np.arange(sample_time, minutes, sample_time)
    acc = np.zeros((len(ends), *stream.shape[1:]))
    for j in range(sample_time - 1, -1, -1):
        acc = acc + stream[ends - j] / sample_time
    out[ends] = acc
    out[0] = stream[0]
    return out
