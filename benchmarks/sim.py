"""Speed of the vectorised UVA/Padova simulator against simglucose, per simulated patient-day.

Both sides run the same kind of closed loop: Dexcom CGM noise, Insulet pump, random
simglucose-style meals. In one run this script reports:

1. simglucose (``T1DSimEnv`` + ``BBController``, stepped as ``SimObj`` does): ``--ref-days`` days
   for each of ``--ref-patients`` patients, extrapolated per patient-day;
2. every registered controller (``registry.names("controller")``: basal-bolus, pid, mdi, sap,
   hcl-mpc, openaps), ``--patients`` patients x ``--days`` days in one ``simulate`` call (the
   whole pipeline: meals, noise, loop, data frame), on each engine of ``--engines``: patient-days
   per second, ms per patient-day and the ratio to simglucose, the loop each run took (the
   compiled whole-run loop serves fault-free basal-bolus and PID runs on the numba engine; other
   runs take ``run_loop`` with the engine's patient step), and the largest gap between the
   engines' outputs;
3. the counterfactual line: ``--cf-n`` counterfactual day-ahead runs for one patient against one
   plain patient-day through ``simulate()`` and through ``run_loop``, with basal-bolus on the
   numba engine, through the compiled loop and through ``run_loop`` (``benchmarks/counterfactual.py``
   has the other cases);
4. with ``--details``: the loop alone (``run_loop`` with each step, the compiled loop) and the
   numba compile time (first calls in a fresh process with an empty cache, then with it filled,
   measured in subprocesses).

Times are the process's CPU time (``time.process_time``), so that other jobs on a shared machine
inflate them less than wall-clock time; both sides are single-threaded. The load average is
printed at the start and the end.

Run: ``python benchmarks/sim.py`` (about 2 min on a loaded 2-core machine; needs
``wearbench[cgm]``); ``--details`` adds about 30 s.
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
) -> tuple[float, float, pd.DataFrame]:
    """CPU and wall seconds of one ``simulate`` run of ``n_patients`` x ``days`` (after a warm-up),
    and the run."""
    from wearbench.sim import patient_names, simulate

    names = patient_names()[:n_patients]
    simulate(names[:2], 1, seed=1, controller=controller, engine=engine)  # imports, tables, jit cache
    t0, w0 = time.process_time(), time.perf_counter()
    df = simulate(names, days, seed=0, substeps=substeps, controller=controller, engine=engine)
    seconds, wall = time.process_time() - t0, time.perf_counter() - w0
    assert len(df) == n_patients * days * 1440
    return seconds, wall, df


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
        run_loop(params, initial_state(params), eaten, ctrl, stages, substeps, None, engine=engine)
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


def therapy_table(args: argparse.Namespace, ref_per: float) -> None:
    """Every registered controller on every engine, as a markdown table, and the engines' gaps."""
    from wearbench._registry import registry

    n, days, engines = args.patients, args.days, args.engines.split(",")
    pd_count = n * days
    print(f"\nevery registered controller, {n} patients x {days} days, whole simulate() call:\n")
    print("| therapy | engine | loop | CPU s (wall s) | ms per patient-day | patient-days/s | x simglucose |")
    print("|---|---|---|---:|---:|---:|---:|")
    gaps = []
    for controller in registry.names("controller"):
        frames, per_day = {}, {}
        for engine in engines:
            seconds, wall, frames[engine] = ours(n, days, args.substeps, controller, engine)
            per = per_day[engine] = seconds / pd_count
            print(
                f"| {controller} | {engine} | {path_of(controller, engine)} | {seconds:.2f} ({wall:.2f}) | "
                f"{1e3 * per:.2f} | {pd_count / seconds:,.0f} | {ref_per / per:,.0f} |",
                flush=True,
            )
        if {"numba", "numpy"} <= set(frames):
            column, gap = largest_gap(frames["numba"], frames["numpy"])
            speedup = per_day["numpy"] / per_day["numba"]
            gaps.append(f"{controller}: numba {speedup:.1f}x numpy, largest gap {gap:.1e} ({column})")
        del frames
    print("\nnumba against numpy, same runs:\n  " + "\n  ".join(gaps))


def counterfactual_lines(args: argparse.Namespace) -> None:
    """The issue's counterfactual line: basal-bolus, numba engine (see benchmarks/counterfactual.py)."""
    from counterfactual import measure

    cost = measure("basal-bolus", "numba", n=args.cf_n, days=4, repeat=3)
    print(f"\ncounterfactuals (adult#001, 1-day horizon, {args.cf_n} per batch; target < 20x a plain day):")
    print("\n".join(cost.lines()))


def details(args: argparse.Namespace, ref_per: float) -> None:
    """The loop alone with each step, and the numba compile time."""
    n, days = args.patients, args.days
    print(f"\nloop only (basal-bolus, {n} patients x {days} days, no meals/noise/data frame):")
    for label, engine in (("run_loop, numpy step", "numpy"), ("run_loop, numba step", "numba"),
                          ("compiled loop (run_fast)", "fast")):  # fmt: skip
        report(label, loop_only(n, days, args.substeps, engine), n * days, ref_per)
    cold, warm = first_call_seconds()
    print(
        f"first calls in a fresh process (3 small runs: basal-bolus, pid, faults): {cold:.1f} s "
        f"with an empty numba cache (compiling), {warm:.1f} s with the cache filled"
    )


def profile(controller: str, n_patients: int, days: int, top: int = 12) -> None:
    """cProfile of one numba-engine ``simulate`` run: the top functions by own time, and the
    controller's share."""
    import cProfile
    import pstats

    from wearbench.sim import patient_names, simulate

    names = patient_names()[:n_patients]
    simulate(names[:2], 1, seed=1, controller=controller, engine="numba")
    prof = cProfile.Profile()
    prof.runcall(simulate, names, days, seed=0, controller=controller, engine="numba")
    stats = pstats.Stats(prof)
    total = stats.total_tt  # type: ignore[attr-defined]
    print(f"\ncProfile, {controller}, numba engine, {n_patients} patients x {days} days: {total:.2f} s")
    rows = sorted(stats.stats.items(), key=lambda kv: -kv[1][2])[:top]  # type: ignore[attr-defined]
    for (path, line, name), (_, calls, own, cum, _) in rows:
        where = f"{os.path.basename(path)}:{line}({name})" if line else name
        print(f"  {own:6.3f} s own ({100 * own / total:4.1f}%), {cum:6.3f} s cum, {calls:>6} calls  {where}")
    policy = [v[3] for (path, _, name), v in stats.stats.items() if name == "policy" and "controller" in path]  # type: ignore[attr-defined]
    step = [v[3] for (_, _, name), v in stats.stats.items() if name == "_step_compiled"]  # type: ignore[attr-defined]
    print(
        f"  controller policy (cum): {sum(policy):.3f} s ({100 * sum(policy) / total:.0f}%); "
        f"compiled patient step (cum): {sum(step):.3f} s ({100 * sum(step) / total:.0f}%)"
    )


def main() -> None:
    from wearbench.sim.patient._compiled import HAVE_NUMBA

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--patients", type=int, default=30)
    ap.add_argument("--days", type=int, default=7, help="days of each controller's run")
    ap.add_argument("--engines", default="numba,numpy", help="comma-separated: numba, numpy")
    ap.add_argument("--substeps", type=int, default=2)
    ap.add_argument("--ref-patients", type=int, default=2)
    ap.add_argument("--ref-days", type=int, default=1)
    ap.add_argument("--cf-n", type=int, default=100, help="counterfactuals per batch")
    ap.add_argument("--details", action="store_true", help="also the loop alone and the compile time")
    ap.add_argument("--profile", default="", help="comma-separated controllers to profile (cProfile)")
    args = ap.parse_args()
    if not HAVE_NUMBA and "numba" in args.engines:
        raise SystemExit("numba is not installed: pass --engines numpy")

    print(f"load average at start: {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs")
    names = ["adult#001", "child#001", "adolescent#001"][: args.ref_patients]
    ref_s = simglucose_run(names, args.ref_days)
    ref_pd = len(names) * args.ref_days
    ref_per = ref_s / ref_pd
    print(
        f"simglucose (T1DSimEnv + BBController) {ref_pd} patient-days in {ref_s:.2f} s = "
        f"{ref_pd / ref_s:.3f} patient-days/s ({1e3 * ref_per:,.0f} ms per patient-day)"
    )
    therapy_table(args, ref_per)
    if "numba" in args.engines:
        counterfactual_lines(args)
    if args.details and "numba" in args.engines:
        details(args, ref_per)
    for controller in filter(None, args.profile.split(",")):
        profile(controller, args.patients, 2)
    print(f"\nload average at end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
