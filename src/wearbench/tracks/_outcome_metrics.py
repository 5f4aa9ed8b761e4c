"""Outcome-prediction metrics (seed 004, Track 1): AUPRC, Spearman, Pearson, accuracy.

All take ``(y, score)`` 1-D arrays over one test cohort and return NaN where the metric is not
defined (one class only for AUPRC, a constant vector for the correlations, no participant).
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
from scipy.stats import rankdata

from wearbench.tracks._outcome_tasks import TASK_METRIC

Array = npt.ArrayLike


def auprc(y: Array, score: Array) -> float:
    """Average precision: ``sum_n (R_n - R_{n-1}) P_n`` over the distinct score thresholds, descending.

    Tied scores form one threshold (as scikit-learn's ``average_precision_score``).

    Args:
        y: ``(n,)`` 0/1 truth.
        score: ``(n,)`` scores (higher = more likely 1).

    Returns:
        AUPRC in [0, 1]; NaN without a positive or with no participant.
    """
    yt = np.asarray(y, dtype=float) > 0.5
    s = np.asarray(score, dtype=float)
    n_pos = int(yt.sum())
    if n_pos == 0 or yt.size == 0:
        return math.nan
    order = np.argsort(-s, kind="mergesort")
    s, yt = s[order], yt[order]
    last = np.r_[np.nonzero(np.diff(s))[0], s.size - 1]  # last index of each distinct score
    tp = np.cumsum(yt)[last]
    precision = tp / (last + 1)
    recall = tp / n_pos
    return float(np.sum(np.diff(np.r_[0.0, recall]) * precision))


def pearson(y: Array, score: Array) -> float:
    """Pearson correlation; NaN when either vector is constant or has fewer than 2 values."""
    a, b = np.asarray(y, dtype=float), np.asarray(score, dtype=float)
    if a.size < 2:
        return math.nan
    a, b = a - a.mean(), b - b.mean()
    den = math.sqrt(float(a @ a) * float(b @ b))
    return float(a @ b) / den if den > 0 else math.nan


def spearman(y: Array, score: Array) -> float:
    """Spearman correlation: Pearson on average ranks (ties averaged)."""
    a, b = np.asarray(y, dtype=float), np.asarray(score, dtype=float)
    if a.size < 2:
        return math.nan
    return pearson(rankdata(a), rankdata(b))


def accuracy(y: Array, pred: Array) -> float:
    """Share of exact class matches (``pred`` = class index); NaN with no participant."""
    a, b = np.asarray(y, dtype=float), np.asarray(pred, dtype=float)
    return float(np.mean(a == b)) if a.size else math.nan


METRICS = {"auprc": auprc, "spearman": spearman, "pearson": pearson, "accuracy": accuracy}


def task_metric(kind: str, y: Array, score: Array) -> float:
    """The metric of a task kind (:data:`~wearbench.tracks.TASK_METRIC`) on ``(y, score)``."""
    return METRICS[TASK_METRIC[kind]](y, score)
