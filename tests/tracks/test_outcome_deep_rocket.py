"""MultiRocket + PCA outcome model (tracks/_outcome_rocket.py) on tiny synthetic participants."""

from __future__ import annotations

import sys

import numpy as np
import pytest

from wearbench._errors import WearbenchError
from wearbench.tracks import OUTCOME_MODELS, auprc, rocket_model
from wearbench.tracks._outcome_rocket import MultiRocketFeatures, Pca, hourly_values, inputs_key

FloatArray = np.ndarray


def _participants(n: int, days: int, seed: int) -> tuple[list[FloatArray], FloatArray]:
    """Per participant ``(days, 456)`` hourly rows; label 1 iff the daytime activity level is high.

    The level drives steps, distance and active energy (channels 0, 1, 6) and heart rate (5) in
    the daytime hours; every other channel is noise.
    """
    rng = np.random.default_rng(seed)
    level = rng.uniform(0.0, 1.0, n)
    daytime = np.r_[np.zeros(7), np.ones(15), np.zeros(2)]
    xs = []
    for a in level:
        x = rng.normal(0.0, 1.0, (days, 24, 19))
        for c in (0, 1, 5, 6):
            x[:, :, c] += 4 * a * daytime * rng.uniform(0.5, 1.5, (days, 24))
        x[rng.random(x.shape) < 0.1] = np.nan
        xs.append(x.reshape(days, -1))
    return xs, (level > 0.5).astype(float)


def test_hourly_values_layout() -> None:
    days = np.full((1, 19, 1440), np.nan, dtype=np.float32)
    days[0, 0, 60:120] = 2.0  # steps, hour 1: 60 x 2 = 120 per hour
    days[0, 5, 0:60] = 70.0  # heart rate, hour 0: mean 70 bpm
    row = hourly_values(days)
    assert row.shape == (1, 456)
    assert row[0, 19 * 1 + 0] == 120.0
    assert row[0, 19 * 0 + 5] == 70.0
    assert np.isnan(row[0, 19 * 2 + 0])


def test_pca_by_hand() -> None:
    x = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])
    pca = Pca.fit(x, 5)
    assert pca.components.shape == (1, 2)  # rank 1
    np.testing.assert_allclose(pca.mean, [1.5, 1.5])
    np.testing.assert_allclose(pca.components[0], [2**-0.5, 2**-0.5], atol=1e-12)
    np.testing.assert_allclose(pca.transform(np.array([[2.5, 2.5]]))[:, 0], [2**0.5], atol=1e-12)


def test_multirocket_beats_chance_and_pca_sees_train_only() -> None:
    xs_tr, y_tr = _participants(120, 4, 0)
    xs_te, y_te = _participants(30, 4, 1)
    pred = OUTCOME_MODELS["multirocket"].predict("binary", xs_tr, y_tr, xs_te)
    assert pred.shape == (30,)
    assert auprc(y_te, pred) > 0.9  # chance: the positive share, about 0.5
    feats = MultiRocketFeatures(n_kernels=84, seed=3)
    a_tr, a_te = feats.train_test(xs_tr[:40], xs_te)
    b_tr, _ = feats.train_test(xs_tr[:40], [x * 100.0 for x in xs_te[:3]])
    assert a_tr.shape == (40, 39)  # the rank of 40 centred rows
    assert a_te.shape == (30, 39)
    np.testing.assert_array_equal(a_tr, b_tr)  # test participants never reach the fit
    np.testing.assert_allclose(a_tr.mean(axis=0), 0.0, atol=1e-8)  # centred on train


def test_multirocket_seeded() -> None:
    xs_tr, _ = _participants(12, 2, 0)
    xs_te, _ = _participants(3, 2, 1)
    one = MultiRocketFeatures(n_kernels=84, seed=0).train_test(xs_tr, xs_te)
    two = MultiRocketFeatures(n_kernels=84, seed=0).train_test(xs_tr, xs_te)
    other = MultiRocketFeatures(n_kernels=84, seed=1).train_test(xs_tr, xs_te)
    np.testing.assert_array_equal(one[1], two[1])
    assert not np.allclose(np.abs(one[1]), np.abs(other[1]))


def test_multirocket_without_aeon(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "aeon.transformations.collection.convolution_based", None)
    xs, _ = _participants(4, 1, 0)
    with pytest.raises(WearbenchError, match=r"multirocket.*aeon.*\[tracks\]"):
        MultiRocketFeatures().train_test(xs, xs)


def test_pca_matches_svd_on_wide_and_tall() -> None:
    rng = np.random.default_rng(0)
    for shape in ((6, 20), (20, 6)):
        x = rng.normal(size=shape)
        pca = Pca.fit(x, 3)
        _, s, vt = np.linalg.svd(x - x.mean(axis=0), full_matrices=False)
        np.testing.assert_allclose(np.abs(pca.components), np.abs(vt[:3]), atol=1e-8)
        np.testing.assert_allclose(np.linalg.norm(pca.transform(x), axis=0), s[:3], rtol=1e-8)


def test_rocket_model_reuses_features_for_the_same_participants() -> None:
    xs_tr, y_tr = _participants(12, 2, 0)
    xs_te, _ = _participants(4, 2, 1)
    model = rocket_model(MultiRocketFeatures(n_kernels=84))
    first = model.predict("regression", xs_tr, y_tr, xs_te)
    again = model.predict("regression", xs_tr, y_tr, xs_te)  # served from the kept features
    fresh = rocket_model(MultiRocketFeatures(n_kernels=84)).predict("regression", xs_tr, y_tr, xs_te)
    np.testing.assert_array_equal(first, again)
    np.testing.assert_array_equal(first, fresh)
    assert inputs_key(xs_tr, xs_te) != inputs_key(xs_tr, xs_te[:3])
