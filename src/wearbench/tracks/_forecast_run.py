"""The forecasting track end to end over a minute-cohort folder (seed 004, Track 3).

:func:`run_forecast`: the seeded user-level split of the imputation track
(:func:`~wearbench.tracks.split_users`); each user's hourly trajectory, valid origins and a seeded
draw of at most 100 of them (:mod:`wearbench.tracks._forecast_data`); every method fitted on the
training users' windows; all test users' windows forecast by every method in one ``predict`` call
(statsforecast batches every series of it), non-finite forecasts replaced by the seasonal-naive
reference (counted), and scored per participant and channel. The
RESULTS folder holds ``results.jsonl`` (one :class:`~wearbench.tracks.ForecastError` per line,
sorted; byte-identical for a seed) and ``manifest.json`` (kind ``wearbench-forecast-results``:
settings, split, origins, fallback rates, seconds per method, content hashes).
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from wearbench._errors import WearbenchError
from wearbench._jsonfile import read_json_object
from wearbench.executors import Executor, LocalExecutor
from wearbench.minutes import read_minute_user
from wearbench.tracks._forecast_data import (
    HISTORY_HOURS,
    MAX_ORIGINS,
    ForecastWindows,
    check_horizon,
    concat_forecast_windows,
    user_forecast_windows,
)
from wearbench.tracks._forecast_methods import FORECASTERS, make_forecaster
from wearbench.tracks._forecast_models import Forecaster, SeasonalNaive, seasonal_naive, with_fallback
from wearbench.tracks._forecast_score import ForecastError, score_forecast
from wearbench.tracks._impute_run import RESULTS_FILE, CohortSplit, resolve_names
from wearbench.tracks._pipeline import prepare_user
from wearbench.tracks._results_io import RUN_MANIFEST, read_results, write_results

#: ``kind`` of a forecasting RESULTS folder's manifest.
FORECAST_RESULTS_KIND = "wearbench-forecast-results"
#: The reference method, and the fallback of every other one.
REFERENCE = "seasonal_naive"


@dataclass
class _Tally:
    """Scored / fallback cells and seconds per method; origins per user."""

    scored: int = 0
    carried: int = 0
    fallback: dict[str, int] = field(default_factory=dict)
    fit_s: dict[str, float] = field(default_factory=dict)
    predict_s: dict[str, float] = field(default_factory=dict)
    origins: dict[str, dict[str, int]] = field(default_factory=dict)


def _user_windows(task: tuple[Path, str, int, int, int, int]) -> tuple[ForecastWindows, int]:
    """One user's forecast windows and valid origins (an executor task: top level, picklable)."""
    path, uid, seed, horizon, history, cap = task
    return user_forecast_windows(
        prepare_user(read_minute_user(path, uid)), seed, horizon, history=history, cap=cap
    )


def _windows_of(
    path: Path,
    ids: Sequence[str],
    seed: int,
    horizon: int,
    history: int,
    cap: int,
    tally: _Tally,
    step: Callable[[], None],
    executor: Executor,
) -> list[ForecastWindows]:
    """The users' windows, one user per executor task, in ``ids`` order."""
    out = []
    tasks = [(path, uid, seed, horizon, history, cap) for uid in ids]
    for uid, (w, n_valid) in zip(ids, executor.map(_user_windows, tasks), strict=True):
        tally.origins[uid] = {"valid": n_valid, "drawn": len(w)}
        out.append(w)
        step()
    return out


def _fit(
    methods: Sequence[str], train: ForecastWindows, tally: _Tally
) -> tuple[dict[str, Forecaster], SeasonalNaive]:
    if len(train) == 0:
        raise WearbenchError("the training users have no valid forecast origin to fit on")
    models: dict[str, Forecaster] = {}
    for name in methods:
        t0 = time.perf_counter()
        models[name] = make_forecaster(name).fit(train.history, train.target)
        tally.fit_s[name] = time.perf_counter() - t0
        tally.predict_s[name] = 0.0
        tally.fallback[name] = 0
    return models, SeasonalNaive().fit(train.history, train.target)


def _score_user(
    w: ForecastWindows, models: dict[str, Forecaster], reference: SeasonalNaive, horizon: int, tally: _Tally
) -> list[ForecastError]:
    """Every method on the test windows (all users at once; errors pool per participant)."""
    scored = np.isfinite(w.target)
    ref = reference.predict(w.history, horizon)
    tally.scored += int(scored.sum())
    tally.carried += int((np.isnan(seasonal_naive(w.history, horizon)) & scored).sum())
    out: list[ForecastError] = []
    for name, model in models.items():
        t0 = time.perf_counter()
        raw = model.predict(w.history, horizon)
        tally.predict_s[name] += time.perf_counter() - t0
        filled, n_fb = with_fallback(raw, ref, scored)
        tally.fallback[name] += n_fb
        out.extend(score_forecast(w.target, filled, w.participants, method=name))
    return out


def _results_bytes(errors: list[ForecastError], methods: Sequence[str]) -> bytes:
    pos = {m: i for i, m in enumerate(methods)}
    ordered = sorted(errors, key=lambda e: (pos[e.method], e.participant, e.channel))
    return "".join(json.dumps(asdict(e), sort_keys=True, allow_nan=False) + "\n" for e in ordered).encode()


def run_forecast(
    cohort_dir: str | os.PathLike[str],
    methods: Sequence[str],
    out: str | os.PathLike[str],
    seed: int = 0,
    horizon: int = 24,
    *,
    test_share: float = 0.2,
    history: int = HISTORY_HOURS,
    max_origins: int = MAX_ORIGINS,
    limit_users: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    executor: Executor | None = None,
) -> dict[str, Any]:
    """Run the forecasting track on a minute cohort and write a RESULTS folder.

    Args:
        cohort_dir: Minute-cohort folder.
        methods: Forecasting method names (keys of :data:`~wearbench.tracks.FORECASTERS`).
        out: RESULTS folder to write (``results.jsonl`` + ``manifest.json``).
        seed: Fixes the split and every origin draw, hence every byte of ``results.jsonl``.
        horizon: ``H`` hours (24, or 48).
        test_share: Share of users in the test split.
        history: Hours of history a model sees (the seed: 336).
        max_origins: Most origins per user (the seed: 100).
        limit_users: Only the first ``limit_users`` users of the folder.
        progress: Optional ``(users_done, users_total)`` callback.
        executor: Where each user's reading, preprocessing and window draws run, one user per
            task (:mod:`wearbench.executors`; default serial). ``results.jsonl`` is the same
            byte for byte on every executor.

    Returns:
        The manifest written to ``out/manifest.json``.

    Raises:
        UnknownNameError: For an unknown method (with close matches).
        WearbenchError: For an unreadable cohort, fewer than 2 users, or no training window.
        ValueError: For a horizon that is not a positive multiple of 24.
    """
    methods = resolve_names(methods, list(FORECASTERS), "forecasting method")
    check_horizon(horizon)
    split = CohortSplit.of(cohort_dir, seed, test_share, limit_users)
    path, data_hash, ids, train_ids, test_ids = split
    step = split.counter(progress)
    t_start = time.perf_counter()
    tally = _Tally()
    runner = executor if executor is not None else LocalExecutor(1)
    train = concat_forecast_windows(
        _windows_of(path, train_ids, seed, horizon, history, max_origins, tally, step, runner),
        horizon,
        history,
    )
    models, reference = _fit(methods, train, tally)
    # all test users' windows in one predict call per method (statsforecast batches every series)
    test = concat_forecast_windows(
        _windows_of(path, test_ids, seed, horizon, history, max_origins, tally, step, runner),
        horizon,
        history,
    )
    n_test_windows = len(test)
    errors = _score_user(test, models, reference, horizon, tally) if n_test_windows else []
    blob = _results_bytes(errors, methods)
    n = tally.scored
    manifest: dict[str, Any] = {
        "kind": FORECAST_RESULTS_KIND,
        "seed": seed,
        "methods": list(methods),
        "reference": REFERENCE,
        "horizon": horizon,
        "history": history,
        "max_origins": max_origins,
        "test_share": test_share,
        "limit_users": limit_users,
        "data": {"path": str(path), "content_hash": data_hash},
        "split": {
            "n_users": len(ids),
            "n_train": len(train_ids),
            "n_test": len(test_ids),
            "train_windows": len(train),
            "test_windows": n_test_windows,
            "train": train_ids,
            "test": test_ids,
            "test_without_windows": [u for u in test_ids if tally.origins[u]["drawn"] == 0],
        },
        "origins": tally.origins,
        "scored_hours": n,
        "reference_carry_back": {"n": tally.carried, "rate": tally.carried / n if n else 0.0},
        "fallback": {m: {"n": k, "rate": k / n if n else 0.0} for m, k in tally.fallback.items()},
        "seconds": {m: {"fit": tally.fit_s[m], "predict": tally.predict_s[m]} for m in methods},
        "seconds_total": time.perf_counter() - t_start,
        "results": {"file": RESULTS_FILE, "rows": len(errors), "sha256": hashlib.sha256(blob).hexdigest()},
    }
    write_results(Path(out), {RESULTS_FILE: blob}, manifest, "forecast")
    return manifest


def results_kind(path: str | os.PathLike[str]) -> str | None:
    """The ``kind`` of a RESULTS folder's manifest (imputation or forecasting), or None.

    Raises:
        WearbenchError: If the folder has no readable manifest.
    """
    kind = read_json_object(
        Path(path) / RUN_MANIFEST, missing="no track results (run `track impute` or `track forecast`)"
    ).get("kind")
    return kind if isinstance(kind, str) else None


def read_forecast_results(path: str | os.PathLike[str]) -> tuple[dict[str, Any], list[ForecastError]]:
    """Read a RESULTS folder written by :func:`run_forecast`.

    Returns:
        ``(manifest, errors)``.

    Raises:
        WearbenchError: Naming the file (and line) for a folder of another kind, a bad line, or a
            SHA-256 that differs from the manifest.
    """
    return read_results(
        path,
        kind=FORECAST_RESULTS_KIND,
        file=RESULTS_FILE,
        record=ForecastError,
        noun="forecast",
        command="track forecast",
        record_noun="a forecast error record",
    )
