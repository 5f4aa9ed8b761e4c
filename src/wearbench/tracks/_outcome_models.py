"""Outcome-prediction models (seed 004, Track 1): participant representation + a head per task kind.

An :class:`OutcomeModel` turns one participant's retained days in a task window into a feature
vector (``features``), then fits a head per task on the training participants and predicts the
test participants. Heads (numpy, on train-standardised features, NaN features set to the train
mean, i.e. 0 after standardisation):

- ``binary``: L2-regularised logistic regression (Newton / IRLS), prediction = P(y = 1);
- ``ordinal`` and ``regression``: ridge regression, prediction = the fitted score;
- ``multiclass``: one-vs-rest logistic regressions, prediction = the class index of the largest
  probability (classes unseen in training are never predicted).

Models: ``linear`` (the reference): per retained hourly segment ``(24, 38)``, the ``nanmean`` and
``nanstd`` over the 24 hours of each of the 19 channels (38 dims; NaN at missing hours), averaged
(``nanmean``) over the participant's segments in the window. ``xgboost``
(``tracks/_outcome_xgb.py``): a window representation over the days *and dates* in the window
(``window_features``) and its own head (FPCA fitted on the training participants, then XGBoost).
``multirocket`` and ``grud`` are named in :data:`PLANNED_OUTCOME_MODELS` and not built yet.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from wearbench._errors import WearbenchError
from wearbench.minutes import N_CHANNELS
from wearbench.tracks._hourly import hourly
from wearbench.tracks._outcome_xgb import xgb_fit_predict, xgb_window_features

FloatArray = npt.NDArray[np.float64]
#: Ridge / logistic L2 penalty on standardised features.
RIDGE_ALPHA = 1.0
#: Models named by the seed that are not built yet (the run refuses them with this note).
PLANNED_OUTCOME_MODELS: dict[str, str] = {
    "multirocket": "aeon MultiRocket + PCA -> 50",
    "grud": "PyPOTS GRU-D on the weekly tensors",
}


def segment_summary(days: npt.ArrayLike) -> FloatArray:
    """Per-day Linear summary: ``nanmean`` and ``nanstd`` over the 24 hourly values of each channel.

    Args:
        days: ``(n, 19, 1440)`` minute days (NaN = unobserved).

    Returns:
        ``(n, 38)`` float64: columns 0–18 the hourly means, 19–37 the hourly SDs (population SD);
        NaN for a channel with no observed hour that day.
    """
    seg = hourly(days, nan_missing=True)[:, :, :N_CHANNELS].astype(np.float64)  # (n, 24, 19)
    out = np.full((seg.shape[0], 2 * N_CHANNELS), np.nan)
    if seg.shape[0] == 0:
        return out
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        out[:, :N_CHANNELS] = np.nanmean(seg, axis=1)
        out[:, N_CHANNELS:] = np.nanstd(seg, axis=1)
    return out


def linear_features(day_summaries: npt.ArrayLike) -> FloatArray:
    """The Linear representation of one participant: the ``nanmean`` of their days' summaries.

    Args:
        day_summaries: ``(n, 38)`` from :func:`segment_summary` (the days in the window).

    Returns:
        ``(38,)``; NaN for a column with no finite value.
    """
    x = np.asarray(day_summaries, dtype=np.float64)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.asarray(np.nanmean(x, axis=0), dtype=np.float64)


@dataclass(frozen=True)
class Standardiser:
    """Train mean / SD per feature; transform sets NaN (and constant columns) to 0."""

    mean: FloatArray
    sd: FloatArray

    @classmethod
    def fit(cls, x: FloatArray) -> Standardiser:
        """From ``(n, k)`` training features (NaN ignored)."""
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            mean = np.nan_to_num(np.nanmean(x, axis=0))
            sd = np.nan_to_num(np.nanstd(x, axis=0))
        return cls(mean, np.where(sd > 0, sd, 1.0))

    def transform(self, x: FloatArray) -> FloatArray:
        """``(n, k)`` standardised, NaN → 0, with a leading column of ones (intercept)."""
        z = np.nan_to_num((x - self.mean) / self.sd, nan=0.0, posinf=0.0, neginf=0.0)
        return np.hstack([np.ones((z.shape[0], 1)), z])


def ridge(x: FloatArray, y: FloatArray, alpha: float = RIDGE_ALPHA) -> FloatArray:
    """Ridge coefficients (intercept in column 0, not penalised) of ``y ~ x``."""
    pen = alpha * np.eye(x.shape[1])
    pen[0, 0] = 0.0
    return np.asarray(np.linalg.solve(x.T @ x + pen, x.T @ y), dtype=np.float64)


def logistic(x: FloatArray, y: FloatArray, alpha: float = RIDGE_ALPHA, iters: int = 50) -> FloatArray:
    """L2-penalised logistic regression by Newton steps (intercept not penalised).

    Args:
        x: ``(n, k)`` design with an intercept column first.
        y: ``(n,)`` 0/1.
        alpha: L2 penalty.
        iters: Most Newton steps (stops when the step is below 1e-8).

    Returns:
        ``(k,)`` coefficients.
    """
    w = np.zeros(x.shape[1])
    pen = alpha * np.eye(x.shape[1])
    pen[0, 0] = 1e-6
    for _ in range(iters):
        p = 1.0 / (1.0 + np.exp(-np.clip(x @ w, -30, 30)))
        grad = x.T @ (p - y) + pen @ w
        hess = (x * (p * (1 - p))[:, None]).T @ x + pen
        step = np.linalg.solve(hess, grad)
        w -= step
        if float(np.max(np.abs(step))) < 1e-8:
            break
    return w


def _sigmoid(z: FloatArray) -> FloatArray:
    return np.asarray(1.0 / (1.0 + np.exp(-np.clip(z, -30, 30))), dtype=np.float64)


@dataclass
class Head:
    """A fitted head for one task kind (see the module docstring)."""

    kind: str
    n_classes: int = 0
    scaler: Standardiser | None = None
    coef: list[FloatArray] = field(default_factory=list)

    def fit(self, x: FloatArray, y: FloatArray) -> Head:
        """Fit on ``(n, k)`` features and ``(n,)`` labels; returns self."""
        self.scaler = Standardiser.fit(x)
        z = self.scaler.transform(x)
        if self.kind == "binary":
            self.coef = [logistic(z, (y > 0.5).astype(float))]
        elif self.kind == "multiclass":
            self.n_classes = int(np.nanmax(y)) + 1
            self.coef = [logistic(z, (y == c).astype(float)) if (y == c).any() else np.array([]) for c in
                         range(self.n_classes)]  # fmt: skip
        else:
            self.coef = [ridge(z, y.astype(float))]
        return self

    def predict(self, x: FloatArray) -> FloatArray:
        """``(n,)`` predictions: P(1), a score, or a class index."""
        if self.scaler is None:
            raise WearbenchError("predict before fit")
        z = self.scaler.transform(x)
        if self.kind == "binary":
            return _sigmoid(z @ self.coef[0])
        if self.kind == "multiclass":
            probs = np.stack(
                [_sigmoid(z @ w) if w.size else np.full(len(z), -1.0) for w in self.coef], axis=1
            )
            return np.asarray(np.argmax(probs, axis=1), dtype=np.float64)
        return np.asarray(z @ self.coef[0], dtype=np.float64)


@dataclass(frozen=True)
class OutcomeModel:
    """A participant representation and the head used on it.

    Attributes:
        name: Method name.
        day_features: ``(n, 19, 1440)`` days → ``(n, k)`` per-day features (computed once per user).
        pool: ``(n_window, k)`` per-day features of the days in a window → ``(k,)`` participant.
        window_features: When set, replaces ``day_features`` + ``pool``: the window's
            ``(n_window, 19, 1440)`` days and ``(n_window,)`` dates → ``(k,)`` participant (computed
            once per distinct window of a user).
        head: When set, replaces :func:`fit_predict`: ``head(kind, x_train, y_train, x_test, *,
            seed, n_jobs) -> (n_test,)`` predictions (NaN = missing).
    """

    name: str
    day_features: Callable[[npt.NDArray[np.float32]], FloatArray]
    pool: Callable[[FloatArray], FloatArray]
    window_features: Callable[[npt.NDArray[np.float32], npt.NDArray[np.datetime64]], FloatArray] | None = None
    head: Callable[..., FloatArray] | None = None


#: Built outcome models, keyed by name.
OUTCOME_MODELS: dict[str, OutcomeModel] = {
    "linear": OutcomeModel("linear", segment_summary, linear_features),
    "xgboost": OutcomeModel(
        "xgboost", segment_summary, linear_features, window_features=xgb_window_features, head=xgb_fit_predict
    ),
}


def fit_predict(kind: str, x_train: FloatArray, y_train: FloatArray, x_test: FloatArray) -> FloatArray:
    """Fit a head of ``kind`` and predict the test participants (NaN for all with < 2 training rows).

    Args:
        kind: Task kind.
        x_train: ``(n_train, k)`` features.
        y_train: ``(n_train,)`` labels.
        x_test: ``(n_test, k)`` features.

    Returns:
        ``(n_test,)`` predictions.
    """
    if len(y_train) < 2:
        return np.full(len(x_test), math.nan)
    return Head(kind).fit(x_train, y_train).predict(x_test)
