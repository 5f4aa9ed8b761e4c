"""Speed of the vectorised UVA/Padova simulator against simglucose, per simulated patient-day.

Both sides run the same kind of closed loop: Dexcom CGM noise, Insulet pump, random
simglucose-style meals. Ours simulates ``--patients`` patients in one run (``simulate``, the whole
pipeline: meals, noise, loop, data frame):

* basal-bolus through the numpy engine (``--numpy-days``) and the numba engine (``--days``);
* every registered controller (``registry.names("controller")``) through the path ``simulate``
  takes by default (``engine="auto"``): the compiled whole loop for basal-bolus and PID, otherwise
  ``run_loop`` with the compiled patient step (``--therapy-days``).

simglucose (``T1DSimEnv`` + ``BBController``, stepped as ``SimObj`` does) runs ``--ref-days`` days
for each of ``--ref-patients`` patients; its time is extrapolated per patient-day. The numba
compile time (first call in a fresh process with an empty cache, then with the cache filled) is
measured in subprocesses. Times are the process's CPU time (``time.process_time``), so that other
jobs on a shared machine inflate them less than wall-clock time; both sides are single-threaded.

Run: ``python benchmarks/sim.py`` (about 2 min on 2 cores; needs ``wearbench[cgm]``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from datetime import datetime

import numpy as np
import pandas as pd

FIRST_CALL = (
    "import time; t = time.process_time(); from wearbench.sim import simulate; "
    "simulate(['adult#001'], 1, seed=0, engine='numba'); "
    "simulate(['adult#001'], 1, seed=0, engine='numba', controller='pid'); "
    "from wearbench.sim import random_fault_plan; "
    "simulate(['adult#001'], 1, seed=0, engine='numba', faults=random_fault_plan(1, 1, seed=0)); "
    "print(time.process_time() - t)"
)


def ours(
    n_patients: int, days: int, substeps: int, controller: str, engine: str
) -> tuple[float, pd.DataFrame]:
    """CPU seconds for one ``simulate`` run of ``n_patients`` x ``days`` (after a warm-up), and the run."""
    from wearbench.sim import patient_names, simulate

    names = patient_names()[:n_patients]
    simulate(names[:2], 1, seed=1, controller=controller, engine=engine)  # imports, tables, jit cache
    t0 = time.process_time()
    df = simulate(names, days, seed=0, substeps=substeps, controller=controller, engine=engine)
    seconds = time.process_time() - t0
    assert len(df) == n_patients * days * 1440
    return seconds, df


def largest_gap(a: pd.DataFrame, b: pd.DataFrame) -> tuple[str, float]:
    """The float column where two runs differ most, and by how much (NaN where both are NaN)."""
    gaps = {c: float(np.nanmax(np.abs(a[c].to_numpy() - b[c].to_numpy()))) for c in a if a[c].dtype == float}
    worst = max(gaps, key=lambda c: gaps[c])
    return worst, gaps[worst]


def loop_only(n_patients: int, days: int, substeps: int, engine: str) -> float:
    """Seconds of the loop alone (basal-bolus, Dexcom, Insulet): ``run_loop`` with the ``engine``
    step, or ``run_fast`` for ``engine="fast"``."""
    from wearbench.sim import BasalBolusController, Pump, Sensor, initial_state, load_params, patient_names
    from wearbench.sim import random_meals as meals
    from wearbench.sim._fast import run_fast
    from wearbench.sim._loop import PlainMeals, PlainPump, PlainSensor, run_loop

    params, rng = load_params(patient_names()[:n_patients]), np.random.default_rng(0)
    eaten, sensor, pump = meals(n_patients, days, rng), Sensor.named("Dexcom"), Pump.named("Insulet")
    noise, ctrl = sensor.noise(n_patients, days * 1440, rng), BasalBolusController()
    ctrl.reset(params)
    t0 = time.process_time()
    if engine == "fast":
        run_fast(params, eaten, ctrl, sensor, noise, pump, substeps)
    else:
        stages = (PlainSensor(sensor, noise), PlainMeals(), PlainPump(pump, n_patients))
        run_loop(params, initial_state(params), eaten, ctrl, stages, substeps, None, engine)
    return time.process_time() - t0


def path_of(controller: str, engine: str) -> str:
    """Which loop ``simulate`` runs for a fault-free run with ``controller``."""
    from wearbench._registry import registry
    from wearbench.sim._fast import fast_loop_supports
    from wearbench.sim.patient._compiled import resolve_engine

    ctrl = registry.get("controller", controller).obj()
    if fast_loop_supports(ctrl, engine):
        return "compiled loop"
    return f"run_loop, {resolve_engine(engine)} step"


def first_call_seconds() -> tuple[float, float]:
    """First numba simulate calls in a fresh process: with an empty cache, then with it filled."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache}
        times = []
        for _ in range(2):
            out = subprocess.run(
                [sys.executable, "-c", FIRST_CALL], env=env, check=True, capture_output=True, text=True
            )
            times.append(float(out.stdout.strip().splitlines()[-1]))
    return times[0], times[1]


def simglucose_run(names: list[str], days: int) -> float:
    from simglucose.actuator.pump import InsulinPump
    from simglucose.controller.basal_bolus_ctrller import BBController
    from simglucose.patient.t1dpatient import T1DPatient
    from simglucose.sensor.cgm import CGMSensor
    from simglucose.simulation.env import T1DSimEnv
    from simglucose.simulation.scenario_gen import RandomScenario

    start = datetime(2024, 1, 1)
    t0 = time.process_time()
    for i, name in enumerate(names):
        env = T1DSimEnv(
            T1DPatient.withName(name),
            CGMSensor.withName("Dexcom", seed=i),
            InsulinPump.withName("Insulet"),
            RandomScenario(start_time=start, seed=i),
        )
        ctrl = BBController()
        obs, reward, done, info = env.reset()
        for _ in range(days * 1440 // int(env.sample_time)):
            action = ctrl.policy(obs, reward, done, **info)
            obs, reward, done, info = env.step(action)
    return time.process_time() - t0


def report(label: str, seconds: float, patient_days: int, ref_per: float) -> None:
    per = seconds / patient_days
    print(
        f"{label:<44} {patient_days:>5} patient-days in {seconds:7.2f} s = {patient_days / seconds:8.1f} "
        f"patient-days/s ({1000 * per:7.2f} ms each), {ref_per / per:6.0f}x simglucose"
    )


def main() -> None:
    from wearbench._registry import registry
    from wearbench.sim.patient._compiled import HAVE_NUMBA

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--patients", type=int, default=30)
    ap.add_argument("--days", type=int, default=30, help="days of the numba basal-bolus run")
    ap.add_argument("--numpy-days", type=int, default=7, help="days of the numpy basal-bolus run")
    ap.add_argument("--therapy-days", type=int, default=7, help="days of each registered controller")
    ap.add_argument("--substeps", type=int, default=2)
    ap.add_argument("--ref-patients", type=int, default=2)
    ap.add_argument("--ref-days", type=int, default=1)
    args = ap.parse_args()

    names = ["adult#001", "child#001", "adolescent#001"][: args.ref_patients]
    ref_s = simglucose_run(names, args.ref_days)
    ref_pd = len(names) * args.ref_days
    ref_per = ref_s / ref_pd
    print(
        f"simglucose (T1DSimEnv + BBController) {ref_pd} patient-days in {ref_s:.2f} s = "
        f"{ref_pd / ref_s:.3f} patient-days/s ({ref_per:.2f} s per patient-day)"
    )
    n = args.patients
    print(f"ours, {n} patients, RK4 with {args.substeps} sub-steps/min, whole simulate() call:")
    numpy_s, numpy_df = ours(n, args.numpy_days, args.substeps, "basal-bolus", "numpy")
    report("basal-bolus, numpy engine", numpy_s, n * args.numpy_days, ref_per)
    if HAVE_NUMBA:
        numba_s, _ = ours(n, args.days, args.substeps, "basal-bolus", "numba")
        report("basal-bolus, numba engine (compiled loop)", numba_s, n * args.days, ref_per)
        column, gap = largest_gap(
            ours(n, args.numpy_days, args.substeps, "basal-bolus", "numba")[1], numpy_df
        )
        print(
            f"numba vs numpy, same {n} x {args.numpy_days}-day run: largest gap {gap:.1e} (column {column})"
        )
        ratio = (numpy_s / (n * args.numpy_days)) / (numba_s / (n * args.days))
        print(f"numba / numpy speed-up per patient-day, whole simulate(): {ratio:.1f}x")
        loop_np = loop_only(n, args.numpy_days, args.substeps, "numpy")
        loop_step = loop_only(n, args.numpy_days, args.substeps, "numba")
        loop_nb = loop_only(n, args.days, args.substeps, "fast")
        report("loop only: run_loop, numpy step", loop_np, n * args.numpy_days, ref_per)
        report("loop only: run_loop, numba step", loop_step, n * args.numpy_days, ref_per)
        report("loop only: compiled loop (run_fast)", loop_nb, n * args.days, ref_per)
        cold, warm = first_call_seconds()
        print(
            f"first calls in a fresh process (3 small runs: basal-bolus, pid, faults): {cold:.1f} s "
            f"with an empty numba cache (compiling), {warm:.1f} s with the cache filled"
        )
    print(f"every registered controller, engine='auto', {n} patients x {args.therapy_days} days:")
    for controller in registry.names("controller"):
        seconds, _ = ours(n, args.therapy_days, args.substeps, controller, "auto")
        label = f"{controller} ({path_of(controller, 'auto')})"
        report(label, seconds, n * args.therapy_days, ref_per)


if __name__ == "__main__":
    main()
