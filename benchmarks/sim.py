"""Speed of the vectorised UVA/Padova simulator against simglucose, per simulated patient-day.

Both sides run the same kind of closed loop: basal-bolus controller, Dexcom CGM noise, Insulet
pump, random simglucose-style meals. Ours simulates 30 patients x 30 days in one vectorised run;
simglucose (``T1DSimEnv`` stepped as ``SimObj`` does) runs ``--ref-days`` days for each of
``--ref-patients`` patients, and its time is extrapolated per patient-day.

Run: ``python benchmarks/sim.py`` (about 30 s on 2 cores; needs ``wearbench[cgm]``).
"""

from __future__ import annotations

import argparse
import time
from datetime import datetime


def ours(n_patients: int, days: int, substeps: int) -> float:
    from wearbench.sim import patient_names, simulate

    names = patient_names()[:n_patients]
    simulate(names[:2], 1, seed=1)  # warm-up: imports and parameter tables
    t0 = time.perf_counter()
    df = simulate(names, days, seed=0, substeps=substeps)
    seconds = time.perf_counter() - t0
    assert len(df) == n_patients * days * 1440
    return seconds


def simglucose_run(names: list[str], days: int) -> float:
    from simglucose.actuator.pump import InsulinPump
    from simglucose.controller.basal_bolus_ctrller import BBController
    from simglucose.patient.t1dpatient import T1DPatient
    from simglucose.sensor.cgm import CGMSensor
    from simglucose.simulation.env import T1DSimEnv
    from simglucose.simulation.scenario_gen import RandomScenario

    start = datetime(2024, 1, 1)
    t0 = time.perf_counter()
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
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--patients", type=int, default=30)
    ap.add_argument("--days", type=int, default=30)
    ap.add_argument("--substeps", type=int, default=2)
    ap.add_argument("--ref-patients", type=int, default=2)
    ap.add_argument("--ref-days", type=int, default=1)
    args = ap.parse_args()

    ours_s = ours(args.patients, args.days, args.substeps)
    ours_pd = args.patients * args.days
    names = ["adult#001", "child#001", "adolescent#001"][: args.ref_patients]
    ref_s = simglucose_run(names, args.ref_days)
    ref_pd = len(names) * args.ref_days
    ours_per = ours_s / ours_pd
    ref_per = ref_s / ref_pd
    print(
        f"ours (RK4, {args.substeps} sub-steps/min): {ours_pd} patient-days in {ours_s:.2f} s = "
        f"{ours_pd / ours_s:.1f} patient-days/s ({1000 * ours_per:.2f} ms per patient-day)"
    )
    print(
        f"simglucose {ref_pd} patient-days in {ref_s:.2f} s = {ref_pd / ref_s:.3f} patient-days/s "
        f"({ref_per:.2f} s per patient-day)"
    )
    print(f"speed-up per patient-day: {ref_per / ours_per:.0f}x")


if __name__ == "__main__":
    main()
