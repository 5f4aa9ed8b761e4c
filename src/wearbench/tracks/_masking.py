"""OpenMHC's six masking approaches for the imputation track (seed 004, Appendix F.1).

Every approach is a pure function over **one** minute day ``x`` of shape ``(19, 1440)``
(channels in the seed's order, NaN = unobserved) and its observed mask ``m = ~isnan(x)``:
``f(x, m, rng, **params) -> A``, a bool array of the same shape. ``A`` (the artificial mask,
True = hidden from the imputer and scored) always lies inside ``m``. The semantic approaches are
deterministic and accept ``rng`` only for the shared signature. :func:`draw_masks` applies an
approach to a batch ``(n_days, 19, 1440)`` day by day with one generator, so a seed fixes the
whole draw.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from numpy.typing import NDArray

from wearbench.minutes import (
    ACTIVE_ENERGY,
    DEVICE_GROUPS,
    HR,
    MINUTES_PER_DAY,
    N_CHANNELS,
    SLEEP,
    WORKOUTS,
)

BoolArray = NDArray[np.bool_]
FloatArray = NDArray[np.floating[Any]]
#: ``f(x, m, rng, **params) -> A`` over one day ``(19, 1440)``.
MaskFunction = Callable[..., BoolArray]


def _check_day(x: FloatArray, m: BoolArray) -> None:
    if x.shape != (N_CHANNELS, MINUTES_PER_DAY) or m.shape != x.shape:
        raise ValueError(
            f"masking works on one day of shape ({N_CHANNELS}, {MINUTES_PER_DAY}); "
            f"got x {x.shape} and m {m.shape}"
        )


def _check_ratio(name: str, value: float) -> None:
    if not 0.0 <= value < 1.0:
        raise ValueError(f"{name} must lie in [0, 1); got {value}")


def random_noise(
    x: FloatArray,
    m: BoolArray,
    rng: np.random.Generator,
    *,
    patch: int = 30,
    ratio: float = 0.5,
) -> BoolArray:
    """Random noise: channel-local patches, greedily, until ``ratio`` of the observed cells are hidden.

    The day is cut into ``19 * floor(1440 / patch)`` non-overlapping patches (channel, ``patch``
    minutes). They are taken in a random order; each hides its observed cells, until the hidden
    count reaches ``ratio * |M|`` (the patch that reaches it is included). A day with no observed
    cell gets an empty mask.

    Args:
        x: One day, ``(19, 1440)`` float, NaN = unobserved.
        m: Observed mask of ``x``, ``(19, 1440)`` bool.
        rng: Source of the patch order.
        patch: Patch length, minutes (seed: 30).
        ratio: Target share of observed cells to hide, in [0, 1) (seed: 0.5).

    Returns:
        A: ``(19, 1440)`` bool, ``A <= m``.
    """
    _check_day(x, m)
    _check_ratio("ratio", ratio)
    if not 1 <= patch <= MINUTES_PER_DAY:
        raise ValueError(f"patch must be 1..{MINUTES_PER_DAY} minutes; got {patch}")
    a = np.zeros_like(m)
    target = ratio * int(m.sum())
    if target <= 0:
        return a
    n_per = MINUTES_PER_DAY // patch
    usable = m[:, : n_per * patch].reshape(N_CHANNELS, n_per, patch)
    counts = usable.sum(axis=2).ravel()  # observed cells per candidate patch
    order = rng.permutation(counts.size)
    reached = np.cumsum(counts[order]) >= target
    # Patches up to and including the first that reaches the target (all if none does).
    n_take = int(np.argmax(reached)) + 1 if reached.any() else counts.size
    chosen = np.zeros(counts.size, dtype=bool)
    chosen[order[:n_take]] = True
    a[:, : n_per * patch] = np.repeat(chosen.reshape(N_CHANNELS, n_per), patch, axis=1)
    return a & m


def temporal_slice_blocks(
    ratio: float = 0.25, mean_block: float = 45.0, length: int = MINUTES_PER_DAY
) -> int:
    """The seed's block count ``n_b = ceil(log(1 - r) / log(1 - b / T))`` (Eq. 7).

    Args:
        ratio: Target mask ratio ``r`` in [0, 1) (seed: 0.25).
        mean_block: Mean block length ``b``, minutes (seed: (30 + 60) / 2 = 45).
        length: Day length ``T``, minutes (1440).

    Returns:
        The number of blocks (10 with the seed's values; 0 for ``ratio == 0``).
    """
    _check_ratio("ratio", ratio)
    if not 0 < mean_block < length:
        raise ValueError(f"mean block must lie in (0, {length}) minutes; got {mean_block}")
    return math.ceil(math.log(1.0 - ratio) / math.log(1.0 - mean_block / length))


def temporal_slice(
    x: FloatArray,
    m: BoolArray,
    rng: np.random.Generator,
    *,
    min_block: int = 30,
    max_block: int = 60,
    ratio: float = 0.25,
) -> BoolArray:
    """Temporal slice: ``n_b`` time blocks of U[min, max] minutes, hidden on every channel.

    ``n_b`` is :func:`temporal_slice_blocks` with ``b = (min + max) / 2``. Each block length is
    an integer drawn uniformly from ``[min_block, max_block]``; its start is uniform over the
    starts that keep the block inside the day (``0 .. 1440 - length``; the seed's "valid time
    steps" is read as this). Blocks may overlap. ``A[c, t] = m[c, t] * 1[t in blocks]``.

    Args:
        x: One day, ``(19, 1440)``.
        m: Observed mask, ``(19, 1440)`` bool.
        rng: Source of block lengths and starts.
        min_block: Shortest block, minutes (seed: 30).
        max_block: Longest block, minutes (seed: 60).
        ratio: Target share of time hidden (seed: 0.25).

    Returns:
        A: ``(19, 1440)`` bool, ``A <= m``.
    """
    _check_day(x, m)
    if not 1 <= min_block <= max_block <= MINUTES_PER_DAY:
        raise ValueError(
            f"need 1 <= min_block <= max_block <= {MINUTES_PER_DAY}; got {min_block}, {max_block}"
        )
    n_b = temporal_slice_blocks(ratio, (min_block + max_block) / 2)
    lengths = rng.integers(min_block, max_block + 1, size=n_b)
    starts = rng.integers(0, MINUTES_PER_DAY - lengths + 1)
    t = np.zeros(MINUTES_PER_DAY, dtype=bool)
    for s, n in zip(starts, lengths, strict=True):
        t[s : s + n] = True
    out: NDArray[np.bool_] = m & t[None, :]
    return out


def signal_slice(
    x: FloatArray,
    m: BoolArray,
    rng: np.random.Generator,
    *,
    mode_a_prob: float = 0.5,
    ratio: float = 0.5,
    groups: tuple[tuple[int, ...], ...] = (DEVICE_GROUPS["phone"], DEVICE_GROUPS["watch"]),
) -> BoolArray:
    """Signal slice: whole channels hidden for the day (sensor failure / missing modality).

    With probability ``mode_a_prob`` Mode A: ``ceil(ratio * |C_valid|)`` channels drawn without
    replacement from the channels with any observed minute. Otherwise Mode B: one device group
    drawn uniformly from ``groups`` (phone {0, 1, 2}, watch {3, 4, 5, 6}), all its channels. For
    each chosen channel ``A[c, :] = m[c, :]`` (a chosen group without data gives an empty mask).

    Args:
        x: One day, ``(19, 1440)``.
        m: Observed mask, ``(19, 1440)`` bool.
        rng: Source of the mode and the channels.
        mode_a_prob: Probability of Mode A (seed: 0.5, "equal probability").
        ratio: Share of valid channels hidden in Mode A (seed: 0.5).
        groups: Device groups for Mode B.

    Returns:
        A: ``(19, 1440)`` bool, ``A <= m``.
    """
    _check_day(x, m)
    if not 0.0 <= mode_a_prob <= 1.0:
        raise ValueError(f"mode_a_prob must lie in [0, 1]; got {mode_a_prob}")
    _check_ratio("ratio", ratio)
    a = np.zeros_like(m)
    if rng.random() < mode_a_prob:
        valid = np.flatnonzero(m.any(axis=1))
        k = math.ceil(ratio * valid.size)
        channels = rng.choice(valid, size=k, replace=False) if k else valid[:0]
    else:
        channels = np.asarray(groups[int(rng.integers(len(groups)))], dtype=np.intp)
    a[channels] = m[channels]
    return a


def sleep_gap(x: FloatArray, m: BoolArray, rng: np.random.Generator | None = None) -> BoolArray:
    """Sleep gap: every channel but asleep/in-bed hidden where ``asleep > 0`` or ``inbed > 0``.

    Args:
        x: One day, ``(19, 1440)``; channels 7 and 8 are the sleep indicators.
        m: Observed mask, ``(19, 1440)`` bool.
        rng: Unused (deterministic approach; kept for the shared signature).

    Returns:
        A: ``(19, 1440)`` bool, ``A <= m``; rows 7 and 8 all False.
    """
    _check_day(x, m)
    s = (np.nan_to_num(x[list(SLEEP)], nan=0.0) > 0).any(axis=0)
    a = m & s  # (1440,) broadcast over the channels
    a[list(SLEEP)] = False
    return a


def workout_gap(x: FloatArray, m: BoolArray, rng: np.random.Generator | None = None) -> BoolArray:
    """Workout gap: HR (5) and active energy (6) hidden where any workout channel (9-18) is > 0.

    Args:
        x: One day, ``(19, 1440)``.
        m: Observed mask, ``(19, 1440)`` bool.
        rng: Unused (deterministic approach).

    Returns:
        A: ``(19, 1440)`` bool, ``A <= m``; only rows 5 and 6 can be True.
    """
    _check_day(x, m)
    w = (np.nan_to_num(x[list(WORKOUTS)], nan=0.0) > 0).any(axis=0)
    a = np.zeros_like(m)
    for c in (HR, ACTIVE_ENERGY):
        a[c] = m[c] & w
    return a


def _runs_at_least(h: BoolArray, min_run: int) -> BoolArray:
    """Minutes that belong to a run of ``h`` of at least ``min_run`` consecutive True values."""
    edges = np.diff(np.concatenate(([0], h.astype(np.int8), [0])))
    starts, ends = np.flatnonzero(edges == 1), np.flatnonzero(edges == -1)  # ends exclusive
    out = np.zeros_like(h)
    for s, e in zip(starts, ends, strict=True):
        if e - s >= min_run:
            out[s:e] = True
    return out


def intensity_failure(
    x: FloatArray,
    m: BoolArray,
    rng: np.random.Generator | None = None,
    *,
    threshold_bpm: float = 160.0,
    min_run: int = 5,
) -> BoolArray:
    """Intensity failure: HR and active energy hidden on runs of >= ``min_run`` minutes of HR > threshold.

    ``h_t = 1[HR_t > threshold]`` (an unobserved HR minute breaks a run); runs of at least
    ``min_run`` consecutive minutes (seed: ``t_e - t_s >= 4``) qualify; channels 5 and 6 are
    hidden on them.

    Args:
        x: One day, ``(19, 1440)``; HR in bpm on channel 5.
        m: Observed mask, ``(19, 1440)`` bool.
        rng: Unused (deterministic approach).
        threshold_bpm: HR threshold, bpm, strict ``>`` (seed: 160).
        min_run: Shortest qualifying run, minutes (seed: 5).

    Returns:
        A: ``(19, 1440)`` bool, ``A <= m``; only rows 5 and 6 can be True.
    """
    _check_day(x, m)
    if min_run < 1:
        raise ValueError(f"min_run must be >= 1 minute; got {min_run}")
    h = np.nan_to_num(x[HR], nan=-np.inf) > threshold_bpm
    runs = _runs_at_least(h, min_run)
    a = np.zeros_like(m)
    for c in (HR, ACTIVE_ENERGY):
        a[c] = m[c] & runs
    return a


@dataclass(frozen=True)
class MaskingApproach:
    """One registered masking approach.

    Attributes:
        name: Registry name (``"random_noise"`` …).
        kind: ``"structural"`` (random noise, temporal/signal slice) or ``"semantic"`` (sleep gap,
            workout gap, intensity failure), the seed's two families (F.1; the Semantic scope).
        function: The per-day kernel ``f(x, m, rng, **params) -> A``.
        binary_scored: Whether binary channels are scored under it (False for every semantic
            approach, as the seed: "binary channels are excluded from the three semantic approaches").
    """

    name: str
    kind: Literal["structural", "semantic"]
    function: MaskFunction
    binary_scored: bool


MASKING_APPROACHES: dict[str, MaskingApproach] = {
    a.name: a
    for a in (
        MaskingApproach("random_noise", "structural", random_noise, True),
        MaskingApproach("temporal_slice", "structural", temporal_slice, True),
        MaskingApproach("signal_slice", "structural", signal_slice, True),
        MaskingApproach("sleep_gap", "semantic", sleep_gap, False),
        MaskingApproach("workout_gap", "semantic", workout_gap, False),
        MaskingApproach("intensity_failure", "semantic", intensity_failure, False),
    )
}


def masking_approach(name: str) -> MaskingApproach:
    """The registered approach called ``name``; ``ValueError`` listing the names otherwise."""
    try:
        return MASKING_APPROACHES[name]
    except KeyError:
        raise ValueError(
            f"unknown masking approach {name!r}; known: {', '.join(MASKING_APPROACHES)}"
        ) from None


def draw_masks(x: FloatArray, approach: str, rng: np.random.Generator, **params: Any) -> BoolArray:
    """Apply one approach to every day of a batch, in day order, with one generator.

    Args:
        x: Minute days, ``(n_days, 19, 1440)`` float, NaN = unobserved.
        approach: A name in :data:`MASKING_APPROACHES`.
        rng: One generator for the whole batch (a fixed seed fixes every day's mask).
        **params: Keyword parameters of the approach (defaults: the seed's).

    Returns:
        A: ``(n_days, 19, 1440)`` bool, inside ``~isnan(x)``.
    """
    if x.ndim != 3:
        raise ValueError(
            f"draw_masks needs (n_days, {N_CHANNELS}, {MINUTES_PER_DAY}) days; got shape {x.shape}"
        )
    fn = masking_approach(approach).function
    m = ~np.isnan(x)
    out = np.zeros(x.shape, dtype=bool)
    for d in range(x.shape[0]):
        out[d] = fn(x[d], m[d], rng, **params)
    return out


def apply_mask(x: FloatArray, a: BoolArray) -> FloatArray:
    """The imputer's input: a copy of ``x`` with the artificially masked cells set to NaN."""
    if a.shape != x.shape:
        raise ValueError(f"mask shape {a.shape} differs from data shape {x.shape}")
    out = np.array(x, copy=True)
    out[a] = np.nan
    return out
