"""The outcome-prediction track at a realistic size: synthetic minutes → Linear and XGBoost → skill.

Steps, each timed: ``synthesize_minutes`` (users × days of the 19 channels; skipped with
``--data``), :func:`wearbench.tracks.run_predict` (reading + preprocessing, feature seconds per
method, fit + predict seconds per method, from its manifest) and
:func:`wearbench.scoring.score_outcome_results` (``track score --baseline linear``, B = 1000). Prints
the inclusion counts, the per-task metrics of every method, the per-domain skill with 95% CIs, and
a JSON summary line.

Run: ``python benchmarks/outcomes.py --users 500 --days 60`` (``--work DIR`` keeps the minute
cohort and the RESULTS folder; ``--data DIR`` reuses a minute cohort; ``--jobs`` XGBoost threads).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path
from typing import Any

from wearbench.scoring import score_outcome_results, skill_table
from wearbench.sources import synthesize_minutes
from wearbench.tracks import run_predict


def main() -> None:
    """Parse the arguments, run the track, print times, metrics and the skill table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=500)
    ap.add_argument("--days", type=int, default=60)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--test-share", type=float, default=0.2)
    ap.add_argument("--methods", default="linear,xgboost")
    ap.add_argument("--jobs", type=int, default=1, help="XGBoost threads.")
    ap.add_argument("--n-boot", type=int, default=1000)
    ap.add_argument("--data", type=Path, default=None, help="Reuse this minute cohort (no synthesis).")
    ap.add_argument("--work", type=Path, default=None, help="Keep the data and results here.")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        run(args, args.work or Path(tmp))


def run(args: argparse.Namespace, work: Path) -> None:
    """Synthesize (or reuse), predict and score in ``work``; print the numbers."""
    times: dict[str, float] = {}
    data = args.data
    if data is None:
        t0 = time.perf_counter()
        data = synthesize_minutes(args.users, args.days, args.seed, work / "minutes")
        times["synthesize"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    manifest = run_predict(
        data,
        args.methods.split(","),
        work / "results",
        args.seed,
        test_share=args.test_share,
        n_jobs=args.jobs,
    )
    times["predict_total"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    scored = score_outcome_results(work / "results", "linear", seed=args.seed, n_boot=args.n_boot)
    times["score"] = time.perf_counter() - t0
    _print(manifest, scored, times)


def _print(manifest: dict[str, Any], scored: dict[str, Any], times: dict[str, float]) -> None:
    split = manifest["split"]
    print(f"{split['n_users']} users: {split['n_train']} train, {split['n_test']} test")
    sec = manifest["seconds"]
    print("seconds: features " + ", ".join(f"{k} {v:.1f}" for k, v in sec["features_by_stage"].items()))
    print("seconds: fit+predict " + ", ".join(f"{k} {v:.1f}" for k, v in sec["fit_predict"].items()))
    print("stages: " + ", ".join(f"{k} {v:.1f} s" for k, v in times.items()))
    print(
        "fallback: " + ", ".join(f"{k} {v['n']} ({v['rate']:.3f})" for k, v in manifest["fallback"].items())
    )
    methods = list(scored["metrics"])
    print("\n" + f"{'task':<16}{'kind':<12}{'train':>6}{'test':>6}" + "".join(f"{m:>10}" for m in methods))
    for task, t in manifest["tasks"].items():
        vals = "".join(f"{_fmt(scored['metrics'][m].get(task)):>10}" for m in methods)
        print(f"{task:<16}{t['kind']:<12}{t['n_train']:>6}{t['n_test']:>6}" + vals)
    print("\n" + skill_table(scored))
    summary = {"times": times, "seconds": sec, "fallback": manifest["fallback"], "metrics": scored["metrics"],
               "skill": scored["methods"]}  # fmt: skip
    print(json.dumps(summary))


def _fmt(x: float | None) -> str:
    return "-" if x is None else f"{x:.3f}"


if __name__ == "__main__":
    main()
