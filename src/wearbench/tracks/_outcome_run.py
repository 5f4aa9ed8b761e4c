"""The outcome-prediction track end to end over a minute-cohort folder (seed 004, Track 1).

:func:`run_predict`: the cohort's labels (:func:`~wearbench.tracks.cohort_labels`); the seeded
user-level split of the other tracks (:func:`~wearbench.tracks.split_users`, over every user of the
folder); each user's retained days (:func:`~wearbench.tracks.prepare_user`) turned into per-day
features once per model, then pooled over each task's window (or, for a model with
``window_features`` such as XGBoost, one vector per distinct window); a participant enters a task iff it
has the label and at least one retained day in the window. Every method fits one head per task on
the included training users and predicts the included test users; a non-finite prediction is
replaced by Linear's (the reference, always fitted) and counted. The RESULTS folder holds
``predictions.jsonl`` (one :class:`OutcomePrediction` per line, sorted; byte-identical for a seed)
and ``manifest.json`` (kind ``wearbench-outcome-results``: tasks, inclusion counts, split, fallback
rates, seconds, content hashes). The skill score and its user bootstrap run at score time
(:func:`wearbench.scoring.score_outcome_results`).
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from wearbench._errors import WearbenchError
from wearbench.executors import Executor, LocalExecutor
from wearbench.minutes import read_minute_user
from wearbench.tracks._impute_run import CohortSplit, resolve_names
from wearbench.tracks._outcome_metrics import task_metric
from wearbench.tracks._outcome_models import (
    OUTCOME_MODELS,
    PLANNED_OUTCOME_MODELS,
    FloatArray,
)
from wearbench.tracks._outcome_tasks import OUTCOME_TASKS, OutcomeTask, cohort_labels, window_mask
from wearbench.tracks._pipeline import prepare_user
from wearbench.tracks._results_io import read_results, write_results

#: ``kind`` of an outcome RESULTS folder's manifest.
OUTCOME_RESULTS_KIND = "wearbench-outcome-results"
#: Predictions file of an outcome RESULTS folder.
PREDICTIONS_FILE = "predictions.jsonl"
#: The reference method, and the fallback of every other one.
OUTCOME_REFERENCE = "linear"


@dataclass(frozen=True)
class OutcomePrediction:
    """One method's prediction for one test participant and task.

    Attributes:
        method: Method name.
        task: Task name.
        participant: User id.
        label: The true label (binary 0/1, ordinal / class index, regression value).
        prediction: P(1), an ordinal / regression score, or a class index.
        fallback: True when the method gave no finite prediction and Linear's was used.
    """

    method: str
    task: str
    participant: str
    label: float
    prediction: float
    fallback: bool


def _resolve_methods(methods: Sequence[str]) -> tuple[str, ...]:
    for name in methods:
        if name in PLANNED_OUTCOME_MODELS:
            raise WearbenchError(f"outcome method {name!r} is not built yet ({PLANNED_OUTCOME_MODELS[name]})")
    return resolve_names(methods, list(OUTCOME_MODELS), "outcome method")


def _user_features(
    path: Path,
    uid: str,
    labels: Mapping[str, tuple[float, np.datetime64]],
    tasks: Mapping[str, OutcomeTask],
    models: Sequence[str],
    seconds: dict[str, float],
) -> dict[str, dict[str, FloatArray]]:
    """``{task: {model: features}}`` for the tasks the user is included in.

    Per-day models compute their day features once per user, window models
    (``window_features``) once per distinct window. Tasks whose windows select the same days share
    one pooled object per model (the deep models keep every window day, so this bounds memory by
    the distinct windows, not the tasks). Seconds are added to ``seconds["read"]`` and
    ``seconds[model]``.
    """
    t0 = time.perf_counter()
    prep = prepare_user(read_minute_user(path, uid))
    seconds["read"] = seconds.get("read", 0.0) + time.perf_counter() - t0
    day_no = prep.dates.astype("datetime64[D]").astype(np.int64).astype(float)[:, None]
    specs = {m: OUTCOME_MODELS[m] for m in models}
    per_day: dict[str, FloatArray] = {}
    for m, spec in specs.items():
        t0 = time.perf_counter()
        if spec.window_features is None:
            f = spec.day_features(prep.days)
            per_day[m] = np.hstack([day_no, f]) if spec.dated else f
        seconds[m] = seconds.get(m, 0.0) + time.perf_counter() - t0
    out: dict[str, dict[str, FloatArray]] = {}
    pooled: dict[bytes, dict[str, FloatArray]] = {}
    for name, (_, date) in labels.items():
        keep = window_mask(prep.dates, date, tasks[name])
        if not keep.any():
            continue
        key = keep.tobytes()
        if key not in pooled:
            pooled[key] = {}
            for m, spec in specs.items():
                t0 = time.perf_counter()
                if spec.window_features is None:
                    pooled[key][m] = spec.pool(per_day[m][keep])
                else:
                    pooled[key][m] = spec.window_features(prep.days[keep], prep.dates[keep])
                seconds[m] = seconds.get(m, 0.0) + time.perf_counter() - t0
        out[name] = pooled[key]
    return out


_FeaturesTask = tuple[Path, str, Mapping[str, tuple[float, Any]], Mapping[str, OutcomeTask], Sequence[str]]


def _features_task(task: _FeaturesTask) -> tuple[dict[str, dict[str, FloatArray]], dict[str, float]]:
    """One user's features and seconds per stage (an executor task: top level, picklable)."""
    path, uid, labels, tasks, models = task
    seconds: dict[str, float] = {}
    return _user_features(path, uid, labels, tasks, models, seconds), seconds


def _label_index(
    labels: pd.DataFrame, tasks: Mapping[str, OutcomeTask]
) -> dict[str, dict[str, tuple[float, Any]]]:
    """``{user: {task: (value, date)}}`` for defined tasks (first row of a repeated user-task)."""
    out: dict[str, dict[str, tuple[float, Any]]] = {}
    users, names = labels["user_id"].astype(str), labels["task"].astype(str)
    values, dates = labels["value"].to_numpy(dtype=float), labels["date"].astype(str)
    for u, t, v, d in zip(users, names, values, dates, strict=True):
        if t in tasks:
            out.setdefault(u, {}).setdefault(t, (float(v), np.datetime64(d, "D")))
    return out


_Rows = dict[str, list[tuple[str, float, dict[str, FloatArray]]]]


def _predict_task(
    task: OutcomeTask, methods: Sequence[str], rows: _Rows, seed: int = 0, n_jobs: int = 1
) -> tuple[dict[str, FloatArray], FloatArray, list[str], dict[str, float]]:
    """Predictions per method (fallback applied), test labels and ids, fit seconds."""
    train, test = rows["train"], rows["test"]
    y_train = np.array([r[1] for r in train], dtype=float)
    preds: dict[str, FloatArray] = {}
    seconds: dict[str, float] = {}
    for m in dict.fromkeys([OUTCOME_REFERENCE, *methods]):
        t0 = time.perf_counter()
        xs_train, xs_test = [r[2][m] for r in train], [r[2][m] for r in test]
        preds[m] = OUTCOME_MODELS[m].predict(task.kind, xs_train, y_train, xs_test, seed=seed, n_jobs=n_jobs)
        seconds[m] = time.perf_counter() - t0
    return preds, np.array([r[1] for r in test], dtype=float), [r[0] for r in test], seconds


def run_predict(
    cohort_dir: str | os.PathLike[str],
    methods: Sequence[str],
    out: str | os.PathLike[str],
    seed: int = 0,
    tasks: Sequence[str] | None = None,
    *,
    task_defs: Mapping[str, OutcomeTask] = OUTCOME_TASKS,
    test_share: float = 0.2,
    limit_users: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    n_jobs: int = 1,
    executor: Executor | None = None,
) -> dict[str, Any]:
    """Run the outcome-prediction track on a minute cohort and write a RESULTS folder.

    Args:
        cohort_dir: Minute-cohort folder (with ``labels.csv``, or synthetic).
        methods: Outcome method names (keys of :data:`~wearbench.tracks.OUTCOME_MODELS`).
        out: RESULTS folder to write (``predictions.jsonl`` + ``manifest.json``).
        seed: Fixes the split, hence every byte of ``predictions.jsonl``.
        tasks: Task names; None = every defined task the labels have.
        task_defs: Task definitions by name (default :data:`~wearbench.tracks.OUTCOME_TASKS`: synthetic
            and real).
        test_share: Share of users in the test split.
        limit_users: Only the first ``limit_users`` users of the folder.
        progress: Optional ``(users_done, users_total)`` callback.
        n_jobs: Threads of models that take them (XGBoost); the output does not depend on it.
        executor: Where each labelled user's reading, preprocessing and feature extraction run,
            one user per task (:mod:`wearbench.executors`; default serial); fitting stays here.
            ``predictions.jsonl`` is the same byte for byte on every executor.

    Returns:
        The manifest written to ``out/manifest.json``.

    Raises:
        UnknownNameError: For an unknown method or task.
        WearbenchError: For a planned-only method, an unreadable cohort, no labels, or fewer than
            2 users.
    """
    methods = _resolve_methods(methods)
    split = CohortSplit.of(cohort_dir, seed, test_share, limit_users)
    path, data_hash, ids, train_ids, test_ids = split
    labels, origin = cohort_labels(path)
    present = [t for t in task_defs if t in set(labels["task"])]
    chosen = resolve_names(list(tasks), present, "outcome task") if tasks is not None else tuple(present)
    defs = {t: task_defs[t] for t in chosen}
    side = dict.fromkeys(train_ids, "train") | dict.fromkeys(test_ids, "test")
    index = _label_index(labels, defs)
    models = list(dict.fromkeys([OUTCOME_REFERENCE, *methods]))
    t_start = time.perf_counter()
    runner = executor if executor is not None else LocalExecutor(1)
    feature_seconds: dict[str, float] = {}
    rows: dict[str, dict[str, list[tuple[str, float, dict[str, FloatArray]]]]] = {
        t: {"train": [], "test": []} for t in defs
    }
    labelled = [uid for uid in ids if index.get(uid)]
    jobs = [(path, uid, index[uid], defs, models) for uid in labelled]
    position = {uid: i for i, uid in enumerate(ids)}
    for uid, (features, seconds) in zip(labelled, runner.map(_features_task, jobs), strict=True):
        for name, feats in features.items():
            rows[name][side[uid]].append((uid, index[uid][name][0], feats))
        for stage, s in seconds.items():
            feature_seconds[stage] = feature_seconds.get(stage, 0.0) + s
        if progress is not None:
            progress(position[uid] + 1, len(ids))
    if progress is not None and ids:
        progress(len(ids), len(ids))
    t_features = time.perf_counter() - t_start
    records, summary = _predict_all(defs, methods, rows, seed, n_jobs)
    blob = _predictions_bytes(records, methods)
    manifest: dict[str, Any] = {
        "kind": OUTCOME_RESULTS_KIND,
        "seed": seed,
        "methods": list(methods),
        "reference": OUTCOME_REFERENCE,
        "test_share": test_share,
        "limit_users": limit_users,
        "data": {"path": str(path), "content_hash": data_hash},
        "labels": origin,
        "tasks": {t: {**asdict(d), "metric": d.metric, **summary["tasks"][t]} for t, d in defs.items()},
        "split": {
            "n_users": len(ids),
            "n_train": len(train_ids),
            "n_test": len(test_ids),
            "train": train_ids,
            "test": test_ids,
        },
        "fallback": summary["fallback"],
        "seconds": {
            "features": t_features,
            "features_by_stage": feature_seconds,
            "fit_predict": summary["seconds"],
        },
        "seconds_total": time.perf_counter() - t_start,
        "results": {
            "file": PREDICTIONS_FILE,
            "rows": len(records),
            "sha256": hashlib.sha256(blob).hexdigest(),
        },
    }
    write_results(Path(out), {PREDICTIONS_FILE: blob}, manifest, "outcome")
    return manifest


def _predict_all(
    defs: Mapping[str, OutcomeTask],
    methods: Sequence[str],
    rows: dict[str, dict[str, list[tuple[str, float, dict[str, FloatArray]]]]],
    seed: int = 0,
    n_jobs: int = 1,
) -> tuple[list[OutcomePrediction], dict[str, Any]]:
    """Every method on every task; the per-task summary, fallback counts and seconds."""
    records: list[OutcomePrediction] = []
    n_fb = dict.fromkeys(methods, 0)
    n_all = dict.fromkeys(methods, 0)
    seconds = dict.fromkeys(methods, 0.0)
    tasks: dict[str, dict[str, Any]] = {}
    for name, task in defs.items():
        r = rows[name]
        tasks[name] = {"n_train": len(r["train"]), "n_test": len(r["test"]), "reference_metric": None}
        if not r["test"] or not r["train"]:  # nothing to score, or nothing to fit on
            continue
        preds, y, who, secs = _predict_task(task, methods, r, seed, n_jobs)
        ref = preds[OUTCOME_REFERENCE]
        tasks[name]["reference_metric"] = _finite_or_none(task_metric(task.kind, y, ref))
        for m in methods:
            bad = ~np.isfinite(preds[m])
            filled = np.where(bad, ref, preds[m])
            n_fb[m] += int(bad.sum())
            n_all[m] += len(y)
            seconds[m] += secs[m]
            records.extend(
                OutcomePrediction(m, name, u, float(v), float(p), bool(b))
                for u, v, p, b in zip(who, y, filled, bad, strict=True)
            )
    fallback = {m: {"n": n_fb[m], "rate": n_fb[m] / n_all[m] if n_all[m] else 0.0} for m in methods}
    return records, {"tasks": tasks, "fallback": fallback, "seconds": seconds}


def _finite_or_none(x: float) -> float | None:
    return x if math.isfinite(x) else None


def _predictions_bytes(records: list[OutcomePrediction], methods: Sequence[str]) -> bytes:
    pos = {m: i for i, m in enumerate(methods)}
    ordered = sorted(records, key=lambda r: (pos[r.method], r.task, r.participant))
    return "".join(json.dumps(asdict(r), sort_keys=True, allow_nan=False) + "\n" for r in ordered).encode()


def read_outcome_results(path: str | os.PathLike[str]) -> tuple[dict[str, Any], list[OutcomePrediction]]:
    """Read a RESULTS folder written by :func:`run_predict`.

    Returns:
        ``(manifest, predictions)``.

    Raises:
        WearbenchError: Naming the file (and line) for a folder of another kind, a bad line, or a
            SHA-256 that differs from the manifest.
    """
    return read_results(
        path,
        kind=OUTCOME_RESULTS_KIND,
        file=PREDICTIONS_FILE,
        record=OutcomePrediction,
        noun="outcome",
        command="track predict",
        record_noun="an outcome prediction record",
    )
