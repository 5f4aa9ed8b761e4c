"""OpenMHC's statistical imputation baselines (seed 004, F.2): single-day and 7-day personalised.

Kernels are pure numpy over minute days ``x`` of shape ``(..., 19, 1440)`` float (NaN = to fill:
unobserved or artificially masked). Training statistics come from :func:`channel_means`,
:func:`channel_modes` and :func:`temporal_profile` over training days. :data:`BASELINE_IMPUTERS`
names each baseline's statistic and fill kernel; :class:`BaselineImputer` is the thin scikit-learn
style wrapper: the constructor stores parameters only, ``fit(train)`` computes the
one population statistic the method uses (``stat_``) and returns ``self``, ``impute(x, users)``
returns a filled copy. A cell a method cannot fill stays NaN; the scorer substitutes it and counts
it (``_impute_score``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

import numpy as np
from numpy.typing import NDArray

from wearbench.minutes import MINUTES_PER_DAY, N_CHANNELS

FloatArray = NDArray[np.floating[Any]]
F64 = NDArray[np.float64]


def _check_days(x: FloatArray, what: str) -> None:
    if x.ndim < 2 or x.shape[-2:] != (N_CHANNELS, MINUTES_PER_DAY):
        raise ValueError(f"{what} must have shape (..., {N_CHANNELS}, {MINUTES_PER_DAY}); got {x.shape}")


def _as_days(x: FloatArray) -> F64:
    return np.asarray(x, dtype=np.float64).reshape(-1, N_CHANNELS, MINUTES_PER_DAY)


def channel_means(train: FloatArray) -> F64:
    """Per-channel mean over all observed minutes of ``train`` ``(..., 19, 1440)``; ``(19,)``, NaN if none."""
    _check_days(train, "train")
    d = _as_days(train)
    n = (~np.isnan(d)).sum(axis=(0, 2))
    s = np.nansum(d, axis=(0, 2))
    return np.where(n > 0, s / np.maximum(n, 1), np.nan)


def _group_modes(groups: NDArray[np.intp], values: F64, n_groups: int) -> F64:
    """Most frequent value per group (ties: the smallest value); NaN for a group without values."""
    out = np.full(n_groups, np.nan)
    if values.size == 0:
        return out
    order = np.lexsort((values, groups))
    g, v = groups[order], values[order]
    new = np.ones(g.size, dtype=bool)
    new[1:] = (g[1:] != g[:-1]) | (v[1:] != v[:-1])
    starts = np.flatnonzero(new)
    counts = np.diff(np.append(starts, g.size))
    rg, rv = g[starts], v[starts]
    best = np.lexsort((rv, -counts, rg))  # per group: highest count, then smallest value
    first = np.ones(best.size, dtype=bool)
    first[1:] = rg[best][1:] != rg[best][:-1]
    out[rg[best][first]] = rv[best][first]
    return out


def channel_modes(train: FloatArray, *, decimals: int = 0) -> F64:
    """Per-channel mode of the observed minutes rounded to ``decimals``; ``(19,)``, NaN if none.

    Ties go to the smallest value.
    """
    _check_days(train, "train")
    d = np.round(_as_days(train), decimals)
    ch = np.broadcast_to(np.arange(N_CHANNELS)[None, :, None], d.shape)
    ok = ~np.isnan(d)
    return _group_modes(ch[ok].astype(np.intp), d[ok], N_CHANNELS)


def temporal_profile(train: FloatArray, *, stat: Literal["mean", "mode"] = "mean", decimals: int = 0) -> F64:
    """Per (channel, minute-of-day) mean or mode over training days, with the channel fallback.

    A (channel, minute) with no observation takes the channel's mean (or mode) over all minutes;
    a channel with no observation at all stays NaN.

    Args:
        train: Training days, ``(..., 19, 1440)`` float, NaN = unobserved.
        stat: ``"mean"`` (temporal mean) or ``"mode"`` (temporal mode, of values rounded to
            ``decimals``; ties: smallest value).
        decimals: Rounding for the mode.

    Returns:
        ``(19, 1440)`` float64 profile.
    """
    _check_days(train, "train")
    d = _as_days(train)
    if stat == "mean":
        n = (~np.isnan(d)).sum(axis=0)
        prof = np.where(n > 0, np.nansum(d, axis=0) / np.maximum(n, 1), np.nan)
        fallback = channel_means(d)
    elif stat == "mode":
        r = np.round(d, decimals)
        cell = np.broadcast_to(np.arange(N_CHANNELS * MINUTES_PER_DAY).reshape(N_CHANNELS, -1), r.shape)
        ok = ~np.isnan(r)
        prof = _group_modes(cell[ok].astype(np.intp), r[ok], N_CHANNELS * MINUTES_PER_DAY)
        prof = prof.reshape(N_CHANNELS, MINUTES_PER_DAY)
        fallback = channel_modes(d, decimals=decimals)
    else:
        raise ValueError(f"stat must be 'mean' or 'mode'; got {stat!r}")
    return np.where(np.isnan(prof), fallback[:, None], prof)


def fill_constant(x: FloatArray, values: FloatArray) -> F64:
    """Fill the NaN cells of ``x`` ``(..., 19, 1440)`` with ``values`` ``(19,)`` or ``(19, 1440)``."""
    _check_days(x, "x")
    v = np.asarray(values, dtype=np.float64)
    if v.ndim == 1:
        v = v[:, None]
    out = np.array(x, dtype=np.float64, copy=True)
    return np.where(np.isnan(out), np.broadcast_to(v, out.shape), out)


def _ffill_index(obs: NDArray[np.bool_]) -> NDArray[np.intp]:
    """Index of the last observed minute at or before each minute (along the last axis; -1 if none)."""
    idx = np.where(obs, np.arange(obs.shape[-1]), -1)
    return np.maximum.accumulate(idx, axis=-1)


def fill_locf(x: FloatArray, fallback: FloatArray | None = None) -> F64:
    """Last observation carried forward, per day and channel (the seed's reference method).

    Within each day and channel a NaN minute takes the most recent observed value. A leading gap
    (before the day's first observation) takes the next observation; a channel with no observed
    minute that day takes ``fallback[c]`` (the training channel mean) or stays NaN without one.

    Args:
        x: Masked days, ``(..., 19, 1440)`` float.
        fallback: ``(19,)`` values for channels empty on a day, or None.

    Returns:
        Filled copy, float64, same shape.
    """
    _check_days(x, "x")
    out = np.array(x, dtype=np.float64, copy=True)
    obs = ~np.isnan(out)
    fwd = _ffill_index(obs)
    bwd = out.shape[-1] - 1 - _ffill_index(obs[..., ::-1])[..., ::-1]  # next observation
    src = np.where(fwd >= 0, fwd, np.minimum(bwd, out.shape[-1] - 1))
    out = np.take_along_axis(out, src, axis=-1)
    if fallback is not None:
        out = fill_constant(out, fallback)
    return out


def fill_linear(x: FloatArray, fallback: FloatArray | None = None) -> F64:
    """Linear interpolation over time between the nearest observations, per day and channel.

    Minutes before the first / after the last observation take that observation (``np.interp``'s
    edge rule); a channel with no observed minute that day takes ``fallback[c]`` or stays NaN.

    Args:
        x: Masked days, ``(..., 19, 1440)`` float.
        fallback: ``(19,)`` values for channels empty on a day, or None.

    Returns:
        Filled copy, float64, same shape.
    """
    _check_days(x, "x")
    out = np.array(x, dtype=np.float64, copy=True)
    flat = out.reshape(-1, MINUTES_PER_DAY)
    t = np.arange(MINUTES_PER_DAY)
    for row in flat:  # one (day, channel) series at a time
        obs = ~np.isnan(row)
        if obs.any() and not obs.all():
            row[~obs] = np.interp(t[~obs], t[obs], row[obs])
    out = flat.reshape(out.shape)
    if fallback is not None:
        out = fill_constant(out, fallback)
    return out


def _user_groups(x: F64, users: NDArray[Any] | None) -> list[NDArray[np.intp]]:
    if users is None:
        return [np.arange(x.shape[0])]
    u = np.asarray(users)
    if u.shape != (x.shape[0],):
        raise ValueError(f"users must give one id per day, shape ({x.shape[0]},); got {u.shape}")
    return [np.flatnonzero(u == k) for k in np.unique(u)]


def fill_personal(
    x: FloatArray,
    users: NDArray[Any] | None,
    population: FloatArray,
    *,
    stat: Literal["mean", "mode", "temporal_mean"] = "mean",
    decimals: int = 0,
) -> F64:
    """Personalised fill: each user's statistic over their own (masked) days, then the population's.

    The context of a user is every day of theirs in ``x`` (the seed: "that user's samples within
    the same evaluation split"), read with the artificially masked cells already NaN, so no
    ground truth leaks. Fallbacks as the seed: mean / mode: user channel value -> population
    channel value; temporal mean: user minute-of-day mean -> user channel mean -> population
    temporal mean.

    Args:
        x: Masked days, ``(n_days, 19, 1440)`` float.
        users: ``(n_days,)`` user id per day; None = all days are one user.
        population: ``(19,)`` channel mean / mode, or ``(19, 1440)`` temporal mean, from training.
        stat: ``"mean"``, ``"mode"`` or ``"temporal_mean"``.
        decimals: Rounding for the mode.

    Returns:
        Filled copy, float64, ``(n_days, 19, 1440)``.
    """
    _check_days(x, "x")
    d = _as_days(x)
    out = d.copy()
    pop = np.asarray(population, dtype=np.float64)
    for idx in _user_groups(d, users):
        ctx = d[idx]
        if stat == "mean":
            own = channel_means(ctx)[:, None]
        elif stat == "mode":
            own = channel_modes(ctx, decimals=decimals)[:, None]
        elif stat == "temporal_mean":
            own = temporal_profile(ctx, stat="mean")
        else:
            raise ValueError(f"stat must be 'mean', 'mode' or 'temporal_mean'; got {stat!r}")
        fill = np.where(np.isnan(own), pop if pop.ndim == 2 else pop[:, None], own)
        out[idx] = fill_constant(ctx, fill)
    return out.reshape(np.shape(x))


#: The training statistics a baseline can need, by name: ``f(train, decimals)``.
_STATISTICS: dict[str, Callable[[FloatArray, int], F64]] = {
    "channel_mean": lambda train, decimals: channel_means(train),
    "channel_mode": lambda train, decimals: channel_modes(train, decimals=decimals),
    "temporal_mean": lambda train, decimals: temporal_profile(train, stat="mean"),
    "temporal_mode": lambda train, decimals: temporal_profile(train, stat="mode", decimals=decimals),
}


class Imputer(Protocol):
    """What every imputation method offers (scikit-learn style)."""

    name: str

    def fit(
        self,
        train: FloatArray,
        users: NDArray[Any] | None = None,
        dates: NDArray[np.datetime64] | None = None,
    ) -> Imputer:
        """Fit on training days ``(n_days, 19, 1440)`` (``users``, ``dates``: per day); return self."""
        ...

    def impute(
        self, x: FloatArray, users: NDArray[Any] | None = None, dates: NDArray[np.datetime64] | None = None
    ) -> F64:
        """A filled copy of masked days ``x`` ``(n_days, 19, 1440)``; ``users``, ``dates``: per day.

        ``dates`` (``datetime64[D]``) matter to 7-day windowed models only; None = each user's
        days are consecutive calendar days.
        """
        ...


@dataclass(frozen=True)
class _Method:
    """A baseline: the training statistic it uses and how it fills a masked array with it."""

    doc: str
    stat: str  # a key of _STATISTICS
    fill: Callable[[FloatArray, NDArray[Any] | None, F64, int], F64]


#: The statistical baselines by name; single-day first, then the 7-day personalised ones.
BASELINE_IMPUTERS: dict[str, _Method] = {
    "mean": _Method("each masked cell takes the training channel mean", "channel_mean",
                    lambda x, users, stat, d: fill_constant(x, stat)),
    "mode": _Method("each masked cell takes the training channel mode (rounded values)", "channel_mode",
                    lambda x, users, stat, d: fill_constant(x, stat)),
    "linear": _Method("linear interpolation in time per day and channel; empty channel: train mean",
                      "channel_mean", lambda x, users, stat, d: fill_linear(x, stat)),
    "locf": _Method("forward fill (the reference); leading gap: next observation; empty channel: train mean",
                    "channel_mean", lambda x, users, stat, d: fill_locf(x, stat)),
    "temporal_mean": _Method("the training mean at the same minute of day (fallback: channel mean)",
                             "temporal_mean", lambda x, users, stat, d: fill_constant(x, stat)),
    "temporal_mode": _Method("the training mode at the same minute of day (fallback: channel mode)",
                             "temporal_mode", lambda x, users, stat, d: fill_constant(x, stat)),
    "personal_mean": _Method("7-day: the user's channel mean over their days, fallback population mean",
                             "channel_mean",
                             lambda x, users, stat, d: fill_personal(x, users, stat, stat="mean")),
    "personal_mode": _Method(
        "7-day: the user's channel mode, fallback population mode", "channel_mode",
        lambda x, users, stat, d: fill_personal(x, users, stat, stat="mode", decimals=d),
    ),
    "personal_temporal_mean": _Method(
        "7-day: user minute -> user channel -> population temporal mean", "temporal_mean",
        lambda x, users, stat, d: fill_personal(x, users, stat, stat="temporal_mean"),
    ),
}  # fmt: skip


class BaselineImputer:
    """One statistical baseline by name (a key of :data:`BASELINE_IMPUTERS`), scikit-learn style.

    Args:
        name: The baseline.
        decimals: Rounding before taking a mode (mode-based baselines).

    Raises:
        ValueError: For an unknown name.
    """

    def __init__(self, name: str, decimals: int = 0) -> None:
        if name not in BASELINE_IMPUTERS:
            raise ValueError(f"unknown imputation baseline {name!r}; known: {', '.join(BASELINE_IMPUTERS)}")
        self.name = name
        self.decimals = decimals

    def fit(
        self,
        train: FloatArray,
        users: NDArray[Any] | None = None,
        dates: NDArray[np.datetime64] | None = None,
    ) -> BaselineImputer:
        """Compute the one training statistic the method uses (``stat_``) on ``(n_days, 19, 1440)``.

        ``users`` and ``dates`` are accepted for the protocol and not used.
        """
        self.stat_ = _STATISTICS[BASELINE_IMPUTERS[self.name].stat](train, self.decimals)
        return self

    def impute(
        self, x: FloatArray, users: NDArray[Any] | None = None, dates: NDArray[np.datetime64] | None = None
    ) -> F64:
        """A filled copy of masked days ``x`` ``(n_days, 19, 1440)``; ``users``: id per day (7-day methods).

        ``dates`` is accepted for the protocol and not used.

        Raises:
            ValueError: If called before :meth:`fit`.
        """
        if not hasattr(self, "stat_"):
            raise ValueError(f"imputer {self.name!r} is not fitted; call fit(train) first")
        return BASELINE_IMPUTERS[self.name].fill(x, users, self.stat_, self.decimals)
