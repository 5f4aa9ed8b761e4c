"""OpenMHC's learned imputation models through PyPOTS (seed 004, Track 2), on CPU, small.

A minute day ``(19, 1440)`` is too long a sequence for PyPOTS's models on CPU (SAITS: ~112 s an
epoch for 200 days). Folding ``p`` consecutive minutes of every channel into the features
(:func:`fold_patches`) gives ``1440 / p`` steps of ``19 * p`` features (p = 10: 144 steps, 190
features) and the same models train in about a second an epoch. The 7-day model folds a window of
7 calendar days (10,080 minutes, :mod:`wearbench.tracks._windows7`) the same way: 1,008 steps.

:data:`LEARNED_IMPUTERS` names each model's PyPOTS class, its default hyperparameters and its
window; :class:`LearnedImputer` has the fit/impute protocol of the baselines. Values are
standardised per channel with the training split's mean and standard deviation over observed
minutes (the seed's train-set standardisation). PyPOTS and torch are optional (``pip install -e
".[learn]"``) and imported only inside :meth:`LearnedImputer.fit`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from wearbench._errors import WearbenchError
from wearbench.minutes import MINUTES_PER_DAY, N_CHANNELS
from wearbench.tracks._pypots import import_pypots, seed_everything
from wearbench.tracks._windows7 import day_windows, windows_to_days

F64 = NDArray[np.float64]
F32 = NDArray[np.float32]

#: Default minutes per patch, training epochs and batch size of :class:`LearnedImputer`.
PATCH_MINUTES = 10
DEFAULT_EPOCHS = 5
DEFAULT_BATCH_SIZE = 32


@dataclass(frozen=True)
class LearnedModel:
    """A learned imputation model: its PyPOTS class, hyperparameters and window.

    Attributes:
        model: PyPOTS class name in ``pypots.imputation``.
        params: Default hyperparameters (besides n_steps, n_features, epochs, batch_size).
        window_days: 1 (a day is a sample) or 7 (a 7-calendar-day window is a sample).
        doc: One line on the model.
    """

    model: str
    params: dict[str, Any] = field(default_factory=dict)
    window_days: int = 1
    doc: str = ""


#: The learned models by name. DLinear's moving-average window is in steps of ``patch_minutes``
#: (5 steps = 50 min, the seed's 51-minute window at p = 10).
LEARNED_IMPUTERS: dict[str, LearnedModel] = {
    "brits": LearnedModel("BRITS", {"rnn_hidden_size": 32}, 1, "bidirectional recurrent imputation"),
    "saits": LearnedModel(
        "SAITS", {"n_layers": 2, "d_model": 64, "n_heads": 4, "d_k": 16, "d_v": 16, "d_ffn": 64}, 1,
        "self-attention imputation (two diagonally-masked attention blocks)",
    ),
    "dlinear": LearnedModel(
        "DLinear", {"moving_avg_window_size": 5, "individual": False, "d_model": 64}, 1,
        "trend + seasonal linear decomposition, one day",
    ),
    "timesnet": LearnedModel(
        "TimesNet", {"n_layers": 2, "top_k": 3, "d_model": 32, "d_ffn": 32, "n_kernels": 3}, 1,
        "2-D temporal variation via FFT periods",
    ),
    "dlinear_7d": LearnedModel(
        "DLinear", {"moving_avg_window_size": 5, "individual": False, "d_model": 64}, 7,
        "DLinear over 7-calendar-day windows (gaps and tail padding all-NaN)",
    ),
}  # fmt: skip


def fold_patches(x: NDArray[np.floating[Any]], patch: int) -> F32:
    """Fold ``patch`` consecutive minutes of every channel into the features.

    Args:
        x: ``(n, C, T)`` values, ``T`` a multiple of ``patch``.
        patch: Minutes per step.

    Returns:
        ``(n, T // patch, C * patch)`` float32; feature ``c * patch + j`` is minute ``j`` of the
        step in channel ``c``.
    """
    n, c, t = x.shape
    if patch < 1 or t % patch:
        raise ValueError(f"patch must divide the {t} minutes; got {patch}")
    z = np.asarray(x, dtype=np.float32).reshape(n, c, t // patch, patch)
    return np.ascontiguousarray(z.transpose(0, 2, 1, 3).reshape(n, t // patch, c * patch))


def unfold_patches(z: NDArray[np.floating[Any]], n_channels: int) -> F32:
    """Inverse of :func:`fold_patches`: ``(n, S, C * p)`` -> ``(n, C, S * p)`` float32."""
    n, s, f = z.shape
    if f % n_channels:
        raise ValueError(f"{f} features are not a multiple of {n_channels} channels")
    p = f // n_channels
    out = np.asarray(z, dtype=np.float32).reshape(n, s, n_channels, p).transpose(0, 2, 1, 3)
    return np.ascontiguousarray(out.reshape(n, n_channels, s * p))


def standardisation(train: NDArray[np.floating[Any]]) -> tuple[F64, F64]:
    """Per-channel mean and standard deviation over the observed minutes of ``(n, C, T)`` days.

    A channel without observations gets mean 0; a standard deviation of 0 (or undefined) becomes 1.

    Returns:
        ``(mean, std)``, each ``(C,)`` float64.
    """
    d = np.asarray(train, dtype=np.float64)
    obs = ~np.isnan(d)
    n = obs.sum(axis=(0, 2))
    mean = np.where(n > 0, np.nansum(d, axis=(0, 2)) / np.maximum(n, 1), 0.0)
    sq = np.nansum((d - mean[None, :, None]) ** 2, axis=(0, 2))
    std = np.sqrt(np.where(n > 0, sq / np.maximum(n, 1), 0.0))
    return mean, np.where(std > 0, std, 1.0)


def _channel_range(train: NDArray[np.floating[Any]]) -> F64:
    """``(2, C)``: per-channel minimum and maximum over the observed values of ``(n, C, T)`` days."""
    d = np.asarray(train, dtype=np.float64)
    obs = ~np.isnan(d)
    lo = np.where(obs, d, np.inf).min(axis=(0, 2))
    hi = np.where(obs, d, -np.inf).max(axis=(0, 2))
    empty = ~obs.any(axis=(0, 2))
    return np.stack([np.where(empty, np.nan, lo), np.where(empty, np.nan, hi)])


class LearnedImputer:
    """One learned model of :data:`LEARNED_IMPUTERS` behind the baselines' fit/impute protocol.

    Args:
        name: The model (a key of :data:`LEARNED_IMPUTERS`).
        patch_minutes: Minutes folded into one step (must divide 1,440).
        epochs: Training epochs.
        batch_size: Samples per batch.
        seed: Seeds numpy, torch and PyPOTS before building, training and predicting.
        max_train_days: Train on at most this many days (1-day models) or ``max_train_days // 7``
            windows (7-day models, at least 1), a seeded choice kept in order; None = all.
        n_threads: torch CPU threads (``torch.set_num_threads``); None = leave as is.
        params: Hyperparameters overriding the registry's defaults.
        clip: Clip predictions to each channel's observed training range (``range_``): a count
            channel never goes negative, a binary channel stays in [0, 1].

    Raises:
        ValueError: For an unknown name.
    """

    def __init__(
        self,
        name: str,
        *,
        patch_minutes: int = PATCH_MINUTES,
        epochs: int = DEFAULT_EPOCHS,
        batch_size: int = DEFAULT_BATCH_SIZE,
        seed: int = 0,
        max_train_days: int | None = None,
        n_threads: int | None = None,
        params: dict[str, Any] | None = None,
        clip: bool = True,
    ) -> None:
        if name not in LEARNED_IMPUTERS:
            raise ValueError(
                f"unknown learned imputation model {name!r}; known: {', '.join(LEARNED_IMPUTERS)}"
            )
        self.name = name
        self.patch_minutes = patch_minutes
        self.epochs = epochs
        self.batch_size = batch_size
        self.seed = seed
        self.max_train_days = max_train_days
        self.n_threads = n_threads
        self.params = params
        self.clip = clip

    @property
    def spec(self) -> LearnedModel:
        """The registry entry."""
        return LEARNED_IMPUTERS[self.name]

    def hyperparameters(self) -> dict[str, Any]:
        """The registry's defaults updated with ``params``."""
        return {**self.spec.params, **(self.params or {})}

    def _samples(
        self, x: NDArray[np.floating[Any]], users: NDArray[Any] | None, dates: NDArray[np.datetime64] | None
    ) -> tuple[F64, NDArray[np.int64] | None]:
        """Standardised samples ``(n, 19, T)`` (T = 1440 or 10,080) and, for 7-day, day_offsets."""
        z = (np.asarray(x, dtype=np.float64) - self.mean_[:, None]) / self.std_[:, None]
        if self.spec.window_days == 1:
            return z, None
        dw = day_windows(z, users, dates, window=self.spec.window_days)
        w = dw.windows.transpose(0, 2, 1, 3).reshape(dw.windows.shape[0], N_CHANNELS, -1)
        return w.astype(np.float64), dw.day_offsets

    def settings(self) -> dict[str, Any]:
        """JSON-ready settings of the run (for a RESULTS manifest)."""
        out: dict[str, Any] = {
            "model": self.spec.model,
            "window_days": self.spec.window_days,
            "params": self.hyperparameters(),
            "patch_minutes": self.patch_minutes,
            "epochs": self.epochs,
            "batch_size": self.batch_size,
            "seed": self.seed,
            "max_train_days": self.max_train_days,
            "clip": self.clip,
        }
        if hasattr(self, "train_samples_"):
            out["train_samples"] = self.train_samples_
            out["train_days"] = self.train_days_
        return out

    def fit(
        self,
        train: NDArray[np.floating[Any]],
        users: NDArray[Any] | None = None,
        dates: NDArray[np.datetime64] | None = None,
    ) -> LearnedImputer:
        """Standardise with ``train``'s statistics, fold, and train the PyPOTS model.

        Args:
            train: Training days ``(n, 19, 1440)`` float, NaN = unobserved.
            users: ``(n,)`` user id per day (7-day windows are per user); None = one user.
            dates: ``(n,)`` ``datetime64[D]`` per day (7-day windows); None = consecutive days.

        Returns:
            self, with ``mean_``, ``std_`` ``(19,)``, ``range_`` ``(2, 19)`` (observed training
            minimum and maximum per channel, NaN for an empty channel), ``model_`` and the
            training sizes.

        Raises:
            WearbenchError: Without PyPOTS / torch installed, or without training days.
        """
        imputation = import_pypots("imputation", f"learned imputation model {self.name!r}", self.n_threads)
        if train.shape[0] == 0:
            raise WearbenchError(f"learned imputer {self.name!r}: no training day to fit on")
        self.mean_, self.std_ = standardisation(train)
        self.range_ = _channel_range(train)
        samples, offsets = self._samples(train, users, dates)
        per = 1 if offsets is None else self.spec.window_days
        if self.max_train_days is not None and samples.shape[0] * per > self.max_train_days:
            k = max(1, self.max_train_days // per)
            keep = np.sort(np.random.default_rng(self.seed).choice(samples.shape[0], k, replace=False))
            samples = samples[keep]
            offsets = None if offsets is None else offsets[keep]
        self.train_samples_ = int(samples.shape[0])
        self.train_days_ = self.train_samples_ if offsets is None else int((offsets >= 0).sum())
        z = fold_patches(samples, self.patch_minutes)
        seed_everything(self.seed)
        cls = getattr(imputation, self.spec.model)
        self.model_ = cls(n_steps=z.shape[1], n_features=z.shape[2], epochs=self.epochs,
                          batch_size=self.batch_size, saving_path=None, verbose=False,
                          **self.hyperparameters())  # fmt: skip
        self.model_.fit({"X": z})
        return self

    def impute(
        self,
        x: NDArray[np.floating[Any]],
        users: NDArray[Any] | None = None,
        dates: NDArray[np.datetime64] | None = None,
    ) -> F64:
        """A filled copy of masked days ``x`` ``(n, 19, 1440)``: observed cells kept, NaN predicted.

        Args:
            x: Masked days, float, NaN = to fill.
            users: ``(n,)`` user id per day (7-day windows); None = one user.
            dates: ``(n,)`` ``datetime64[D]`` per day (7-day windows); None = consecutive days.

        Returns:
            ``(n, 19, 1440)`` float64, de-standardised.

        Raises:
            ValueError: If called before :meth:`fit`.
        """
        if not hasattr(self, "model_"):
            raise ValueError(f"imputer {self.name!r} is not fitted; call fit(train) first")
        xd = np.asarray(x, dtype=np.float64)
        if xd.shape[0] == 0:
            return xd.copy()
        samples, offsets = self._samples(xd, users, dates)
        seed_everything(self.seed)
        pred = np.asarray(self.model_.predict({"X": fold_patches(samples, self.patch_minutes)})["imputation"])
        days = unfold_patches(pred, N_CHANNELS).astype(np.float64)
        if offsets is not None:
            w = days.reshape(days.shape[0], N_CHANNELS, self.spec.window_days, MINUTES_PER_DAY)
            days = windows_to_days(w.transpose(0, 2, 1, 3), offsets, xd.shape[0])
        days = days * self.std_[:, None] + self.mean_[:, None]
        if self.clip:
            lo = np.nan_to_num(self.range_[0], nan=-np.inf)[:, None]  # an empty channel: no bound
            days = np.clip(days, lo, np.nan_to_num(self.range_[1], nan=np.inf)[:, None])
        return np.where(np.isnan(xd), days, xd)
