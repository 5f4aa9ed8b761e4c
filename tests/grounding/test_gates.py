import json
import math

import numpy as np
import pytest

from wearbench.grounding import (
    MIN_REPRODUCE,
    N_RESAMPLES,
    GateResult,
    best_lag_index,
    bootstrap_gate,
    bootstrap_weights,
    combine,
    coupling_gates,
    coupling_pass_batch,
    derangement,
    effect_size_gate,
    lodo_gate,
    lodo_lag_corr,
    margin_gate,
    null_test,
    stability_gate,
    strongest_gates,
    weighted_lag_corr,
)
from wearbench.primitives import lagged_correlation


def _coupled(n: int = 28, lag: int = 1, beta: float = 0.9, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n + 5)
    y = beta * np.roll(x, lag) + np.sqrt(1 - beta**2) * rng.normal(size=n + 5)
    return x[5:], y[5:]


def test_weighted_kernel_matches_primitive_with_unit_weights() -> None:
    rng = np.random.default_rng(1)
    for _ in range(50):
        x, y = rng.normal(size=28) * 100 + 5e3, rng.normal(size=28)
        x[rng.random(28) < 0.2] = np.nan
        ref = lagged_correlation(x, y, max_lag=3)
        got = weighted_lag_corr(x[None], y[None], np.ones((1, 28)))[0, 0]
        np.testing.assert_allclose(got, ref.r, atol=1e-12)
        idx, best = best_lag_index(got[None], 3)
        assert int(idx[0]) - 3 == ref.best_lag
        assert best[0] == pytest.approx(ref.best_r)


def test_weights_equal_duplicated_days() -> None:
    x, y = _coupled()
    w = np.zeros(28)
    w[:20] = 1.0
    w[3] = 3.0
    idx = np.array([i for i in range(20) for _ in range(int(w[i]))])
    got = weighted_lag_corr(x[None], y[None], w[None], max_lag=0, min_overlap=2)[0, 0, 0]
    assert got == pytest.approx(np.corrcoef(x[idx], y[idx])[0, 1])


def test_effect_size_gate_pass_and_fail() -> None:
    x = np.arange(28.0)
    y = x + np.tile([0.0, 3.0], 14)
    ok = effect_size_gate(x, y, 0)
    assert ok.passed
    assert ok.stats["r"] > 0.9
    weak = effect_size_gate(x, np.tile([0.0, 1.0, 0.0, -1.0], 7), 0)
    assert not weak.passed
    assert not weak.checks["effect_size"]


def test_effect_size_dead_band_rejects_near_threshold() -> None:
    rng = np.random.default_rng(3)
    x = rng.normal(size=28)
    for _ in range(2000):  # find a y with r just above 0.5
        y = 0.5 * x + rng.normal(size=28) * 0.85
        r = np.corrcoef(x, y)[0, 1]
        if 0.5 <= r < 0.52:
            break
    res = effect_size_gate(x, y, 0)
    assert res.checks["effect_size"]
    assert not res.checks["r_dead_band"]
    assert not res.passed


def test_split_half_sign_fails_when_halves_disagree() -> None:
    x = np.concatenate([np.arange(14.0), np.arange(14.0) + 100.0])
    y = np.concatenate([-np.arange(14.0), np.arange(14.0) + 200.0])  # overall +, first half −
    res = effect_size_gate(x, y, 0)
    assert res.checks["effect_size"]
    assert not res.checks["split_half_sign"]


def test_margin_gate() -> None:
    assert margin_gate({"a": 0.9, "b": -0.6, "c": float("nan")}).passed
    close = margin_gate({"a": 0.8, "b": 0.7})
    assert not close.checks["margin"]
    assert close.stats["winner"] == "a"
    near = margin_gate({"a": 0.80, "b": 0.64})  # gap 0.16 is inside 0.15 ± 0.03
    assert near.checks["margin"]
    assert not near.checks["margin_dead_band"]
    assert margin_gate({"only": 0.3}).stats["gap"] == math.inf
    assert not margin_gate({"a": float("nan")}).passed


def test_bootstrap_gate_threshold() -> None:
    assert bootstrap_gate(["a"] * MIN_REPRODUCE + ["b"] * (N_RESAMPLES - MIN_REPRODUCE), "a").passed
    assert not bootstrap_gate(["a"] * (MIN_REPRODUCE - 1) + ["b"] * 7, "a").passed
    assert bootstrap_gate(["a"] * 8 + ["b"] * 2, "a").passed  # 80 % of 10
    with pytest.raises(ValueError, match="at least one"):
        bootstrap_gate([], "a")


def test_lodo_and_stability_gates() -> None:
    assert lodo_gate([(1, 1)] * 28, (1, 1)).passed
    res = lodo_gate([(1, 1)] * 27 + [(2, 1)], (1, 1))
    assert not res.passed
    assert res.stats["lodo_flips"] == 1
    assert stability_gate({21: "up", 28: "up", 35: "up"}, "up").passed
    assert not stability_gate({21: "up", 28: "up", 35: None}, "up").passed


def test_gate_result_to_dict_is_json() -> None:
    res = combine(effect_size_gate(np.arange(28.0), np.arange(28.0) ** 1.1, 0), margin_gate({"a": 1.0}))
    text = json.dumps(res.to_dict(), allow_nan=False)
    back = json.loads(text)
    assert back["passed"] == res.passed
    assert set(back["checks"]) == set(res.checks)
    assert isinstance(res, GateResult)


def test_coupling_gates_recover_planted_lag_deterministically() -> None:
    x, y = _coupled(lag=2, beta=0.95, seed=4)
    a = coupling_gates(x, y, np.random.default_rng(7))
    b = coupling_gates(x, y, np.random.default_rng(7))
    assert a is not None
    assert b is not None
    assert (a.lag, a.sign) == (2, 1)
    assert a.gates.passed
    assert a.gates.to_dict() == b.gates.to_dict()
    batch = coupling_pass_batch(
        np.stack([x, x]), np.stack([y, np.random.default_rng(1).normal(size=28)]), np.random.default_rng(7)
    )
    assert batch.tolist() == [True, False]


def test_coupling_gates_reject_noise() -> None:
    rng = np.random.default_rng(11)
    passed = [coupling_gates(rng.normal(size=28), rng.normal(size=28), rng) for _ in range(50)]
    assert sum(o is not None and o.gates.passed for o in passed) <= 1


def test_strongest_gates() -> None:
    x0, y0 = _coupled(lag=0, beta=0.95, seed=2)
    rng = np.random.default_rng(5)
    x = np.stack([x0, rng.normal(size=28), rng.normal(size=28)])
    y = np.stack([y0, rng.normal(size=28), rng.normal(size=28)])
    winner, gates = strongest_gates(x, y, ["p", "q", "r"], np.random.default_rng(0))
    assert winner == "p"
    assert gates.passed
    winner, gates = strongest_gates(
        np.stack([x0, x0]), np.stack([y0, y0]), ["a", "b"], np.random.default_rng(0)
    )
    assert winner == "a"
    assert not gates.checks["margin"]


def test_derangement() -> None:
    for n in (2, 3, 10, 57):
        p = derangement(n, np.random.default_rng(n))
        assert sorted(p.tolist()) == list(range(n))
        assert not (p == np.arange(n)).any()
    assert (
        derangement(9, np.random.default_rng(1)).tolist() == derangement(9, np.random.default_rng(1)).tolist()
    )
    with pytest.raises(ValueError, match="n >= 2"):
        derangement(1, np.random.default_rng(0))


def test_null_test_on_hand_made_windows() -> None:
    # statistic: x and y windows identical; true only for matched users
    xs = [np.full((2, 5), float(i)) for i in range(6)]
    ys = [np.full((2, 5), float(i)) for i in range(6)]
    res = null_test(lambda x, y: (x == y).all(-1), xs, ys, np.random.default_rng(0))
    assert (res.observed, res.n_windows) == (1.0, 12)
    assert res.null == pytest.approx(1 / 37)  # add-one: 0 hits of 3 x 12 mismatched windows
    assert (
        null_test(lambda x, y: (x == y).all(-1), xs, ys, np.random.default_rng(0), pseudo_count=0).fdr == 0.0
    )
    none = null_test(lambda x, y: np.zeros(x.shape[:-1], dtype=bool), xs, ys, np.random.default_rng(0))
    assert none.fdr == math.inf
    with pytest.raises(ValueError, match="at least 2"):
        null_test(lambda x, y: x[..., 0] > 0, xs[:1], ys[:1], np.random.default_rng(0))


def test_bootstrap_weights_are_seeded_counts() -> None:
    w = bootstrap_weights(28, 30, np.random.default_rng(3))
    assert w.shape == (30, 28)
    assert (w.sum(1) == 28).all()
    np.testing.assert_array_equal(w, bootstrap_weights(28, 30, np.random.default_rng(3)))


def test_lodo_lag_corr_is_exact_day_removal() -> None:
    x, y = _coupled(lag=2, seed=8)
    days = np.array([0, 5, 27])
    got = lodo_lag_corr(x[None], y[None], days)[0]
    for row, d in zip(got, days, strict=True):
        xd, yd = x.copy(), y.copy()
        xd[d] = yd[d] = np.nan
        np.testing.assert_allclose(row, lagged_correlation(xd, yd, max_lag=3).r, atol=1e-12)
