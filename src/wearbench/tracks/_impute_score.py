"""Per-participant imputation errors, as the seed scores them (seed 004, F.3).

Only artificially masked cells (``A = 1``) are scored. Per participant and channel, pooled over
their days: continuous channels (0-6) give the MAE; binary channels (7-18) the ROC AUC of the
continuous prediction against ``y = 1[x > 0.5]``, dropped when that participant's masked truth
is single-class, and not computed at all under the semantic approaches. A masked cell the method
left non-finite is replaced by the training split's channel mean (continuous) or majority class
(binary), and counted. The output, :class:`ImputationScore` holding :class:`ImputationError`
records, is what the skill-score module aggregates.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray
from scipy.stats import rankdata

from wearbench.minutes import BINARY, CONTINUOUS, MINUTES_PER_DAY, N_CHANNELS
from wearbench.tracks._impute import channel_means
from wearbench.tracks._masking import masking_approach

FloatArray = NDArray[np.floating[Any]]


@dataclass(frozen=True)
class ImputationError:
    """One participant's error on one task (approach, channel) for one method.

    Attributes:
        method: Imputation method name (``"locf"`` …).
        approach: Masking approach name (``"random_noise"`` …).
        participant: Participant id, as a string.
        channel: Channel index 0-18 (seed order).
        kind: ``"mae"`` (continuous channel) or ``"auroc"`` (binary channel).
        value: MAE in the channel's per-minute unit, pooled over the participant's masked cells;
            or ROC AUC in [0, 1] over those cells (never for a single-class truth).
        n_cells: Number of masked cells scored.
    """

    method: str
    approach: str
    participant: str
    channel: int
    kind: Literal["mae", "auroc"]
    value: float
    n_cells: int

    @property
    def error(self) -> float:
        """The unfloored error: the MAE, or ``1 - AUROC`` (the skill module floors at ε)."""
        return self.value if self.kind == "mae" else 1.0 - self.value


@dataclass(frozen=True)
class ImputationScore:
    """All errors of one method under one approach, with the fallback substitution count.

    Attributes:
        method: Imputation method name.
        approach: Masking approach name.
        errors: One record per (participant, channel) with a score.
        n_masked: Masked cells in the run (all channels).
        n_substituted: Masked cells the method left non-finite, replaced by the fallback.
    """

    method: str
    approach: str
    errors: tuple[ImputationError, ...]
    n_masked: int
    n_substituted: int

    @property
    def substitution_rate(self) -> float:
        """``n_substituted / n_masked`` (0.0 when nothing was masked)."""
        return self.n_substituted / self.n_masked if self.n_masked else 0.0


def fallback_values(train: FloatArray) -> NDArray[np.float64]:
    """The substitution value per channel from training days ``(..., 19, 1440)``: ``(19,)``.

    Continuous channels: the channel mean. Binary channels: the majority class, 1.0 when the
    share of ones is above 0.5, else 0.0. A channel without training data gives 0.0.
    """
    means = channel_means(train)
    out = np.where(np.isnan(means), 0.0, means)
    b = list(BINARY)
    out[b] = (out[b] > 0.5).astype(np.float64)
    return out


def auroc(y: NDArray[np.bool_], score: FloatArray) -> float:
    """ROC AUC by the rank-sum (Mann-Whitney) formula, ties counted one half.

    Args:
        y: ``(n,)`` bool truth.
        score: ``(n,)`` finite scores, higher = more likely True.

    Returns:
        AUROC in [0, 1].

    Raises:
        ValueError: if ``y`` holds a single class (AUROC undefined).
    """
    y = np.asarray(y, dtype=bool)
    n_pos = int(y.sum())
    n_neg = y.size - n_pos
    if n_pos == 0 or n_neg == 0:
        raise ValueError(f"AUROC needs both classes; got {n_pos} positive, {n_neg} negative")
    ranks = rankdata(np.asarray(score, dtype=np.float64))
    return float((ranks[y].sum() - n_pos * (n_pos + 1) / 2) / (n_pos * n_neg))


def _check(x_true: FloatArray, a: NDArray[np.bool_], x_hat: FloatArray, participants: NDArray[Any]) -> None:
    shape = (x_true.shape[0], N_CHANNELS, MINUTES_PER_DAY)
    if x_true.shape != shape or a.shape != shape or x_hat.shape != shape:
        raise ValueError(
            f"truth, mask and imputation must share shape (n_days, {N_CHANNELS}, {MINUTES_PER_DAY}); "
            f"got {x_true.shape}, {a.shape}, {x_hat.shape}"
        )
    if np.shape(participants) != (shape[0],):
        raise ValueError(
            f"participants must give one id per day, ({shape[0]},); got {np.shape(participants)}"
        )
    if np.isnan(x_true[a]).any():
        raise ValueError(
            "the artificial mask covers unobserved truth cells (A must lie inside the observed mask)"
        )


def _participant_errors(
    truth: NDArray[np.float64], pred: NDArray[np.float64], a: NDArray[np.bool_], binary_scored: bool
) -> list[tuple[int, Literal["mae", "auroc"], float, int]]:
    """(channel, kind, value, n_cells) for one participant's days ``(n, 19, 1440)``."""
    out: list[tuple[int, Literal["mae", "auroc"], float, int]] = []
    for c in CONTINUOUS:
        sel = a[:, c]
        n = int(sel.sum())
        if n:
            out.append((c, "mae", float(np.abs(pred[:, c][sel] - truth[:, c][sel]).mean()), n))
    if binary_scored:
        for c in BINARY:
            sel = a[:, c]
            y = truth[:, c][sel] > 0.5
            if 0 < y.sum() < y.size:  # single-class truth: dropped
                out.append((c, "auroc", auroc(y, pred[:, c][sel]), int(y.size)))
    return out


def score_imputation(
    x_true: FloatArray,
    a: NDArray[np.bool_],
    x_hat: FloatArray,
    participants: NDArray[Any],
    fallback: FloatArray,
    *,
    method: str,
    approach: str,
    binary_scored: bool | None = None,
) -> ImputationScore:
    """Score one method's imputation under one masking approach, per participant and channel.

    Args:
        x_true: Ground-truth days, ``(n_days, 19, 1440)`` float, NaN = unobserved.
        a: Artificial mask, ``(n_days, 19, 1440)`` bool, inside ``~isnan(x_true)``.
        x_hat: The method's output, same shape (only ``a`` cells are read).
        participants: ``(n_days,)`` participant id per day; errors pool each one's days.
        fallback: ``(19,)`` substitution values (:func:`fallback_values` on the training split).
        method: Method name recorded in the errors.
        approach: Masking approach name (a name in ``MASKING_APPROACHES`` unless
            ``binary_scored`` is given).
        binary_scored: Whether binary channels are scored; None = the approach's registry flag
            (False for the semantic approaches).

    Returns:
        The errors (participants in sorted order, channels ascending) and the substitution count.
    """
    _check(x_true, a, x_hat, participants)
    if binary_scored is None:
        binary_scored = masking_approach(approach).binary_scored
    truth = np.asarray(x_true, dtype=np.float64)
    pred = np.array(x_hat, dtype=np.float64, copy=True)
    bad = a & ~np.isfinite(pred)
    fill = np.broadcast_to(np.asarray(fallback, dtype=np.float64)[None, :, None], pred.shape)
    pred[bad] = fill[bad]
    ids = np.asarray(participants)
    errors: list[ImputationError] = []
    for p in np.unique(ids):
        days = ids == p
        for c, kind, value, n in _participant_errors(truth[days], pred[days], a[days], binary_scored):
            errors.append(ImputationError(method, approach, str(p), c, kind, value, n))
    return ImputationScore(method, approach, tuple(errors), int(a.sum()), int(bad.sum()))
