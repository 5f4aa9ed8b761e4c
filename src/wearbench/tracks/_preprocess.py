"""The seed's day-level preprocessing of OpenMHC minute days, as pure numpy kernels.

Input everywhere: minute days ``x`` of shape ``(n_days, 19, 1440)`` float32 in the seed's channel order
(:mod:`wearbench.minutes`), NaN where unobserved, binary channels 0/1; and a non-wear vector
``nonwear`` of shape ``(n_days, 1440)`` bool (True = a non-wear minute). Steps, in the seed's order
(``../shared/specs/openmhc.md``, "Day-level preprocessing"; ``docs/openmhc-preprocessing.md``):

1. :func:`wear_filter`: keep a day with at most 720 non-wear minutes;
2. :func:`low_variance_filter`: on wear-kept days, drop near-constant days;
   :func:`retained_days` combines 1 and 2;
3. :func:`zero_to_nan`: re-label implausible zeros as missing (values only, no day removal);
4. hourly aggregation (``_hourly.py``) and 5. weekly windows (``_weekly.py``).

No function mutates its input; every tuning value is a keyword argument with the seed's default.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import numpy.typing as npt

from wearbench.minutes import ASLEEP, HR, MINUTES_PER_DAY, N_CHANNELS, SLEEP, ZERO_DAY_CHANNELS

#: The seed's wear-time cutoff: a day with more non-wear minutes than this is dropped (≥ 12 h wear).
MAX_NONWEAR_MINUTES = 720
#: The seed's low-variance thresholds per channel (flights, channel 2, exempt): 1.0 for iPhone and
#: Watch steps and distance and Watch active energy, 1e-4 for Watch heart rate.
VARIANCE_THRESHOLDS: Mapping[int, float] = {0: 1.0, 1: 1.0, 3: 1.0, 4: 1.0, 6: 1.0, HR: 1e-4}
#: Delta degrees of freedom of the within-day variance: 1 (sample variance, pandas' default). The seed
#: does not name it, but says channels can have "undefined variance because of insufficient observed
#: values", which only ddof=1 gives for a channel-day with observations (one observed minute).
VARIANCE_DDOF = 1
#: The seed's sleep rule: below this many asleep minutes (3 h), zero sleep minutes become NaN.
MIN_SLEEP_MINUTES = 180

FloatArray = npt.NDArray[np.float32]
BoolArray = npt.NDArray[np.bool_]


def check_days(x: npt.ArrayLike, name: str = "x") -> FloatArray:
    """Return ``x`` as a float32 array after checking it is ``(n_days, 19, 1440)``.

    Args:
        x: Minute days, shape ``(n_days, 19, 1440)``.
        name: Argument name quoted in the error.

    Returns:
        ``x`` as float32 (no copy when it already is).

    Raises:
        ValueError: The shape is not ``(n_days, 19, 1440)``.
    """
    arr = np.asarray(x, dtype=np.float32)
    if arr.ndim != 3 or arr.shape[1:] != (N_CHANNELS, MINUTES_PER_DAY):
        raise ValueError(f"{name} must have shape (n_days, {N_CHANNELS}, {MINUTES_PER_DAY}); got {arr.shape}")
    return arr


def _check_nonwear(nonwear: npt.ArrayLike) -> BoolArray:
    arr = np.asarray(nonwear, dtype=bool)
    if arr.ndim != 2 or arr.shape[1] != MINUTES_PER_DAY:
        raise ValueError(f"nonwear must have shape (n_days, {MINUTES_PER_DAY}); got {arr.shape}")
    return arr


def wear_filter(nonwear: npt.ArrayLike, max_nonwear: int = MAX_NONWEAR_MINUTES) -> BoolArray:
    """Days kept by the wear-time filter (step 1).

    Args:
        nonwear: Non-wear minutes, shape ``(n_days, 1440)`` bool (True = not worn).
        max_nonwear: Most non-wear minutes a kept day may have (the seed: 720, i.e. ≥ 12 h worn).

    Returns:
        Kept-day mask, shape ``(n_days,)`` bool: ``nonwear.sum(axis=1) <= max_nonwear``.
    """
    return np.asarray(_check_nonwear(nonwear).sum(axis=1) <= max_nonwear)


def within_day_variance(
    x: npt.ArrayLike, channels: Sequence[int], *, ddof: int = VARIANCE_DDOF
) -> npt.NDArray[np.float64]:
    """Within-day variance of each channel over its observed (non-NaN) minutes.

    Computed in float64 without warnings; NaN where fewer than ``ddof + 1`` minutes are observed
    (with the default ``ddof=1``: a channel-day with 0 or 1 observed minutes).

    Args:
        x: Minute days, shape ``(n_days, 19, 1440)``.
        channels: Channel indices to compute.
        ddof: Delta degrees of freedom; 1 (sample variance) is our reading of the seed ("undefined
            variance because of insufficient observed values"; see :data:`VARIANCE_DDOF`); 0 gives
            ``numpy.nanvar``'s population variance.

    Returns:
        Variances, shape ``(n_days, len(channels))`` float64.
    """
    v = check_days(x)[:, list(channels), :].astype(np.float64)
    obs = ~np.isnan(v)
    n = obs.sum(axis=-1)
    v[~obs] = 0.0
    mean = v.sum(axis=-1) / np.maximum(n, 1)
    v -= mean[..., None]
    v[~obs] = 0.0
    ss = np.einsum("dct,dct->dc", v, v)
    return np.where(n - ddof > 0, ss / np.maximum(n - ddof, 1), np.nan)


def low_variance_filter(
    x: npt.ArrayLike,
    thresholds: Mapping[int, float] = VARIANCE_THRESHOLDS,
    *,
    ddof: int = VARIANCE_DDOF,
    skip_all_zero: bool = True,
) -> BoolArray:
    """Days kept by the low-variance filter (step 2).

    A day is dropped when any listed channel's within-day variance (:func:`within_day_variance`,
    sample variance, ``ddof=1``, by default) is below its threshold. An undefined (NaN) variance never drops
    a day: the public code keeps a channel when ``isnan(var) or var >= threshold``. A variance
    exactly at the threshold keeps the day.

    Args:
        x: Minute days, shape ``(n_days, 19, 1440)``.
        thresholds: Channel index → minimum variance (the seed: 1.0 for channels 0, 1, 3, 4, 6 and
            1e-4 for heart rate, 5; flights, 2, exempt).
        ddof: Delta degrees of freedom of the variance (default 1).
        skip_all_zero: Never remove a day for a channel whose observed values are all zero.

    Returns:
        Kept-day mask, shape ``(n_days,)`` bool.
    """
    arr = check_days(x)
    if not thresholds:
        return np.ones(arr.shape[0], dtype=bool)
    chans = list(thresholds)
    var = within_day_variance(arr, chans, ddof=ddof)
    th = np.array([thresholds[c] for c in chans], dtype=np.float64)
    keep = np.isnan(var) | (var >= th)
    if skip_all_zero:
        block = arr[:, chans, :]
        keep |= ~np.any((block != 0) & ~np.isnan(block), axis=-1)
    return np.asarray(keep.all(axis=1))


def retained_days(
    x: npt.ArrayLike,
    nonwear: npt.ArrayLike,
    *,
    max_nonwear: int = MAX_NONWEAR_MINUTES,
    thresholds: Mapping[int, float] = VARIANCE_THRESHOLDS,
    ddof: int = VARIANCE_DDOF,
    skip_all_zero: bool = True,
) -> BoolArray:
    """Retained days: kept by the wear filter and then by the low-variance filter (steps 1–2).

    The variance is only computed on wear-kept days.

    Args:
        x: Minute days, shape ``(n_days, 19, 1440)``.
        nonwear: Non-wear minutes, shape ``(n_days, 1440)`` bool.
        max_nonwear: See :func:`wear_filter`.
        thresholds: See :func:`low_variance_filter`.
        ddof: See :func:`low_variance_filter`.
        skip_all_zero: See :func:`low_variance_filter`.

    Returns:
        Retained-day mask, shape ``(n_days,)`` bool.

    Raises:
        ValueError: ``x`` and ``nonwear`` disagree on the number of days.
    """
    arr = check_days(x)
    keep = wear_filter(nonwear, max_nonwear)
    if keep.shape[0] != arr.shape[0]:
        raise ValueError(f"x has {arr.shape[0]} days but nonwear has {keep.shape[0]}")
    idx = np.flatnonzero(keep)
    keep[idx] = low_variance_filter(arr[idx], thresholds, ddof=ddof, skip_all_zero=skip_all_zero)
    return keep


def zero_to_nan(
    x: npt.ArrayLike,
    *,
    zero_day_channels: Sequence[int] = ZERO_DAY_CHANNELS,
    min_sleep_minutes: int = MIN_SLEEP_MINUTES,
) -> FloatArray:
    """The seed's value-level zero-to-NaN transform (step 3); returns a new array.

    - heart rate (channel 5): a value equal to 0 → NaN;
    - ``zero_day_channels`` (steps, distance, active energy): a channel-day whose observed values are
      all 0 → the whole channel-day NaN (an all-NaN channel-day stays NaN);
    - sleep channels (7, 8): when the day's total asleep minutes (channel 7, ``nansum``) are below
      ``min_sleep_minutes``, zero minutes of both channels → NaN (exactly 180 min keeps the zeros);
    - flights and workouts: unchanged.

    Args:
        x: Minute days, shape ``(n_days, 19, 1440)``.
        zero_day_channels: Channels whose all-zero days become NaN (the seed: 0, 1, 3, 4, 6).
        min_sleep_minutes: Sleep threshold in minutes (the seed: 3 h = 180).

    Returns:
        A copy of ``x``, float32, shape ``(n_days, 19, 1440)``.
    """
    out = check_days(x).copy()
    hr = out[:, HR, :]
    hr[hr == 0] = np.nan
    for c in zero_day_channels:
        ch = out[:, c, :]
        all_zero = np.all((ch == 0) | np.isnan(ch), axis=-1)
        ch[all_zero] = np.nan
    asleep = np.where(np.isnan(out[:, ASLEEP, :]), 0.0, out[:, ASLEEP, :]).sum(axis=-1)
    short = asleep < min_sleep_minutes
    for c in SLEEP:
        ch = out[:, c, :]
        ch[short[:, None] & (ch == 0)] = np.nan
    return out
