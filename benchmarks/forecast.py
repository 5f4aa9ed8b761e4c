"""The forecasting track's speed: statsforecast against a statsmodels loop, and every method on a cohort.

One run, two parts, on one synthetic minute cohort (``synthesize_minutes``, users × days):

1. **Batched vs loop** on the same series: the continuous channels (0-6) of the first forecast
   windows, NaN-filled as the track does (:func:`wearbench.tracks.seasonal_fill`). statsforecast
   ``AutoETS`` and ``AutoARIMA`` (the track's restricted settings) forecast ``--n-series`` of them in
   ONE call each (after a one-series warm-up call that pays numba's compilation, reported apart);
   a plain Python loop fits statsmodels ``ExponentialSmoothing(seasonal="add", seasonal_periods=24)``
   and ``ARIMA(order=(1, 0, 1), seasonal_order=(0, 1, 1, 24))`` (ONE fixed model per series: no
   order search, so the loop does less work than AutoARIMA) on the first ``--n-loop`` of them.
   Reported: seconds per series each way and their ratio.
2. **Whole track**: :func:`wearbench.tracks.run_forecast` with every method (fit and predict seconds
   per method and NaN-fallback rates from its manifest) at ``--max-origins`` per user, then the skill
   table (B = 1000) and the heart-rate channel's skill of every method against seasonal naive
   (channel 5 alone, the shared participant bootstrap).

Run: ``python benchmarks/forecast.py --users 200 --days 60 --max-origins 3`` (``--work DIR`` keeps
the cohort and the RESULTS folder; ``--methods`` picks the methods; ``--threads`` torch threads).
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any, cast

import numpy as np

from wearbench.minutes import CONTINUOUS, minute_user_ids, read_minute_user
from wearbench.scoring import forecast_skill, skill_table
from wearbench.sources import synthesize_minutes
from wearbench.tracks import (
    FORECASTERS,
    batch_forecast,
    prepare_user,
    read_forecast_results,
    run_forecast,
    seasonal_fill,
    user_forecast_windows,
)

HR = 5


def _series(data: Path, n: int) -> list[np.ndarray]:
    """The first ``n`` NaN-filled continuous series (>= 48 observed hours) of the cohort's windows."""
    out: list[np.ndarray] = []
    for uid in minute_user_ids(data):
        w, _ = user_forecast_windows(prepare_user(read_minute_user(data, uid)), 0, 24)
        if not len(w):
            continue
        flat = w.history[:, :, list(CONTINUOUS)].transpose(0, 2, 1).reshape(-1, w.history.shape[1])
        filled, start = seasonal_fill(flat)
        ok = np.isfinite(flat).sum(axis=1) >= 48
        out.extend(filled[s, start[s] :] for s in np.flatnonzero(ok))
        if len(out) >= n:
            return out[:n]
    return out


def _statsmodels_loop(series: list[np.ndarray], kind: str) -> float:
    """Seconds per series of a plain statsmodels loop (one fixed model per series)."""
    from statsmodels.tsa.arima.model import ARIMA
    from statsmodels.tsa.holtwinters import ExponentialSmoothing

    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for y in series:
            if kind == "autoets":
                ExponentialSmoothing(y, seasonal="add", seasonal_periods=24).fit().forecast(24)
            else:
                ARIMA(y, order=(1, 0, 1), seasonal_order=(0, 1, 1, 24)).fit().forecast(24)
    return (time.perf_counter() - t0) / len(series)


def batched_vs_loop(data: Path, n_series: int, n_loop: int) -> dict[str, Any]:
    """Part 1: seconds per series, statsforecast batched vs a statsmodels loop."""
    series = _series(data, n_series)
    out: dict[str, Any] = {"n_series": len(series), "n_loop": min(n_loop, len(series))}
    for kind in ("autoets", "autoarima"):
        t0 = time.perf_counter()
        batch_forecast(series[:1], 24, kind)
        warm = time.perf_counter() - t0
        t0 = time.perf_counter()
        batch_forecast(series, 24, kind)
        per_sf = (time.perf_counter() - t0) / len(series)
        per_sm = _statsmodels_loop(series[:n_loop], kind)
        ratio = per_sm / per_sf
        out[kind] = {
            "warmup_s": warm,
            "statsforecast_s_per_series": per_sf,
            "statsmodels_s_per_series": per_sm,
            "ratio": ratio,
        }
        print(
            f"{kind}: statsforecast {per_sf:.3f} s/series (batch of {len(series)}, warm-up {warm:.1f} s), "
            f"statsmodels loop {per_sm:.3f} s/series ({n_loop}), ratio {ratio:.1f}x"
        )
    return out


def whole_track(args: argparse.Namespace, data: Path, work: Path) -> dict[str, Any]:
    """Part 2: every method through run_forecast; seconds, fallbacks, skill, HR skill."""
    if args.threads is not None:
        import torch

        torch.set_num_threads(args.threads)
    methods = args.methods.split(",")
    t0 = time.perf_counter()
    m = run_forecast(data, methods, work / "results", args.seed, max_origins=args.max_origins)
    wall = time.perf_counter() - t0
    sp = m["split"]
    print(
        f"run_forecast {wall:.1f} s: {sp['n_train']} train / {sp['n_test']} test users, "
        f"{sp['train_windows']} train / {sp['test_windows']} test windows, {m['scored_hours']} scored hours"
    )
    for name in methods:
        s, fb = m["seconds"][name], m["fallback"][name]
        print(f"  {name:15s} fit {s['fit']:8.2f} s  predict {s['predict']:8.2f} s  fallback {fb['rate']:.2%}")
    _, errors = read_forecast_results(work / "results")
    res = forecast_skill(errors, seed=args.seed)
    print(skill_table(res.to_dict()))
    hr = forecast_skill([e for e in errors if e.channel == HR], seed=args.seed).to_dict()
    by_method = cast(dict[str, dict[str, dict[str, float]]], hr["methods"])
    hr_skill = {k: v["Physiology"] for k, v in by_method.items()}
    for k, v in hr_skill.items():
        print(f"  HR (channel 5) skill {k:15s} {v['skill']:.3f} [{v['ci_low']:.3f}, {v['ci_high']:.3f}]")
    keys = ("n_train", "n_test", "train_windows", "test_windows")
    return {
        "wall_s": wall,
        "split": {k: sp[k] for k in keys},
        "seconds": m["seconds"],
        "fallback": m["fallback"],
        "skill": res.to_dict()["methods"],
        "hr_skill": hr_skill,
    }


def main() -> None:
    """Parse the arguments and run both parts in one (kept or temporary) work folder."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=200)
    ap.add_argument("--days", type=int, default=60)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--max-origins", type=int, default=3, help="Origins per user in the whole-track run.")
    ap.add_argument("--methods", default=",".join(FORECASTERS))
    ap.add_argument("--n-series", type=int, default=200, help="Series in the batched statsforecast call.")
    ap.add_argument("--n-loop", type=int, default=20, help="Series in the statsmodels loop.")
    ap.add_argument("--threads", type=int, default=1, help="torch CPU threads.")
    ap.add_argument("--work", type=Path, default=None)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        data = work / "minutes"
        t0 = time.perf_counter()
        if not data.exists():
            synthesize_minutes(args.users, args.days, args.seed, data)
        print(f"{args.users} users x {args.days} days synthesized in {time.perf_counter() - t0:.1f} s")
        summary = {
            "users": args.users,
            "days": args.days,
            "max_origins": args.max_origins,
            "batched_vs_loop": batched_vs_loop(data, args.n_series, args.n_loop),
            "track": whole_track(args, data, work),
        }
        print(json.dumps(summary, sort_keys=True, default=float))


if __name__ == "__main__":
    main()
