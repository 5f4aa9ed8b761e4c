"""Curve features of the mean 24-hour profiles: HR cosinor, HR-over-steps, interdaily stability, FPCA.

A participant's mean daily profile of a channel is the mean over the retained days of each minute
of the day (NaN where the minute is never observed).

- Cosinor (:func:`cosinor`): ``y(t) = M + b₁ cos(ωt) + b₂ sin(ωt)``, ``ω = 2π / 1440`` per minute,
  least squares on the observed minutes of the mean HR profile. MESOR ``M`` (bpm), amplitude
  ``A = √(b₁² + b₂²)`` (bpm), acrophase = clock time of the fitted peak,
  ``(atan2(b₂, b₁) mod 2π) · 24 / 2π`` hours in [0, 24), ``R² = 1 − SSE / SST``, p-value of the
  F test of the rhythm (``F = (SSR / 2) / (SSE / (n − 3))`` on 2 and ``n − 3`` degrees of freedom),
  ``A / M`` and the number of fitted minutes ``n``. Fewer than :data:`MIN_COSINOR_MINUTES` minutes:
  everything NaN except ``n``.
- HR over steps (HROS, bpm per step/min): each minute with steps > 0 (combined steps) and an
  observed HR gives ``HR / steps``; these are averaged per clock hour over all days into a 24-hour
  profile; features: its mean and SD (ddof 1) over observed hours, daytime mean (08–20 h), night
  mean (00–06 h) and daytime / night ratio.
- Interdaily stability of hourly steps (dimensionless, 0–1):
  ``IS = (N Σ_h (x̄_h − x̄)²) / (24 Σ_i (x_i − x̄)²)`` over the ``N`` observed day-hours ``x_i``,
  ``x̄_h`` the mean of clock hour ``h``.
- :class:`CurveFPCA`: a population fit (training users) of functional PCA on the mean profiles of
  :data:`FPCA_CHANNELS`, binned to 10-minute means; scores are separate from
  :func:`~wearbench.tracks.participant_features` because they need the fit.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import stats

from wearbench.minutes import ACTIVE_ENERGY, ASLEEP, HR, MINUTES_PER_DAY
from wearbench.tracks._features_daily import DAYTIME, NIGHT, combined_steps, quiet_nan

FloatArray = NDArray[np.floating[Any]]
F64 = NDArray[np.float64]

MIN_COSINOR_MINUTES = 60  #: fewest observed profile minutes for a cosinor fit
COSINOR_NAMES: tuple[str, ...] = (
    "hr_cosinor_mesor",
    "hr_cosinor_amplitude",
    "hr_cosinor_acrophase_h",
    "hr_cosinor_r2",
    "hr_cosinor_p",
    "hr_cosinor_amp_over_mesor",
    "hr_cosinor_n_minutes",
)
HROS_NAMES: tuple[str, ...] = (
    "hros_mean",
    "hros_sd",
    "hros_day_mean",
    "hros_night_mean",
    "hros_day_night_ratio",
)
CURVE_NAMES: tuple[str, ...] = (*COSINOR_NAMES, *HROS_NAMES, "steps_interdaily_stability")
N_CURVE = len(CURVE_NAMES)  #: 13
#: Channels of the FPCA profiles (watch steps, HR, active energy, asleep) and their short names.
FPCA_CHANNELS: tuple[int, ...] = (3, HR, ACTIVE_ENERGY, ASLEEP)
FPCA_SHORT: tuple[str, ...] = ("watch_steps", "hr", "active_energy", "asleep")
FPCA_BIN_MINUTES = 10


@dataclass(frozen=True)
class Cosinor:
    """A single-component 24-h cosinor fit (see the module docstring for the formulas)."""

    mesor: float
    amplitude: float
    acrophase_h: float
    r2: float
    p_value: float
    amp_over_mesor: float
    n_minutes: int

    def values(self) -> F64:
        """The 7 numbers in :data:`COSINOR_NAMES` order."""
        return np.array(
            [
                self.mesor,
                self.amplitude,
                self.acrophase_h,
                self.r2,
                self.p_value,
                self.amp_over_mesor,
                self.n_minutes,
            ],
            dtype=np.float64,
        )


def cosinor(minutes: FloatArray, values: FloatArray, period: float = MINUTES_PER_DAY) -> Cosinor:
    """Fit ``M + b₁ cos(2πt / period) + b₂ sin(2πt / period)`` by least squares.

    Args:
        minutes: ``(n,)`` times ``t`` in minutes (minute of day for the HR profile).
        values: ``(n,)`` observations (bpm); non-finite ones are dropped.
        period: Period in minutes (1440).

    Returns:
        The fit; all NaN except ``n_minutes`` with fewer than :data:`MIN_COSINOR_MINUTES` finite
        values or a rank-deficient design. ``r2`` and ``p_value`` are NaN for a constant series.
    """
    t = np.asarray(minutes, dtype=np.float64)
    y = np.asarray(values, dtype=np.float64)
    ok = np.isfinite(y) & np.isfinite(t)
    n = int(ok.sum())
    nan = math.nan
    if n < MIN_COSINOR_MINUTES:
        return Cosinor(nan, nan, nan, nan, nan, nan, n)
    w = 2.0 * math.pi * t[ok] / period
    design = np.stack([np.ones(n), np.cos(w), np.sin(w)], axis=1)
    coef, _, rank, _ = np.linalg.lstsq(design, y[ok], rcond=None)
    if rank < 3:
        return Cosinor(nan, nan, nan, nan, nan, nan, n)
    m, b1, b2 = (float(c) for c in coef)
    amp = math.hypot(b1, b2)
    phase = (math.atan2(b2, b1) % (2.0 * math.pi)) * 24.0 / (2.0 * math.pi)
    resid = y[ok] - design @ coef
    sse = float(resid @ resid)
    sst = float(((y[ok] - y[ok].mean()) ** 2).sum())
    r2, p = nan, nan
    if sst > 0:
        r2 = 1.0 - sse / sst
        ssr = max(sst - sse, 0.0)
        p = 0.0 if sse <= 1e-12 * sst else float(stats.f.sf((ssr / 2.0) / (sse / (n - 3)), 2, n - 3))
    return Cosinor(m, amp, phase, r2, p, amp / m if m != 0 else nan, n)


def mean_profiles(days: FloatArray, channels: tuple[int, ...] = FPCA_CHANNELS) -> F64:
    """``(len(channels), 1440)`` mean over days of each minute (NaN where never observed)."""
    x = np.asarray(days)
    if x.shape[0] == 0:
        return np.full((len(channels), MINUTES_PER_DAY), np.nan)
    return np.asarray(quiet_nan(np.nanmean, np.asarray(x[:, list(channels), :], dtype=np.float64), axis=0))


def hros_features(days: FloatArray) -> F64:
    """The 5 HR-over-steps statistics (:data:`HROS_NAMES`; bpm per step/min, the ratio unitless)."""
    x = np.asarray(days)
    if x.shape[0] == 0:
        return np.full(len(HROS_NAMES), np.nan)
    steps = combined_steps(x)
    hr = np.asarray(x[:, HR, :], dtype=np.float64)
    ok = np.isfinite(hr) & np.isfinite(steps) & (steps > 0)
    ratio = np.where(ok, hr / np.where(ok, steps, 1.0), 0.0).reshape(-1, 24, 60)
    cnt = ok.reshape(-1, 24, 60).sum(axis=(0, 2))
    prof = np.where(cnt > 0, ratio.sum(axis=(0, 2)) / np.maximum(cnt, 1), np.nan)
    day = quiet_nan(np.nanmean, prof[DAYTIME.start // 60 : DAYTIME.stop // 60])
    night = quiet_nan(np.nanmean, prof[NIGHT.start // 60 : NIGHT.stop // 60])
    sd = quiet_nan(np.nanstd, prof, ddof=1) if np.isfinite(prof).sum() >= 2 else np.nan
    ratio_dn = day / night if np.isfinite(night) and night > 0 else np.nan
    return np.array([quiet_nan(np.nanmean, prof), sd, day, night, ratio_dn], dtype=np.float64)


def interdaily_stability(days: FloatArray) -> float:
    """IS of hourly combined steps over the participant's days (NaN with < 2 days or no variance)."""
    x = np.asarray(days)
    if x.shape[0] < 2:
        return math.nan
    s = combined_steps(x).reshape(x.shape[0], 24, 60)
    ok = np.isfinite(s)
    hourly = np.where(ok.any(axis=-1), np.where(ok, s, 0.0).sum(axis=-1), np.nan)
    hok = np.isfinite(hourly)
    n = int(hok.sum())
    if n < 2:
        return math.nan
    grand = float(hourly[hok].mean())
    hour_mean = quiet_nan(np.nanmean, hourly, axis=0)
    ss = float(((hourly[hok] - grand) ** 2).sum())
    between = float(np.nansum((hour_mean - grand) ** 2))
    return n * between / (24.0 * ss) if ss > 0 else math.nan


def curve_features(days: FloatArray) -> F64:
    """``(N_CURVE,)``: HR cosinor (7), HROS (5) and steps IS (1) of one participant's days."""
    hr_profile = mean_profiles(days, (HR,))[0]
    fit = cosinor(np.arange(MINUTES_PER_DAY, dtype=np.float64), hr_profile)
    return np.concatenate([fit.values(), hros_features(days), [interdaily_stability(days)]])


def fpca_names(n_components: int = 10) -> tuple[str, ...]:
    """Names of :meth:`CurveFPCA.transform`'s columns: channel-major, then component."""
    return tuple(f"fpca_{c}_pc{k + 1}" for c in FPCA_SHORT for k in range(n_components))


def _binned(profiles: FloatArray) -> F64:
    p = np.asarray(profiles, dtype=np.float64)
    if p.ndim != 3 or p.shape[1:] != (len(FPCA_CHANNELS), MINUTES_PER_DAY):
        raise ValueError(
            f"profiles must be (n, {len(FPCA_CHANNELS)}, {MINUTES_PER_DAY}) from mean_profiles; got {p.shape}"
        )
    nb = MINUTES_PER_DAY // FPCA_BIN_MINUTES
    return np.asarray(quiet_nan(np.nanmean, p.reshape(p.shape[0], p.shape[1], nb, FPCA_BIN_MINUTES), axis=-1))


class CurveFPCA:
    """Functional PCA of mean daily profiles, fitted on the training users.

    Each profile (:func:`mean_profiles`, ``(4, 1440)``) is binned to 144 ten-minute means; per
    channel, missing bins are filled with the training mean of the bin, the training mean is
    subtracted and the principal components come from an SVD of the training matrix. Scores of a
    user whose channel profile is all NaN are NaN; components beyond the training rank score NaN.

    Args:
        n_components: Components per channel (the seed: 10).
    """

    def __init__(self, n_components: int = 10) -> None:
        self.n_components = n_components

    def fit(self, profiles: FloatArray) -> CurveFPCA:
        """Fit on ``(n_train, 4, 1440)`` profiles; returns self."""
        if self.n_components < 1:
            raise ValueError(f"n_components must be >= 1; got {self.n_components}")
        b = _binned(profiles)
        mean = quiet_nan(np.nanmean, b, axis=0)
        self.mean_ = np.where(np.isfinite(mean), mean, 0.0)
        comps = np.full((b.shape[1], self.n_components, b.shape[2]), np.nan)
        evr = np.full((b.shape[1], self.n_components), np.nan)
        for c in range(b.shape[1]):
            rows = np.isfinite(b[:, c, :]).any(axis=-1)
            if rows.sum() < 2:
                continue
            z = np.where(np.isfinite(b[rows, c, :]), b[rows, c, :], self.mean_[c]) - self.mean_[c]
            _, s, vt = np.linalg.svd(z, full_matrices=False)
            k = min(self.n_components, int((s > 1e-6 * max(s[0], 1e-300)).sum()))
            comps[c, :k] = vt[:k]
            evr[c, :k] = s[:k] ** 2 / max(float((s**2).sum()), 1e-300)
        self.components_ = comps
        self.explained_variance_ratio_ = evr
        return self

    def transform(self, profiles: FloatArray) -> F64:
        """``(n, 4 · n_components)`` scores in :func:`fpca_names` order."""
        if not hasattr(self, "components_"):
            raise RuntimeError("CurveFPCA.transform called before fit")
        b = _binned(profiles)
        out = np.full((b.shape[0], b.shape[1], self.n_components), np.nan)
        for c in range(b.shape[1]):
            seen = np.isfinite(b[:, c, :]).any(axis=-1)
            z = np.where(np.isfinite(b[:, c, :]), b[:, c, :], self.mean_[c]) - self.mean_[c]
            sc = z @ np.nan_to_num(self.components_[c].T)
            sc[:, ~np.isfinite(self.components_[c, :, 0])] = np.nan
            sc[~seen] = np.nan
            out[:, c, :] = sc
        return out.reshape(b.shape[0], -1)
