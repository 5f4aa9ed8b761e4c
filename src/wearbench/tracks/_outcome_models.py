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
(``nanmean``) over the participant's segments in the window. ``multirocket``
(:mod:`~wearbench.tracks._outcome_rocket`: MultiRocket + PCA -> 50 fitted per task on the training
participants, then these heads) and ``grud`` (:mod:`~wearbench.tracks._outcome_grud`: PyPOTS GRU-D
on weekly tensors, its own head) keep every window day (``stack_days``) and bring a ``head``;
``xgboost`` (:mod:`~wearbench.tracks._outcome_xgb`) builds one vector per window from the days
*and dates* in it (``window_features``) and brings its own head (FPCA fitted on the training
participants, then XGBoost).
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
from wearbench.tracks._outcome_grud import GRUDModel
from wearbench.tracks._outcome_rocket import MultiRocketFeatures, hourly_values, inputs_key, stack_days
from wearbench.tracks._outcome_xgb import xgb_fit_predict, xgb_window_features

FloatArray = npt.NDArray[np.float64]
#: Ridge / logistic L2 penalty on standardised features.
RIDGE_ALPHA = 1.0
#: Models named by the seed that are not built yet (the run refuses them with this note).
PLANNED_OUTCOME_MODELS: dict[str, str] = {}


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
        pool: ``(n_window, k)`` per-day features of the days in a window → ``(k,)`` participant
            (or any array a ``head`` takes).
        dated: Prepend the day number (days since 1970-01-01) to each per-day row as column 0.
        window_features: When set, replaces ``day_features`` + ``pool``: the window's
            ``(n_window, 19, 1440)`` days and ``(n_window,)`` dates → ``(k,)`` participant (computed
            once per distinct window of a user).
        head: ``head(kind, xs_train, y_train, xs_test, *, seed, n_jobs) -> (n_test,)`` predictions
            (NaN = missing) when the model fits its own representation or head; None =
            :func:`fit_predict` on the stacked pooled features.
    """

    name: str
    day_features: Callable[[npt.NDArray[np.float32]], FloatArray]
    pool: Callable[[FloatArray], FloatArray]
    dated: bool = False
    window_features: Callable[[npt.NDArray[np.float32], npt.NDArray[np.datetime64]], FloatArray] | None = None
    head: Callable[..., FloatArray] | None = None

    def predict(
        self,
        kind: str,
        xs_train: list[FloatArray],
        y_train: FloatArray,
        xs_test: list[FloatArray],
        *,
        seed: int = 0,
        n_jobs: int = 1,
    ) -> FloatArray:
        """Fit on the training participants' pooled features and predict the test ones (``(n_test,)``)."""
        if self.head is not None:
            return self.head(kind, xs_train, y_train, xs_test, seed=seed, n_jobs=n_jobs)
        x_train = np.stack(xs_train) if xs_train else np.zeros((0, 0))
        return fit_predict(kind, x_train, y_train, np.stack(xs_test))


def rocket_model(features: MultiRocketFeatures | None = None) -> OutcomeModel:
    """The ``multirocket`` model: MultiRocket + PCA features (default: 924 kernels), Linear heads.

    The features depend on the participants' days only, not on the labels: consecutive tasks with
    the same training and test participants and windows reuse them (the last one is kept).

    Args:
        features: Its settings, e.g. ``MultiRocketFeatures(n_kernels=SEED_KERNELS, seed=1)``.
    """
    feats = features if features is not None else MultiRocketFeatures()
    last: dict[bytes, tuple[FloatArray, FloatArray]] = {}  # tasks with the same participants

    def head(
        kind: str,
        xs_train: list[FloatArray],
        y: FloatArray,
        xs_test: list[FloatArray],
        *,
        seed: int,
        n_jobs: int,
    ) -> FloatArray:
        del seed, n_jobs  # the features are seeded by their own settings; the heads are exact
        if len(y) < 2:
            return np.full(len(xs_test), math.nan)
        key = inputs_key(xs_train, xs_test)
        if key not in last:
            last.clear()
            last[key] = feats.train_test(xs_train, xs_test)
        x_train, x_test = last[key]
        return fit_predict(kind, x_train, y, x_test)

    return OutcomeModel("multirocket", hourly_values, stack_days, head=head)


def grud_model(model: GRUDModel | None = None) -> OutcomeModel:
    """The ``grud`` model: PyPOTS GRU-D on weekly tensors (``model``: its settings)."""
    net = model if model is not None else GRUDModel()

    def head(
        kind: str,
        xs_train: list[FloatArray],
        y: FloatArray,
        xs_test: list[FloatArray],
        *,
        seed: int,
        n_jobs: int,
    ) -> FloatArray:
        del seed, n_jobs  # seeded and threaded by its own settings (GRUDModel)
        return net.fit_predict(kind, xs_train, y, xs_test)

    return OutcomeModel("grud", hourly_values, stack_days, dated=True, head=head)


def xgboost_model() -> OutcomeModel:
    """The ``xgboost`` model: hand-crafted window features (+ FPCA on train) and XGBoost heads."""

    def head(
        kind: str,
        xs_train: list[FloatArray],
        y: FloatArray,
        xs_test: list[FloatArray],
        *,
        seed: int,
        n_jobs: int,
    ) -> FloatArray:
        x_train = np.stack(xs_train) if xs_train else np.zeros((0, 0))
        return xgb_fit_predict(kind, x_train, y, np.stack(xs_test), seed=seed, n_jobs=n_jobs)

    return OutcomeModel(
        "xgboost", segment_summary, linear_features, window_features=xgb_window_features, head=head
    )


#: Built outcome models, keyed by name (replace an entry to change its settings, e.g.
#: ``OUTCOME_MODELS["multirocket"] = rocket_model(MultiRocketFeatures(n_kernels=6216))``).
OUTCOME_MODELS: dict[str, OutcomeModel] = {
    "linear": OutcomeModel("linear", segment_summary, linear_features),
    "multirocket": rocket_model(),
    "grud": grud_model(),
    "xgboost": xgboost_model(),
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
