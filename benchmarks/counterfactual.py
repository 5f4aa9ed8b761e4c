"""Cost of 100 counterfactual day-ahead re-simulations of one patient against one plain patient-day.

The run: ``adult#001``, ``--days`` days (Dexcom, Insulet, random meals, seed 0), checkpoints every
60 min, with each controller of ``--controllers`` and each engine of ``--engines``. Three batches
of ``--n`` counterfactuals, each with a 1-day horizon: ``same minute`` injects the seven event
kinds in turn (run, cycling, meal, insulin, late-night snack, heavy lunch, normal day) all at one
minute (12:00 of day 2); ``spread`` the same at ``--n`` minutes spread over day 2 (through
``run_loop``: one vectorised batch from day 2's first checkpoint, so 2 days of ``--n`` replicas);
``same minute, acting now`` only the four events that change the inputs at once (run, cycling,
meal, insulin), so that every member simulates its whole day (the compiled path skips the
unchanged hours before a late snack, a heavy lunch or a normal day).

The batch is measured against two plain patient-days of the same patient, controller and engine:

* ``simulate(["adult#001"], 1)``: what a plain day costs a user. With the numba engine and the
  basal-bolus or PID controller this is the compiled whole-run loop (``sim/_fast.py``);
* ``run_loop`` (the Python minute loop with the engine's patient step) over the same day, built as
  ``run_simulation`` builds it.

``run_simulation(["adult#001"], 1, checkpoint_every=60)`` (what a counterfactual user runs first)
is printed too. Counterfactuals of a fault-free basal-bolus or PID run on the numba engine take
the compiled loop (each from its own checkpoint); for them the two batches are also timed through
``run_loop`` (``simulate_counterfactuals(..., compiled=False)``, the same numbers).

The ratio is time(batch) / time(plain day); the acceptance target of issue 13 is < 20 against
the ``simulate()`` day. Times are CPU seconds of the process (``time.process_time``), the best of
``--repeat``; the load average is printed at the start and the end.

Run: ``python benchmarks/counterfactual.py`` (about 30 s on 2 cores; needs ``wearbench[cgm]``).
``benchmarks/sim.py`` prints the same lines for basal-bolus with the numba engine.
"""

from __future__ import annotations

import argparse
import os
import time
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from wearbench._registry import registry
from wearbench.sim import (
    Controller,
    Counterfactual,
    CycleNow,
    HeavyLunch,
    InsulinNow,
    LateNightSnack,
    MealNow,
    NormalDay,
    Pump,
    RunNow,
    Sensor,
    initial_state,
    load_params,
    random_meals,
    run_simulation,
    simulate,
    simulate_counterfactuals,
)
from wearbench.sim._loop import PlainMeals, PlainPump, PlainSensor, run_loop

EVENTS = (RunNow(30, 8.0), CycleNow(20, 90.0), MealNow(50.0), InsulinNow(2.0), LateNightSnack(30.0),
          HeavyLunch(1.5), NormalDay())  # fmt: skip
PATIENT = "adult#001"
COMPILED = ("basal-bolus", "pid")  #: controllers whose fault-free numba runs take the compiled loop


@dataclass(frozen=True)
class CounterfactualCost:
    """CPU seconds of the plain patient-days and of the two batches (see the module docstring)."""

    controller: str
    engine: str
    n: int
    plain_simulate: float
    plain_run_loop: float
    plain_checkpoints: float
    batches: dict[str, float]
    through_run_loop: dict[str, float]

    def lines(self) -> list[str]:
        """The report: the plain days, then each batch with its ratio to both."""
        out = [
            f"{self.controller}, {self.engine} engine: one plain patient-day "
            f"{1e3 * self.plain_simulate:.1f} ms "
            f"through simulate(), {1e3 * self.plain_run_loop:.1f} ms through run_loop; "
            f"run_simulation(checkpoint_every=60) {1e3 * self.plain_checkpoints:.1f} ms"
        ]
        for label, batches in (("", self.batches), (" through run_loop", self.through_run_loop)):
            for name, seconds in batches.items():
                out.append(
                    f"  {self.n} counterfactual day-ahead runs{label}, {name}: {seconds:.3f} s = "
                    f"{seconds / self.plain_simulate:.1f}x a simulate() day, "
                    f"{seconds / self.plain_run_loop:.1f}x a run_loop day"
                )
        return out


def best_of(repeat: int, fn: Callable[[], object]) -> float:
    """The smallest CPU time (s) of ``repeat`` calls of ``fn``."""
    times = []
    for _ in range(repeat):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return min(times)


def run_loop_day(controller: str, engine: str, seed: int = 0) -> None:
    """One plain patient-day through ``run_loop``, set up as ``run_simulation`` sets it up."""
    rng = np.random.default_rng(seed)
    params = load_params([PATIENT])
    eaten = random_meals(1, 1, rng)
    ctrl = registry.get("controller", controller).obj()
    assert isinstance(ctrl, Controller)
    ctrl.reset(params)
    sensor = Sensor.named("Dexcom")
    stages = (
        PlainSensor(sensor, sensor.noise(1, 1440, rng)),
        PlainMeals(),
        PlainPump(Pump.named("Insulet"), 1),
    )
    run_loop(params, initial_state(params), eaten, ctrl, stages, 2, engine=engine)


def measure(
    controller: str, engine: str, *, n: int = 100, days: int = 4, repeat: int = 3
) -> CounterfactualCost:
    """Time the plain days and the two batches for one controller and engine."""
    kw = {"seed": 0, "controller": controller, "engine": engine}
    simulate([PATIENT], 1, seed=1, controller=controller, engine=engine)  # imports, tables, jit cache
    plain = best_of(2 * repeat, lambda: simulate([PATIENT], 1, **kw))
    plain_loop = best_of(2 * repeat, lambda: run_loop_day(controller, engine))
    plain_cp = best_of(2 * repeat, lambda: run_simulation([PATIENT], 1, checkpoint_every=60, **kw))
    run = run_simulation([PATIENT], days, checkpoint_every=60, **kw)
    day2 = 1440
    requests = {
        "same minute": [Counterfactual(0, day2 + 720, EVENTS[i % 7], 1440) for i in range(n)],
        "spread": [Counterfactual(0, day2 + i * 1440 // n, EVENTS[i % 7], 1440) for i in range(n)],
        "same minute, acting now": [Counterfactual(0, day2 + 720, EVENTS[i % 4], 1440) for i in range(n)],
    }
    simulate_counterfactuals(run, requests["same minute"][:7])  # warm-up
    batches = {
        name: best_of(repeat, lambda reqs=reqs: simulate_counterfactuals(run, reqs))
        for name, reqs in requests.items()
    }
    slow: dict[str, float] = {}
    if engine == "numba" and controller in COMPILED:  # the compiled loop served the batches
        slow = {
            name: best_of(repeat, lambda reqs=reqs: simulate_counterfactuals(run, reqs, compiled=False))
            for name, reqs in requests.items()
        }
    return CounterfactualCost(controller, engine, n, plain, plain_loop, plain_cp, batches, slow)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--days", type=int, default=4, help="days in the run (at least 4)")
    ap.add_argument("--n", type=int, default=100, help="counterfactuals per batch")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--controllers", default="basal-bolus,hcl-mpc", help="comma-separated")
    ap.add_argument("--engines", default="numba,numpy", help="comma-separated")
    args = ap.parse_args()
    print(f"load average at start: {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs", flush=True)
    for controller in args.controllers.split(","):
        for engine in args.engines.split(","):
            cost = measure(controller, engine, n=args.n, days=args.days, repeat=args.repeat)
            print("\n".join(cost.lines()), flush=True)
    print(f"load average at the end: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
