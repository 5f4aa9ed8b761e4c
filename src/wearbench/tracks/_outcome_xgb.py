"""The XGBoost outcome model (seed 004, Track 1): hand-crafted features + train-only FPCA + xgboost-cpu.

Representation of one participant and task window (:func:`xgb_window_features`): the 531
hand-crafted features of :func:`~wearbench.tracks.participant_features` over the retained days in
the window, followed by the flattened ``(4, 1440)`` mean daily profiles
(:func:`~wearbench.tracks.mean_profiles`) of the FPCA channels. The head (:func:`xgb_fit_predict`)
fits :class:`~wearbench.tracks.CurveFPCA` (10 components per channel) on the **training**
participants' profiles only, replaces the profile columns of train and test by the 40 FPCA scores
(571 features in all, :data:`XGB_FEATURE_NAMES`) and fits one XGBoost model per task with the
seed's hyperparameters (:data:`XGB_PARAMS`; NaN handled natively):

- ``binary``: ``binary:logistic``, prediction = P(y = 1);
- ``ordinal``: ``reg:squarederror`` on the level index (scored by Spearman), prediction = the score;
- ``regression``: ``reg:squarederror``, prediction = the fitted value;
- ``multiclass``: ``multi:softprob`` over the classes seen in training, prediction = the most
  probable class index (classes unseen in training are never predicted).

A test participant with no finite hand-crafted feature gets NaN (the run substitutes Linear's
prediction and counts it). ``xgboost`` is imported lazily, on the first fit.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from numpy.typing import NDArray

from wearbench.minutes import MINUTES_PER_DAY
from wearbench.tracks._features import FEATURE_NAMES, N_FEATURES, participant_features
from wearbench.tracks._features_curve import FPCA_CHANNELS, CurveFPCA, fpca_names, mean_profiles

F64 = NDArray[np.float64]

#: The seed's XGBoost hyperparameters (L1 = ``reg_alpha``, L2 = ``reg_lambda``).
XGB_PARAMS: dict[str, Any] = {
    "n_estimators": 1000,
    "max_depth": 2,
    "learning_rate": 0.05,
    "subsample": 0.8,
    "colsample_bytree": 0.3,
    "reg_alpha": 0.1,
    "reg_lambda": 1.0,
    "tree_method": "hist",
}
#: FPCA components per channel (the seed: 10 x 4 channels = 40 scores).
XGB_FPCA_COMPONENTS = 10
#: Names of the model's input columns after the FPCA step: hand-crafted, then FPCA scores.
XGB_FEATURE_NAMES: tuple[str, ...] = (*FEATURE_NAMES, *fpca_names(XGB_FPCA_COMPONENTS))
#: Width of the window representation: 531 features + 4 x 1440 profile minutes.
N_WINDOW_COLUMNS = N_FEATURES + len(FPCA_CHANNELS) * MINUTES_PER_DAY
_OBJECTIVE = {
    "binary": "binary:logistic",
    "ordinal": "reg:squarederror",
    "regression": "reg:squarederror",
    "multiclass": "multi:softprob",
}


def xgb_window_features(days: NDArray[np.floating[Any]], dates: NDArray[np.datetime64]) -> F64:
    """The XGBoost representation of one participant's retained days in a task window.

    Args:
        days: ``(n, 19, 1440)`` retained minute days in the window (NaN = unobserved).
        dates: ``(n,)`` ``datetime64[D]`` dates of those days, strictly increasing.

    Returns:
        ``(N_WINDOW_COLUMNS,)`` = ``(531 + 5760,)`` float64: the hand-crafted features, then the
        mean profiles of :data:`~wearbench.tracks.FPCA_CHANNELS` flattened channel-major (NaN
        allowed throughout).
    """
    values, _ = participant_features(days, dates)
    return np.concatenate([values, mean_profiles(days).ravel()])


def fpca_design(x_train: F64, x_test: F64, n_components: int = XGB_FPCA_COMPONENTS) -> tuple[F64, F64]:
    """Replace the profile columns by FPCA scores fitted on the training rows only.

    Args:
        x_train: ``(n_train, N_WINDOW_COLUMNS)`` from :func:`xgb_window_features`.
        x_test: ``(n_test, N_WINDOW_COLUMNS)``.
        n_components: FPCA components per channel.

    Returns:
        ``(train, test)``: ``(n, 531 + 4 · n_components)`` each.

    Raises:
        ValueError: If a matrix does not have :data:`N_WINDOW_COLUMNS` columns.
    """
    for name, x in (("x_train", x_train), ("x_test", x_test)):
        if x.ndim != 2 or x.shape[1] != N_WINDOW_COLUMNS:
            raise ValueError(
                f"{name} must be (n, {N_WINDOW_COLUMNS}) from xgb_window_features; got {x.shape}"
            )
    shape = (len(FPCA_CHANNELS), MINUTES_PER_DAY)
    fpca = CurveFPCA(n_components).fit(x_train[:, N_FEATURES:].reshape(-1, *shape))
    train = np.hstack([x_train[:, :N_FEATURES], fpca.transform(x_train[:, N_FEATURES:].reshape(-1, *shape))])
    test = np.hstack([x_test[:, :N_FEATURES], fpca.transform(x_test[:, N_FEATURES:].reshape(-1, *shape))])
    return train, test


def xgb_estimator(kind: str, n_classes: int, *, seed: int = 0, n_jobs: int = 1, **params: Any) -> Any:
    """An unfitted ``xgboost`` estimator for a task kind (seed hyperparameters, overridable).

    Args:
        kind: ``binary``, ``ordinal``, ``regression`` or ``multiclass``.
        n_classes: Classes of a multiclass task (ignored otherwise).
        seed: ``random_state`` (row and column subsampling).
        n_jobs: Threads.
        **params: Overrides of :data:`XGB_PARAMS` (e.g. fewer trees in tests).

    Returns:
        An ``XGBClassifier`` (binary, multiclass) or ``XGBRegressor``.
    """
    import xgboost  # lazy: optional heavy dependency, only when the model is used

    args = {**XGB_PARAMS, **params, "random_state": seed, "n_jobs": n_jobs, "objective": _OBJECTIVE[kind]}
    if kind == "binary":
        return xgboost.XGBClassifier(**args)
    if kind == "multiclass":
        return xgboost.XGBClassifier(**args, num_class=n_classes)
    return xgboost.XGBRegressor(**args)


def xgb_fit_predict(
    kind: str,
    x_train: F64,
    y_train: F64,
    x_test: F64,
    *,
    seed: int = 0,
    n_jobs: int = 1,
    **params: Any,
) -> F64:
    """Fit FPCA (train only) and XGBoost for one task; predict the test participants.

    Args:
        kind: Task kind.
        x_train: ``(n_train, N_WINDOW_COLUMNS)`` window representations.
        y_train: ``(n_train,)`` labels (binary 0/1, level or class index, regression value).
        x_test: ``(n_test, N_WINDOW_COLUMNS)``.
        seed: ``random_state`` of XGBoost.
        n_jobs: XGBoost threads.
        **params: Overrides of :data:`XGB_PARAMS`.

    Returns:
        ``(n_test,)`` float64: P(1), a score or a class index; all NaN with fewer than 2 training
        rows, NaN for a test row without a finite hand-crafted feature.
    """
    if len(y_train) < 2 or len(x_test) == 0:
        return np.full(len(x_test), math.nan)
    train, test = fpca_design(np.asarray(x_train, np.float64), np.asarray(x_test, np.float64))
    y = np.asarray(y_train, dtype=np.float64)
    if kind == "binary":
        y = (y > 0.5).astype(np.float64)
    seen = np.unique(y) if kind == "multiclass" else np.zeros(0)
    model = xgb_estimator(kind, seen.size, seed=seed, n_jobs=n_jobs, **params)
    if kind == "binary" and np.unique(y).size < 2:
        out = np.full(len(test), float(y[0]))
    elif kind == "binary":
        out = model.fit(train, y).predict_proba(test)[:, 1]
    elif kind == "multiclass" and seen.size < 2:
        out = np.full(len(test), float(seen[0]))
    elif kind == "multiclass":  # classes re-indexed to the seen ones (xgboost wants 0..k-1)
        codes = np.searchsorted(seen, y).astype(np.int64)
        out = seen[np.argmax(model.fit(train, codes).predict_proba(test), axis=1)]
    else:
        out = model.fit(train, y).predict(test)
    usable = np.isfinite(test[:, :N_FEATURES]).any(axis=1)
    return np.where(usable, np.asarray(out, dtype=np.float64), math.nan)
