"""GRU-D outcome model through PyPOTS on weekly tensors (seed 004, Track 1).

Per participant, the retained days in the task window (hourly values with their day numbers: the
rows of :func:`~wearbench.tracks._outcome_rocket.hourly_values` with the day number prepended by
the run, ``OutcomeModel.dated``) become weekly windows (:func:`~wearbench.tracks.weekly_windows`: 7
calendar days, >= 5 retained, stride ``week_stride``: default 1, the seed's text; the latest
``max_weeks`` kept) and
``(168, 19)`` tensors of the hourly values (NaN = missing hour; GRU-D's decay uses the mask and the
time since the last observation). Values are standardised per channel with the training weeks'
observed mean and SD. A participant with no qualifying week gets no prediction (NaN: the run
substitutes Linear's and counts it).

PyPOTS 1.5 has GRU-D for classification only (no regression module), so every task kind is trained
as a ``pypots.classification.GRUD`` (64-dim hidden state, cross-entropy) on the participant's label
copied to each of their training weeks, and the test weeks' class probabilities are averaged per
participant:

- ``binary``: P(1);
- ``multiclass``: the class index of the largest mean probability;
- ``ordinal``: K classes, the prediction is the expected class index ``sum_k k p_k`` (the seed's
  K-1 sigmoid BCE head is not in PyPOTS);
- ``regression``: the training labels cut into ``n_bins`` quantile bins, the prediction is
  ``sum_k p_k m_k`` with ``m_k`` the bin's mean training label (PyPOTS has no MSE GRU-D).

Unlike the seed's one shared multi-task network, one network is trained per task. PyPOTS and torch
are optional (``pip install -e ".[learn]"``) and imported only when a model is fitted.
"""

from __future__ import annotations

import importlib
import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from wearbench.minutes import HOURS_PER_DAY, N_CHANNELS
from wearbench.tracks._pypots import import_pypots
from wearbench.tracks._weekly import WEEK_STRIDE, stack_weeks, weekly_windows

FloatArray = npt.NDArray[np.float64]
#: GRU-D hidden size (the seed's 64-dim hidden state).
HIDDEN = 64
#: Default epochs, batch size, Adam learning rate, quantile bins for regression, weeks kept per participant.
DEFAULT_EPOCHS = 5
DEFAULT_BATCH_SIZE = 32
DEFAULT_LR = 0.005
REGRESSION_BINS = 5
MAX_WEEKS = 8


def participant_weeks(rows: FloatArray, stride: int = WEEK_STRIDE, max_weeks: int = MAX_WEEKS) -> FloatArray:
    """Weekly ``(168, 19)`` tensors of one participant (the last ``max_weeks`` qualifying weeks).

    Args:
        rows: ``(n_days, 1 + 24 * 19)``: the day number (days since 1970-01-01), then the hourly
            values, hour ``h`` and channel ``c`` at column ``1 + 19 h + c`` (the retained days in
            the window).
        stride: Days between candidate week starts.
        max_weeks: Keep at most the latest this many weeks.

    Returns:
        ``(n_weeks, 168, 19)`` float64, NaN = missing hour or absent day; ``n_weeks`` may be 0.
    """
    if len(rows) == 0:
        return np.zeros((0, 7 * HOURS_PER_DAY, N_CHANNELS))
    day_no = rows[:, 0].astype(np.int64)
    values = rows[:, 1:].reshape(-1, HOURS_PER_DAY, N_CHANNELS)
    seg = np.concatenate([values, np.isnan(values).astype(np.float64)], axis=2)
    _, idx = weekly_windows(day_no, np.ones(len(day_no), dtype=bool), stride=stride)
    weeks = stack_weeks(seg, idx[-max_weeks:] if max_weeks > 0 else idx[:0], nan_missing=True)
    return np.asarray(weeks[:, :, :N_CHANNELS], dtype=np.float64)


def _classes(kind: str, y: FloatArray, n_bins: int) -> tuple[npt.NDArray[np.int64], FloatArray]:
    """Class index per training label and the value of each class (for the expected score)."""
    if kind != "regression":
        k = np.rint(y).astype(np.int64)
        return k, np.arange(int(k.max()) + 1, dtype=np.float64)
    edges = np.quantile(y, np.linspace(0, 1, n_bins + 1)[1:-1])
    k = np.searchsorted(edges, y, side="right").astype(np.int64)
    _, k = np.unique(k, return_inverse=True)  # drop empty bins (tied quantiles)
    return k.astype(np.int64), np.array([y[k == c].mean() for c in range(int(k.max()) + 1)])


@dataclass(frozen=True)
class GRUDModel:
    """GRU-D per task (see the module docstring).

    Attributes:
        epochs: Training epochs.
        batch_size: Weeks per batch.
        lr: Adam learning rate (PyPOTS' default is 0.001; 0.005 learns in few epochs).
        hidden: GRU-D hidden size.
        seed: Seeds numpy and torch before each fit.
        n_threads: torch CPU threads (None = leave torch's setting).
        n_bins: Quantile bins of a regression label.
        week_stride: Days between candidate week starts.
        max_weeks: Latest qualifying weeks kept per participant.
    """

    epochs: int = DEFAULT_EPOCHS
    batch_size: int = DEFAULT_BATCH_SIZE
    lr: float = DEFAULT_LR
    hidden: int = HIDDEN
    seed: int = 0
    n_threads: int | None = 1
    n_bins: int = REGRESSION_BINS
    week_stride: int = WEEK_STRIDE
    max_weeks: int = MAX_WEEKS

    def fit_predict(
        self, kind: str, xs_train: Sequence[FloatArray], y_train: FloatArray, xs_test: Sequence[FloatArray]
    ) -> FloatArray:
        """Train on the training participants' weeks; predict each test participant.

        Args:
            kind: Task kind.
            xs_train: Per training participant, ``(n_days, 1 + 24 * 19)`` day rows
                (:func:`participant_weeks`).
            y_train: ``(n_train,)`` labels.
            xs_test: The same for the test participants.

        Returns:
            ``(n_test,)`` predictions (module docstring); NaN for a participant with no qualifying
            week, and for all when fewer than 2 training participants have weeks or one class.
        """
        w_train = [participant_weeks(x, self.week_stride, self.max_weeks) for x in xs_train]
        w_test = [participant_weeks(x, self.week_stride, self.max_weeks) for x in xs_test]
        has = np.array([len(w) > 0 for w in w_train], dtype=bool)
        out = np.full(len(xs_test), math.nan)
        y = np.asarray(y_train, dtype=np.float64)
        if has.sum() < 2 or len(np.unique(y[has])) < 2 or not any(len(w) for w in w_test):
            return out
        cls, values = _classes(kind, y[has], self.n_bins)
        x = np.concatenate([w for w in w_train if len(w)])
        labels = np.repeat(cls, [len(w) for w in w_train if len(w)])
        with warnings.catch_warnings():  # a channel never observed (PMData: no heart rate) is NaN
            warnings.simplefilter("ignore", RuntimeWarning)
            mean = np.nan_to_num(np.nanmean(x, axis=(0, 1)))
            sd = np.nan_to_num(np.nanstd(x, axis=(0, 1)))
        sd = np.where(sd > 0, sd, 1.0)
        model = self._fit((x - mean) / sd, labels, len(values))
        for i, w in enumerate(w_test):
            if len(w):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", DeprecationWarning)
                    proba = model.predict({"X": ((w - mean) / sd).astype(np.float32)})["classification_proba"]
                out[i] = self._score(kind, np.asarray(proba, dtype=np.float64).mean(axis=0), values)
        return out

    def _fit(self, x: FloatArray, labels: npt.NDArray[np.int64], n_classes: int) -> Any:
        classification = import_pypots("classification", "outcome method 'grud'", self.n_threads)
        importlib.import_module("pypots.utils.random").set_random_seed(self.seed)
        adam = importlib.import_module("pypots.optim.adam").Adam(lr=self.lr)
        model = classification.GRUD(
            n_steps=x.shape[1], n_features=x.shape[2], n_classes=n_classes, rnn_hidden_size=self.hidden,
            epochs=self.epochs, batch_size=self.batch_size, optimizer=adam, saving_path=None, verbose=False,
        )  # fmt: skip
        with warnings.catch_warnings():  # PyPOTS' LOCF step warns about numpy 2's __array_wrap__
            warnings.simplefilter("ignore", DeprecationWarning)
            model.fit({"X": x.astype(np.float32), "y": labels})
        return model

    @staticmethod
    def _score(kind: str, proba: FloatArray, values: FloatArray) -> float:
        if kind == "binary":
            return float(proba[1])
        if kind == "multiclass":
            return float(values[int(np.argmax(proba))])
        return float(proba @ values)
