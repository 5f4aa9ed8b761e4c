"""MultiRocket + PCA participant representation for the outcome track (seed 004, Track 1).

Per retained day, the hourly segment's 19 values (:func:`hourly_values`, NaN at missing hours) are
one ``(19, 24)`` series: aeon's MultiRocket needs series longer than its kernel length 9, and 24
hours is the seed's segment, so the per-day series is kept (not the ``(19, 168)`` week). On each
task's training participants (:meth:`MultiRocketFeatures.train_test`):

1. per channel, the mean and SD over every observed training hour; every segment is z-scored with
   them and NaN set to 0 (the seed's zero-fill);
2. MultiRocket (``n_kernels`` kernels x 4 pooling operators x {values, first difference}; the seed:
   6,216 kernels = 49,728 dims) is fitted, seeded, on at most ``max_fit_segments`` training
   segments (MultiRocket's fit draws its biases from a few of them);
3. each participant's segments in the window are transformed and the features averaged;
4. PCA (:class:`Pca`, numpy, on the centred training matrix) to ``n_components`` (50; fewer when
   the training matrix has a lower rank), fitted on the training participants only.

The Linear heads are then fitted on the 50 components (``_outcome_models``). aeon is optional
(``pip install -e ".[tracks]"``) and imported only when the transform is built.
"""

from __future__ import annotations

import hashlib
import importlib
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from wearbench._errors import WearbenchError
from wearbench.minutes import HOURS_PER_DAY, N_CHANNELS
from wearbench.tracks._hourly import hourly

FloatArray = npt.NDArray[np.float64]
#: Default kernels on CPU (aeon rounds to a multiple of 84: 924 kernels = 7,392 dims).
DEFAULT_KERNELS = 924
#: The seed's kernel count (49,728 dims).
SEED_KERNELS = 6216
#: PCA components (the seed).
PCA_COMPONENTS = 50
#: Segments transformed per aeon call (bounds memory at the seed's 49,728 dims).
CHUNK_SEGMENTS = 256


def hourly_values(days: npt.NDArray[np.float32]) -> FloatArray:
    """Per-day hourly values, flattened time-major.

    Args:
        days: ``(n, 19, 1440)`` minute days (NaN = unobserved).

    Returns:
        ``(n, 24 * 19)`` float64: hour ``h``, channel ``c`` at column ``19 h + c``; NaN at a
        missing hour (units as :func:`~wearbench.tracks.hourly`).
    """
    seg = hourly(days, nan_missing=True)[:, :, :N_CHANNELS]
    return np.asarray(seg.reshape(seg.shape[0], HOURS_PER_DAY * N_CHANNELS), dtype=np.float64)


def stack_days(per_day: FloatArray) -> FloatArray:
    """Keep the window's per-day rows as they are: ``(n_window, k)`` (the model pools later)."""
    return np.array(per_day, dtype=np.float64)


def inputs_key(*groups: Sequence[FloatArray]) -> bytes:
    """SHA-256 over the shapes and bytes of every array of every group (a cache key)."""
    h = hashlib.sha256()
    for group in groups:
        h.update(f"|{len(group)}|".encode())
        for x in group:
            a = np.ascontiguousarray(x)
            h.update(repr(a.shape).encode())
            h.update(a.tobytes())
    return h.digest()


def _aeon_multirocket() -> Any:
    try:
        module = importlib.import_module("aeon.transformations.collection.convolution_based")
    except ImportError as e:
        raise WearbenchError(
            f"outcome method 'multirocket' needs aeon ({e}); install it with: pip install -e \".[tracks]\""
        ) from e
    return module.MultiRocket


def _series(rows: FloatArray) -> FloatArray:
    """``(n, 456)`` per-day rows → ``(n, 19, 24)`` channel-major series."""
    return np.ascontiguousarray(rows.reshape(-1, HOURS_PER_DAY, N_CHANNELS).transpose(0, 2, 1))


@dataclass(frozen=True)
class Pca:
    """Principal components fitted on training rows.

    Attributes:
        mean: ``(d,)`` training mean.
        components: ``(k, d)`` orthonormal rows (sign fixed: largest-magnitude loading positive).
    """

    mean: FloatArray
    components: FloatArray

    @classmethod
    def fit(cls, x: FloatArray, n_components: int) -> Pca:
        """From ``(n, d)`` training rows; keeps ``min(n_components, rank)`` components.

        With ``n < d`` (the usual case: 49,728 dims) the components come from the eigenvectors of
        the ``(n, n)`` Gram matrix of the centred rows (the SVD's right singular vectors), which
        is much cheaper than an SVD of the wide matrix.
        """
        mean = x.mean(axis=0)
        xc = x - mean
        if xc.shape[0] < xc.shape[1]:
            w, u = np.linalg.eigh(xc @ xc.T)
            order = np.argsort(w)[::-1]
            w, u = w[order], u[:, order]
            keep = w > 1e-10 * max(float(w[0]), 1e-300)
            comps = (u[:, keep].T @ xc) / np.sqrt(w[keep])[:, None]
        else:
            w, v = np.linalg.eigh(xc.T @ xc)
            order = np.argsort(w)[::-1]
            comps = v[:, order[w[order] > 1e-10 * max(float(w[order[0]]), 1e-300)]].T
        comps = comps[:n_components]
        sign = np.sign(comps[np.arange(comps.shape[0]), np.argmax(np.abs(comps), axis=1)])
        return cls(mean, comps * np.where(sign == 0, 1.0, sign)[:, None])

    def transform(self, x: FloatArray) -> FloatArray:
        """``(n, d)`` → ``(n, k)`` scores."""
        return np.asarray((x - self.mean) @ self.components.T, dtype=np.float64)


@dataclass(frozen=True)
class MultiRocketFeatures:
    """Fits MultiRocket + PCA on a task's training participants (see the module docstring).

    Attributes:
        n_kernels: MultiRocket kernels (default 924 on CPU; :data:`SEED_KERNELS` the seed's).
        n_components: PCA components.
        seed: MultiRocket's ``random_state`` and the fit-subset draw.
        max_fit_segments: Most training segments MultiRocket's fit sees.
        n_jobs: aeon's ``n_jobs``.
    """

    n_kernels: int = DEFAULT_KERNELS
    n_components: int = PCA_COMPONENTS
    seed: int = 0
    max_fit_segments: int = 2000
    n_jobs: int = 1

    def train_test(
        self, xs_train: Sequence[FloatArray], xs_test: Sequence[FloatArray]
    ) -> tuple[FloatArray, FloatArray]:
        """Participant features for the training and test participants.

        Args:
            xs_train: Per training participant, ``(n_days, 456)`` from :func:`hourly_values`.
            xs_test: The same for the test participants.

        Returns:
            ``(n_train, k)`` and ``(n_test, k)`` PCA scores, ``k = min(n_components, n_train)``.

        Raises:
            WearbenchError: aeon is not installed, or no training segment.
        """
        if not xs_train or sum(len(x) for x in xs_train) == 0:
            raise WearbenchError("multirocket: no training segment to fit on")
        train = _series(np.concatenate(list(xs_train)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)
            mean = np.nan_to_num(np.nanmean(train, axis=(0, 2)))
            sd = np.nan_to_num(np.nanstd(train, axis=(0, 2)))
        sd = np.where(sd > 0, sd, 1.0)
        rng = np.random.default_rng(self.seed)
        pick = np.sort(rng.choice(len(train), min(len(train), self.max_fit_segments), replace=False))
        rocket = _aeon_multirocket()(n_kernels=self.n_kernels, random_state=self.seed, n_jobs=self.n_jobs)
        rocket.fit(self._zscore(train[pick], mean, sd))
        f_train = self._pooled(rocket, xs_train, mean, sd)
        f_test = self._pooled(rocket, xs_test, mean, sd)
        pca = Pca.fit(f_train, self.n_components)
        return pca.transform(f_train), pca.transform(f_test)

    @staticmethod
    def _zscore(series: FloatArray, mean: FloatArray, sd: FloatArray) -> npt.NDArray[np.float32]:
        z = (series - mean[None, :, None]) / sd[None, :, None]
        return np.nan_to_num(z, nan=0.0).astype(np.float32)

    def _pooled(self, rocket: Any, xs: Sequence[FloatArray], mean: FloatArray, sd: FloatArray) -> FloatArray:
        """Transform every participant's segments (in chunks) and average per participant."""
        if not xs:
            return np.zeros((0, 1))
        counts = np.array([len(x) for x in xs])
        series = self._zscore(_series(np.concatenate(list(xs))), mean, sd)
        feats = np.concatenate(
            [np.asarray(rocket.transform(series[i : i + CHUNK_SEGMENTS]), dtype=np.float64)
             for i in range(0, len(series), CHUNK_SEGMENTS)]
        )  # fmt: skip
        sums = np.add.reduceat(feats, np.concatenate([[0], np.cumsum(counts)[:-1]]), axis=0)
        out = sums / np.maximum(counts, 1)[:, None]
        out[counts == 0] = np.nan
        return np.asarray(out, dtype=np.float64)
