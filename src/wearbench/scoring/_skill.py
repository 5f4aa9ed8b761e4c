"""OpenMHC skill-score kernels: per-participant errors, clipped log-ratios, ranks, the task hierarchy.

The data structure shared by the imputation and forecasting tracks (and outcome prediction) is
:class:`SkillErrors`: a dense float array ``errors`` of shape ``(n_methods, n_tasks,
n_participants)`` with NaN where a method has no error for a participant on a task, plus the
metadata of each axis. A task is a :class:`Task` ``(approach, bucket, name)``:

- imputation: ``approach`` = masking approach, ``bucket`` = channel category (Activity,
  Physiology, Sleep, Workout), ``name`` = the channel, or the category for a collapsed binary
  task (:func:`collapse_binary`);
- forecasting: one approach (``"forecast"``), ``bucket`` = category, ``name`` = channel; binary
  channels stay separate tasks.

Binary errors are ``max(1 - AUC, eps)`` (:func:`binary_error`); ``rank_errors`` (same shape)
holds the unfloored ``1 - AUC`` used for ranking. The kernels here are pure numpy; the bootstrap
and the result object live in :mod:`wearbench.scoring._skill_boot`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.stats import rankdata

from wearbench._errors import WearbenchError


@dataclass(frozen=True)
class Task:
    """One scored task: a leaf of the approach → bucket → task hierarchy.

    Attributes:
        approach: Masking approach (imputation) or one shared name (forecasting).
        bucket: Category the task is balanced in (Activity, Physiology, Sleep, Workout).
        name: Channel name, or the category name for a collapsed binary task.
    """

    approach: str
    bucket: str
    name: str


@dataclass(frozen=True)
class Scope:
    """A column of the skill table: which approaches and buckets enter the hierarchy.

    Attributes:
        name: Column name (``"Overall"``, ``"Sleep"``, ``"Semantic"``, ...).
        approaches: Approaches averaged over; ``None`` = every approach of the tasks.
        buckets: Buckets averaged over within each approach; ``None`` = every bucket present.
    """

    name: str
    approaches: tuple[str, ...] | None = None
    buckets: tuple[str, ...] | None = None


@dataclass(frozen=True, eq=False)
class SkillErrors:
    """Per-participant errors of every method on every task.

    Attributes:
        methods: Method names, length ``M`` (unique).
        tasks: Tasks, length ``T`` (unique).
        participants: Participant ids, length ``P`` (unique).
        errors: ``(M, T, P)`` float errors (MAE in the channel's unit, or ``max(1 - AUC, eps)``);
            NaN = no error (single-class channel, participant without masked cells).
        rank_errors: ``(M, T, P)`` errors used for ranking (binary: unfloored ``1 - AUC``);
            ``None`` = ``errors``.
    """

    methods: tuple[str, ...]
    tasks: tuple[Task, ...]
    participants: tuple[str, ...]
    errors: np.ndarray
    rank_errors: np.ndarray | None = None

    def __post_init__(self) -> None:
        shape = (len(self.methods), len(self.tasks), len(self.participants))
        for label, names in (
            ("method", self.methods),
            ("task", self.tasks),
            ("participant", self.participants),
        ):
            if len(set(names)) != len(names):
                raise WearbenchError(f"duplicate {label} names in {names!r}")
        for label, arr in (("errors", self.errors), ("rank_errors", self.rank_errors)):
            if arr is not None and arr.shape != shape:
                raise WearbenchError(
                    f"{label} has shape {arr.shape}, expected (methods, tasks, participants) = {shape}"
                )
        if np.any(self.errors < 0):  # NaN compares False
            raise WearbenchError("errors must be >= 0 (or NaN for missing)")

    @property
    def ranking(self) -> np.ndarray:
        """``(M, T, P)`` errors that ranks are taken on."""
        return self.errors if self.rank_errors is None else self.rank_errors

    def method_index(self, method: str) -> int:
        """Position of ``method`` on the first axis.

        Raises:
            WearbenchError: If the method is not present.
        """
        if method not in self.methods:
            raise WearbenchError(f"method {method!r} not among {', '.join(self.methods)}")
        return self.methods.index(method)

    @classmethod
    def from_rows(cls, rows: Iterable[Mapping[str, object]]) -> SkillErrors:
        """Build from a long table: one row per (method, task, participant).

        Args:
            rows: Mappings with keys ``method``, ``approach``, ``bucket``, ``task``,
                ``participant``, ``error`` and optionally ``rank_error`` (defaults to ``error``).
                Methods, tasks and participants keep their order of first appearance; missing
                combinations are NaN.

        Raises:
            WearbenchError: On a duplicate (method, task, participant) row or a missing key.
        """
        table = list(rows)
        try:
            keys = [
                (
                    str(r["method"]),
                    Task(str(r["approach"]), str(r["bucket"]), str(r["task"])),
                    str(r["participant"]),
                )
                for r in table
            ]
        except KeyError as e:
            raise WearbenchError(f"skill error row lacks the key {e.args[0]!r}") from e
        methods = tuple(dict.fromkeys(k[0] for k in keys))
        tasks = tuple(dict.fromkeys(k[1] for k in keys))
        users = tuple(dict.fromkeys(k[2] for k in keys))
        pos_m, pos_t, pos_p = ({n: i for i, n in enumerate(x)} for x in (methods, tasks, users))
        errors = np.full((len(methods), len(tasks), len(users)), np.nan)
        ranking = errors.copy()
        for (m, t, p), r in zip(keys, table, strict=True):
            at = (pos_m[m], pos_t[t], pos_p[p])
            if not np.isnan(errors[at]) or not np.isnan(ranking[at]):
                raise WearbenchError(f"duplicate error row: method {m!r}, task {t}, participant {p!r}")
            errors[at] = _as_float(r["error"])
            ranking[at] = _as_float(r.get("rank_error", r["error"]))
        return cls(methods, tasks, users, errors, ranking)


def _as_float(value: object) -> float:
    """A row's error as a float; ``None`` is NaN."""
    return float("nan") if value is None else float(str(value))


def binary_error(auc: np.ndarray | float, eps: float = 0.005) -> np.ndarray:
    """Binary-channel error ``max(1 - AUC, eps)``; NaN AUC (single-class data) stays NaN.

    Args:
        auc: ROC AUC values, any shape.
        eps: Floor on the error.

    Returns:
        Float array of the same shape.
    """
    a = np.asarray(auc, dtype=float)
    return np.where(np.isnan(a), np.nan, np.maximum(1.0 - a, eps))


def collapse_binary(auc: np.ndarray, eps: float = 0.005) -> tuple[np.ndarray, np.ndarray]:
    """Collapse a category's binary channels into one task (imputation, structural approaches).

    Args:
        auc: ``(..., n_channels)`` AUCs of the channels of one category; NaN = undefined.
        eps: Floor on the collapsed error.

    Returns:
        ``(error, rank_error)`` of shape ``(...)``: ``max(mean over channels with a defined AUC
        of (1 - AUC), eps)`` and the same mean unfloored; NaN where no channel has an AUC.
    """
    miss = 1.0 - np.asarray(auc, dtype=float)
    ok = np.isfinite(miss)
    n = ok.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = np.where(ok, miss, 0.0).sum(axis=-1) / n
    mean = np.where(n > 0, mean, np.nan)
    return binary_error(1.0 - mean, eps), mean


def log_ratios(errors: np.ndarray, base: np.ndarray, clip: tuple[float, float] = (0.01, 100.0)) -> np.ndarray:
    """Per-participant clipped log-ratios ``log clip(E_m / E_b, lo, hi)``.

    Args:
        errors: ``(M, T, P)`` errors of the methods.
        base: ``(T, P)`` errors of the reference method.
        clip: ``(lo, hi)`` bounds on the ratio.

    Returns:
        ``(M, T, P)`` float array; NaN outside ``P_r`` (either error not finite or ``E_b <= 0``).
    """
    valid = np.isfinite(errors) & np.isfinite(base) & (base > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = np.clip(errors / base, clip[0], clip[1])
    return np.where(valid, np.log(np.where(valid, ratio, 1.0)), np.nan)


def participant_ranks(ranking: np.ndarray) -> np.ndarray:
    """Rank methods within each (task, participant) by error ascending, ties averaged.

    Args:
        ranking: ``(M, T, P)`` errors.

    Returns:
        ``(M, T, P)`` ranks in ``1..M``; NaN where some method's error is not finite (only
        participants every method was scored on are ranked).
    """
    finite = np.isfinite(ranking)
    complete = finite.all(axis=0)
    if ranking.size == 0:
        return ranking.astype(float)
    ranks = rankdata(np.where(finite, ranking, 0.0), method="average", axis=0)
    return np.where(complete, ranks, np.nan)


def nanmean_last(values: np.ndarray) -> np.ndarray:
    """Mean over the last axis of the finite entries; NaN where none (no warning)."""
    ok = np.isfinite(values)
    n = ok.sum(axis=-1)
    total = np.where(ok, values, 0.0).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, total / np.maximum(n, 1), np.nan)


def scope_groups(tasks: Sequence[Task], scope: Scope) -> list[list[np.ndarray]]:
    """Task positions of a scope, per approach, per bucket.

    Returns:
        One list per approach in the scope (order of first appearance), holding one index
        array per bucket of that approach in the scope. Empty if no task is in the scope.
    """
    out: list[list[np.ndarray]] = []
    approaches = dict.fromkeys(t.approach for t in tasks)
    for a in approaches:
        if scope.approaches is not None and a not in scope.approaches:
            continue
        buckets = dict.fromkeys(t.bucket for t in tasks if t.approach == a)
        groups = [
            np.array([i for i, t in enumerate(tasks) if t.approach == a and t.bucket == k])
            for k in buckets
            if scope.buckets is None or k in scope.buckets
        ]
        if groups:
            out.append(groups)
    return out


def hierarchy_mean(values: np.ndarray, groups: list[list[np.ndarray]]) -> np.ndarray:
    """Mean over approaches of the mean over buckets of the mean over tasks (NaNs skipped).

    Args:
        values: ``(..., T, B)`` per-task values (``B`` bootstrap draws, or 1).
        groups: :func:`scope_groups` of the scope.

    Returns:
        ``(..., B)``; a bucket without a finite task, or an approach without a finite bucket,
        is left out; NaN if nothing is left.
    """
    per_app = []
    for buckets in groups:
        per_bucket = [nanmean_last(np.moveaxis(values[..., idx, :], -2, -1)) for idx in buckets]
        per_app.append(nanmean_last(np.stack(per_bucket, axis=-1)))
    if not per_app:
        return np.full(values.shape[:-2] + values.shape[-1:], np.nan)
    return nanmean_last(np.stack(per_app, axis=-1))
