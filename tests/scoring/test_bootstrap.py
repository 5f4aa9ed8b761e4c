import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from wearbench.scoring import cluster_bootstrap_ci


def _data(per_user):
    users, vals = [], []
    for u, (k, n) in per_user.items():
        users += [u] * n
        vals += [1.0] * k + [0.0] * (n - k)
    return users, vals


def test_same_accuracy_everywhere_collapses():
    users, vals = _data({"a": (3, 4), "b": (6, 8), "c": (30, 40)})
    assert cluster_bootstrap_ci(users, vals, seed=5) == (0.75, 0.75)


def test_single_user_collapses_and_empty_is_nan():
    assert cluster_bootstrap_ci(["u"] * 5, [1, 0, 1, 0, 0]) == (0.4, 0.4)
    lo, hi = cluster_bootstrap_ci([], [])
    assert math.isnan(lo)
    assert math.isnan(hi)


def test_contains_point_and_is_seeded():
    rng = np.random.default_rng(0)
    users = [f"u{i % 15}" for i in range(300)]
    vals = list((rng.random(300) < np.repeat(np.linspace(0.2, 0.9, 15), 20).reshape(20, 15).T.ravel()) * 1.0)
    point = sum(vals) / len(vals)
    lo, hi = cluster_bootstrap_ci(users, vals, seed=3)
    assert lo < point < hi
    assert (lo, hi) == cluster_bootstrap_ci(users, vals, seed=3)
    assert (lo, hi) != cluster_bootstrap_ci(users, vals, seed=4)
    # users differ a lot, so the per-user interval is wider than the item-level Wilson one
    assert hi - lo > 0.1


def test_matches_a_loop_reference():
    users, vals = _data({"a": (1, 3), "b": (4, 5), "c": (0, 2), "d": (2, 2)})
    # clusters are indexed in sorted id order: a, b, c, d
    sums, counts = np.array([1.0, 4, 0, 2]), np.array([3, 5, 2, 2])
    rng = np.random.default_rng(9)
    draws = rng.integers(0, 4, size=(300, 4))
    means = [sum(sums[j] for j in row) / sum(counts[j] for j in row) for row in draws]
    want = np.quantile(means, [0.025, 0.975])
    assert cluster_bootstrap_ci(users, vals, seed=9, n_boot=300) == pytest.approx(tuple(want), abs=1e-12)


@given(st.lists(st.tuples(st.integers(0, 5), st.integers(1, 6)), min_size=1, max_size=8), st.integers(0, 3))
def test_interval_lies_between_user_extremes(tallies, seed):
    per_user = {f"u{i}": (min(k, n), n) for i, (k, n) in enumerate(tallies)}
    users, vals = _data(per_user)
    lo, hi = cluster_bootstrap_ci(users, vals, seed=seed, n_boot=200)
    rates = [k / n for k, n in per_user.values()]
    assert min(rates) - 1e-12 <= lo <= hi <= max(rates) + 1e-12


def test_bad_arguments():
    with pytest.raises(ValueError, match="n_boot"):
        cluster_bootstrap_ci(["a"], [1.0], n_boot=0)
    with pytest.raises(ValueError, match="level"):
        cluster_bootstrap_ci(["a"], [1.0], level=1.0)
    with pytest.raises(ValueError, match="cluster ids"):
        cluster_bootstrap_ci(["a", "b"], [1.0])
