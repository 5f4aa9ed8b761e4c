"""Where the default loop differs from simglucose's ``T1DSimEnv``, cause by cause (docs/cgm-simglucose.md).

Reference: simglucose's ``T1DSimEnv`` + ``BBController``, Insulet pump, Dexcom sensor with its noise
generator yielding zeros, scripted meals 07:00 50 g, 12:00 70 g, 18:30 80 g, one day, stepped as
``SimObj.simulate`` does (unmodified simglucose objects); the last row uses simglucose's
``PIDController`` (our PID's default gains) instead of ``BBController``. Each row runs our loop one way and
reports the max |difference| (mg/dL) from the env's ``BG`` history at minutes 0, 3, ..., 1437.

Run: ``python benchmarks/simglucose_loop.py`` (~30 s of CPU, mostly simglucose; needs ``wearbench[cgm]``).
"""

from __future__ import annotations

import itertools
import time
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from wearbench.sim import ControllerAction, SampledController, simglucose_output, simulate
from wearbench.sim.controller import BasalBolusController
from wearbench.sim.patient._params import FloatArray

PATIENTS = ["adult#001", "adolescent#003", "child#002"]
MEALS = {420: 50.0, 720: 70.0, 1110: 80.0}


def env_history(name: str, pid: bool = False) -> Any:
    """simglucose's env history for one patient-day (``BG``: 481 values, minutes 0..1440 by 3)."""
    from simglucose.actuator.pump import InsulinPump
    from simglucose.controller.basal_bolus_ctrller import BBController
    from simglucose.controller.pid_ctrller import PIDController
    from simglucose.patient.t1dpatient import T1DPatient
    from simglucose.sensor.cgm import CGMSensor
    from simglucose.simulation.env import T1DSimEnv
    from simglucose.simulation.scenario import CustomScenario

    class ExactCGM(CGMSensor):  # type: ignore[misc]
        def __init__(self, params: Any, seed: int | None = None) -> None:
            super().__init__(params, seed=seed)
            self._noise_generator = itertools.repeat(0.0)

        def reset(self) -> None:
            super().reset()
            self._noise_generator = itertools.repeat(0.0)

    start = datetime(2024, 1, 1)
    scenario = CustomScenario(start_time=start, scenario=[(m / 60, g) for m, g in MEALS.items()])
    env = T1DSimEnv(
        T1DPatient.withName(name), ExactCGM.withName("Dexcom"), InsulinPump.withName("Insulet"), scenario
    )
    ctrl = PIDController(P=0.001, I=0.00001, D=0.001) if pid else BBController()
    ctrl.reset()
    obs, reward, done, info = env.reset()
    while env.time < start + timedelta(days=1):
        obs, reward, done, info = env.step(ctrl.policy(obs, reward, done, **info))
    return env.show_history()


class UnspreadController(SampledController):
    """The env's timing and observation, but the whole bolus given in the decision minute."""

    def policy(self, cgm: FloatArray, carbs: FloatArray, minute: int) -> ControllerAction:
        action = super().policy(cgm, carbs, minute)
        scale = self.sample_time if minute % self.sample_time == 0 else 0.0
        return action._replace(bolus=action.bolus * scale)


def main() -> None:
    t0 = time.perf_counter()
    history = {name: env_history(name) for name in PATIENTS}
    ref = {name: history[name]["BG"].to_numpy()[:480] for name in PATIENTS}
    print(f"simglucose env: {time.perf_counter() - t0:.1f} s for {len(PATIENTS)} patient-days")
    carbs = np.zeros((len(PATIENTS), 1440))
    for minute, grams in MEALS.items():
        carbs[:, minute] = grams
    common: dict[str, Any] = {"sensor": "exact:3", "pump": "Insulet", "meals": carbs}
    default = simulate(PATIENTS, 1, **common)
    mode = simulate(PATIENTS, 1, loop="simglucose", **common)
    rows: list[tuple[str, Any, str]] = [
        ("default loop, true_bg (plasma) at the sample minutes", default, "true_bg"),
        ("default loop, gsub at the sample minutes", default, "gsub"),
        ("default loop, gsub as the env reports it (step mean)", default, "env"),
        ("env timing + observation, bolus in one minute", simulate(
            PATIENTS, 1, controller=UnspreadController(BasalBolusController(), 3), **common), "env"),
        ("loop=simglucose, gsub at the sample minutes (no step mean)", mode, "gsub"),
        ("loop=simglucose (env_bg)", mode, "env_bg"),
        ("loop=simglucose, no pump rounding", simulate(PATIENTS, 1, loop="simglucose",
                                                          **{**common, "pump": None}), "env_bg"),
        ("loop=simglucose, 4 RK4 sub-steps", simulate(PATIENTS, 1, loop="simglucose", substeps=4,
                                                        **common), "env_bg"),
    ]  # fmt: skip
    print(f"{'max |ours - env BG| (mg/dL)':62s}" + "".join(f"{n:>16s}" for n in PATIENTS))
    for label, frame, column in rows:
        cells = []
        for name in PATIENTS:
            mine = frame[frame["patient"] == name].sort_values("minute")
            if column == "env":
                ours = simglucose_output(mine["gsub"].to_numpy()[:, None], 3)[:, 0]
            else:
                ours = mine[column].to_numpy()
            cells.append(float(np.max(np.abs(ours[::3] - ref[name]))))
        print(f"{label:62s}" + "".join(f"{c:16.6f}" for c in cells))
    cells = []
    for name in PATIENTS:  # the env's insulin: mean delivered rate over minutes t-3 .. t-1 (U/min)
        rate = mode[mode["patient"] == name].sort_values("minute")["insulin"].to_numpy()
        ours = rate.reshape(-1, 3).sum(axis=1) / 3
        cells.append(float(np.max(np.abs(ours - history[name]["insulin"].to_numpy()[:480]))))
    print(f"{'loop=simglucose, insulin step means (U/min)':62s}" + "".join(f"{c:16.3g}" for c in cells))
    pid = simulate(PATIENTS, 1, controller="pid", loop="simglucose", **common)
    cells = []
    for name in PATIENTS:  # simglucose's PIDController with our PID's default gains
        mine = pid[pid["patient"] == name].sort_values("minute")["env_bg"].to_numpy()[::3]
        cells.append(float(np.max(np.abs(mine - env_history(name, pid=True)["BG"].to_numpy()[:480]))))
    print(f"{'loop=simglucose, pid (env with PIDController)':62s}" + "".join(f"{c:16.6f}" for c in cells))


if __name__ == "__main__":
    main()
