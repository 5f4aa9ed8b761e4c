"""Cost of 100 counterfactual day-ahead re-simulations of one patient against one plain patient-day.

The run: ``adult#001``, ``--days`` days (basal-bolus, Dexcom, Insulet, random meals, seed 0),
checkpoints every 60 min. Two batches of 100 counterfactuals, each with a 1-day horizon and the
seven event kinds in turn (run, cycling, meal, insulin, late-night snack, heavy lunch, normal
day): ``same minute`` injects all at one minute (12:00 of day 2), ``spread`` at 100 minutes spread
over day 2 (one vectorised batch from day 2's first checkpoint, so 2 days of 100 replicas).
The reference is ``simulate(["adult#001"], 1)``. The ratio is time(batch) / time(plain day);
the acceptance target of issue 13 is < 20.

Run: ``python benchmarks/counterfactual.py`` (about 30 s on 2 cores; needs ``wearbench[cgm]``).
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from wearbench.sim import (
    Counterfactual,
    CycleNow,
    HeavyLunch,
    InsulinNow,
    LateNightSnack,
    MealNow,
    NormalDay,
    RunNow,
    run_simulation,
    simulate,
    simulate_counterfactuals,
)

EVENTS = (RunNow(30, 8.0), CycleNow(20, 90.0), MealNow(50.0), InsulinNow(2.0), LateNightSnack(30.0),
          HeavyLunch(1.5), NormalDay())  # fmt: skip


def best_of(repeat: int, fn: Callable[[], object]) -> float:
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--days", type=int, default=4, help="days in the run (at least 4)")
    ap.add_argument("--n", type=int, default=100, help="counterfactuals per batch")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    simulate(["adult#001"], 1, seed=1)  # warm-up: imports and parameter tables
    plain = best_of(args.repeat, lambda: simulate(["adult#001"], 1, seed=0))
    t0 = time.perf_counter()
    run = run_simulation(["adult#001"], args.days, seed=0, checkpoint_every=60)
    run_s = time.perf_counter() - t0
    day2 = 1440
    batches = {
        "same minute": [Counterfactual(0, day2 + 720, EVENTS[i % 7], 1440) for i in range(args.n)],
        "spread": [Counterfactual(0, day2 + i * 1440 // args.n, EVENTS[i % 7], 1440) for i in range(args.n)],
    }
    print(f"plain patient-day: {plain * 1e3:.0f} ms; the {args.days}-day run with checkpoints: {run_s:.2f} s")
    for name, reqs in batches.items():
        seconds = best_of(args.repeat, lambda reqs=reqs: simulate_counterfactuals(run, reqs))
        ratio = seconds / plain
        print(f"{args.n} counterfactual day-ahead runs, {name}: {seconds:.2f} s = {ratio:.1f}x a plain day")


if __name__ == "__main__":
    main()
