"""The imputation track at a realistic size: synthetic minutes → every baseline → skill table.

Steps, each timed: ``synthesize_minutes`` (users × days of the 19 channels), the preprocessing
day counts, :func:`wearbench.tracks.run_imputation` with every statistical baseline and all six
masking approaches (fit and impute seconds per method come from its manifest), and
:func:`wearbench.scoring.score_imputation_results` (B = 1000, one shared draw matrix). Prints the
skill table with 95% CIs and ranks per scope, and a JSON summary line.

Run: ``python benchmarks/imputation.py --users 200 --days 14`` (the issue's realistic size);
``--work DIR`` keeps the minute cohort and the RESULTS folder. ``--learned`` adds the PyPOTS models
(saits, brits, dlinear, timesnet, dlinear_7d; the [learn] extra) with ``--epochs``,
``--max-train-days`` and ``--threads``.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from wearbench.scoring import score_imputation_results, skill_table
from wearbench.sources import synthesize_minutes
from wearbench.tracks import (
    BASELINE_IMPUTERS,
    DEFAULT_MAX_TRAIN_DAYS,
    LEARNED_IMPUTERS,
    LearnedSettings,
    preprocess_cohort,
    run_imputation,
)


def main() -> None:
    """Parse the arguments, run the track, print times and the skill table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=200)
    ap.add_argument("--days", type=int, default=14)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--test-share", type=float, default=0.2)
    ap.add_argument("--methods", default=",".join(BASELINE_IMPUTERS))
    ap.add_argument("--learned", action="store_true", help="Also run the learned (PyPOTS) methods.")
    ap.add_argument("--epochs", type=int, default=5, help="Training epochs of learned methods.")
    ap.add_argument("--max-train-days", type=int, default=DEFAULT_MAX_TRAIN_DAYS)
    ap.add_argument("--threads", type=int, default=None, help="torch CPU threads.")
    ap.add_argument("--work", type=Path, default=None, help="Keep the data and results here.")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        run(args, work)


def run(args: argparse.Namespace, work: Path) -> None:
    """Synthesize, preprocess, impute and score in ``work``; print the numbers."""
    times: dict[str, float] = {}
    t0 = time.perf_counter()
    data = synthesize_minutes(args.users, args.days, args.seed, work / "minutes")
    times["synthesize"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    counts = preprocess_cohort(data)
    times["preprocess"] = time.perf_counter() - t0
    kept = sum(c.retained for c in counts)
    wear = sum(c.wear_dropped for c in counts)
    var = sum(c.variance_dropped for c in counts)
    print(
        f"{args.users} users x {args.days} days: retained {kept}, wear-dropped {wear}, variance-dropped {var}"
    )
    t0 = time.perf_counter()
    methods = args.methods.split(",") + (list(LEARNED_IMPUTERS) if args.learned else [])
    learned = LearnedSettings(epochs=args.epochs, max_train_days=args.max_train_days, n_threads=args.threads)
    manifest = run_imputation(
        data, methods, work / "results", args.seed, test_share=args.test_share, learned=learned
    )
    times["impute_total"] = time.perf_counter() - t0
    t0 = time.perf_counter()
    scored = score_imputation_results(work / "results", "locf", seed=args.seed)
    times["score"] = time.perf_counter() - t0
    split = manifest["split"]
    print(
        f"split: {split['n_train']} train users ({split['train_days']} days), "
        f"{split['n_test']} test users ({split['test_days']} days); {manifest['results']['rows']} error rows"
    )
    print("\nseconds per method (fit on the training days; impute over every test day x 6 approaches)")
    for m, s in manifest["seconds"].items():
        print(f"  {m:<24} fit {s['fit']:7.2f}  impute {s['impute']:7.2f}")
    for m, s in manifest.get("learned", {}).items():
        print(f"  {m}: {s['model']} {s['params']}, {s['train_samples']} samples ({s['train_days']} days)")
    print("stages: " + ", ".join(f"{k} {v:.1f} s" for k, v in times.items()))
    print("\n" + skill_table(scored))
    summary = {"times": times, "seconds": manifest["seconds"], "split": {k: split[k] for k in
               ("n_train", "n_test", "train_days", "test_days")}, "retained": kept}  # fmt: skip
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
