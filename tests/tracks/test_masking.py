"""The six masking approaches (seed 004, F.1): hand-built days, the block-count formula, A <= M, seeds."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from wearbench.tracks._masking import (
    MASKING_APPROACHES,
    apply_mask,
    draw_masks,
    intensity_failure,
    masking_approach,
    random_noise,
    signal_slice,
    sleep_gap,
    temporal_slice,
    temporal_slice_blocks,
    workout_gap,
)

C, T = 19, 1440


def _day(fill: float = 0.0) -> np.ndarray:
    x = np.full((C, T), fill, dtype=np.float32)
    x[5] = 70.0  # HR observed all day
    return x


def _rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def test_registry_kinds_follow_the_seed() -> None:
    kinds = {n: a.kind for n, a in MASKING_APPROACHES.items()}
    assert kinds == {
        "random_noise": "structural",
        "temporal_slice": "structural",
        "signal_slice": "structural",
        "sleep_gap": "semantic",
        "workout_gap": "semantic",
        "intensity_failure": "semantic",
    }
    assert [n for n, a in MASKING_APPROACHES.items() if a.binary_scored] == [
        "random_noise",
        "temporal_slice",
        "signal_slice",
    ]
    with pytest.raises(ValueError, match="known: random_noise"):
        masking_approach("random")


def test_intensity_failure_five_minutes_qualify_four_do_not() -> None:
    x = _day()
    x[5, 100:105] = 161.0  # 5 minutes > 160: masked
    x[5, 200:204] = 170.0  # 4 minutes: not
    x[5, 300:306] = 160.0  # exactly 160 is not > 160
    x[6, 102] = np.nan  # energy unobserved at one run minute: stays unmasked there
    a = intensity_failure(x, ~np.isnan(x))
    assert a.sum(axis=1).tolist() == [0] * 5 + [5, 4] + [0] * 12
    assert np.flatnonzero(a[5]).tolist() == [100, 101, 102, 103, 104]
    assert not a[6, 102]


def test_intensity_failure_nan_breaks_a_run() -> None:
    x = _day()
    x[5, 10:16] = 180.0
    x[5, 13] = np.nan  # 3 + 2 minutes around an unobserved minute
    assert not intensity_failure(x, ~np.isnan(x)).any()


def test_workout_gap_masks_only_hr_and_energy() -> None:
    x = _day()
    x[11, 60:90] = 1.0  # running
    x[18, 85:95] = 1.0  # yoga, overlapping
    a = workout_gap(x, ~np.isnan(x))
    assert a.sum(axis=1).tolist() == [0] * 5 + [35, 35] + [0] * 12
    assert np.flatnonzero(a[6]).tolist() == list(range(60, 95))


def test_sleep_gap_masks_every_channel_but_the_sleep_indicators() -> None:
    x = _day()
    x[7, 0:10] = 1.0
    x[8, 5:20] = 1.0
    x[2, :] = np.nan  # flights unobserved all day
    a = sleep_gap(x, ~np.isnan(x))
    expected = [20] * C
    expected[2] = expected[7] = expected[8] = 0
    assert a.sum(axis=1).tolist() == expected


def test_temporal_slice_block_count_formula() -> None:
    assert temporal_slice_blocks() == math.ceil(math.log(0.75) / math.log(1 - 45 / 1440)) == 10
    assert temporal_slice_blocks(0.5) == 22
    assert temporal_slice_blocks(0.0) == 0
    with pytest.raises(ValueError, match="ratio"):
        temporal_slice_blocks(1.0)


def test_temporal_slice_is_broadcast_over_channels() -> None:
    x = _day()
    x[3, 700:800] = np.nan
    m = ~np.isnan(x)
    a = temporal_slice(x, m, _rng(1))
    t = a[0]
    assert (a[1:] == (t & m[1:])).all()
    hidden = int(t.sum())
    assert 60 <= hidden <= 600  # 10 blocks of 30-60 min, overlaps allowed
    edges = np.diff(np.concatenate(([0], t.astype(int), [0])))
    assert ((np.flatnonzero(edges == -1) - np.flatnonzero(edges == 1)) >= 30).all()


def test_random_noise_reaches_the_ratio_with_whole_patches() -> None:
    x = _day()
    m = ~np.isnan(x)
    a = random_noise(x, m, _rng(2))
    n = int(a.sum())
    assert n == 30 * math.ceil(0.5 * m.sum() / 30)  # full day: every patch holds 30 observed cells
    per_patch = a.reshape(C, 48, 30).sum(axis=2)
    assert set(np.unique(per_patch).tolist()) <= {0, 30}


def test_random_noise_counts_only_observed_cells() -> None:
    x = np.full((C, T), np.nan, dtype=np.float32)
    x[5, :60] = 70.0  # two observed patches, 60 cells: target 30, one patch
    a = random_noise(x, ~np.isnan(x), _rng(3))
    assert int(a.sum()) == 30
    assert not random_noise(np.full((C, T), np.nan), np.zeros((C, T), bool), _rng(3)).any()


def test_signal_slice_modes() -> None:
    x = np.full((C, T), np.nan, dtype=np.float32)
    x[[0, 3, 5, 9], :] = 1.0  # four valid channels
    m = ~np.isnan(x)
    a = signal_slice(x, m, _rng(0), mode_a_prob=1.0)
    hidden = np.flatnonzero(a.any(axis=1))
    assert len(hidden) == 2
    assert set(hidden.tolist()) <= {0, 3, 5, 9}
    assert (a[hidden] == m[hidden]).all()
    b = signal_slice(x, m, _rng(0), mode_a_prob=0.0)
    assert np.flatnonzero(b.any(axis=1)).tolist() in ([0], [3, 5])  # phone {0,1,2} or watch {3..6}


def test_seeded_draws_are_reproducible() -> None:
    x = np.stack([_day(1.0) for _ in range(3)])
    for name in ("random_noise", "temporal_slice", "signal_slice"):
        a1 = draw_masks(x, name, _rng(7))
        a2 = draw_masks(x, name, _rng(7))
        assert (a1 == a2).all(), name
        assert not (a1 == draw_masks(x, name, _rng(8))).all(), name


def test_apply_mask_hides_only_masked_cells() -> None:
    x = np.arange(6, dtype=np.float32).reshape(1, 2, 3)
    a = np.array([[[True, False, False], [False, False, True]]])
    out = apply_mask(x, a)
    assert np.isnan(out[a]).all()
    assert (out[~a] == x[~a]).all()
    assert x[0, 0, 0] == 0.0  # input untouched


def test_bad_shape_is_named() -> None:
    with pytest.raises(ValueError, match=r"\(19, 1440\)"):
        sleep_gap(np.zeros((19, 10)), np.ones((19, 10), bool))


@st.composite
def _gappy_day(draw: st.DrawFn) -> np.ndarray:
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    x = np.zeros((C, T), dtype=np.float32)
    x[:5] = rng.poisson(3.0, size=(5, T))
    x[5] = rng.normal(120, 40, size=T)
    x[6] = rng.exponential(2.0, size=T)
    x[7:] = rng.random((12, T)) < draw(st.floats(0.0, 0.5))
    gap_share = draw(st.floats(0.0, 1.0))
    x[rng.random((C, T)) < gap_share] = np.nan
    for _ in range(draw(st.integers(0, 4))):  # whole-channel and block gaps
        c, s = int(rng.integers(C)), int(rng.integers(T))
        x[c, s : s + int(rng.integers(1, T))] = np.nan
    return x


@settings(max_examples=25, deadline=None)
@given(x=_gappy_day(), seed=st.integers(0, 2**16))
def test_artificial_mask_lies_inside_the_observed_mask(x: np.ndarray, seed: int) -> None:
    m = ~np.isnan(x)
    for name, approach in MASKING_APPROACHES.items():
        a = approach.function(x, m, np.random.default_rng(seed))
        assert a.shape == m.shape, name
        assert a.dtype == bool, name
        assert not (a & ~m).any(), name
