import numpy as np

from wearbench.grounding import position_weights, spread_window


def test_weights_are_feasible_distributions() -> None:
    prior = (0.02, 0.01, 0.02, 0.3, 0.45, 0.13, 0.07)
    q = np.array(position_weights(7, 5, prior))
    assert np.allclose(q.sum(1), 1.0)
    for i in range(7):  # the whole window stays on the scale
        for k in range(5):
            if not (i - k >= 0 and i - k + 5 <= 7):
                assert q[i, k] == 0.0


def test_marginal_position_is_flat_when_reachable() -> None:
    prior = (0.01, 0.01, 0.01, 0.02, 0.18, 0.21, 0.18, 0.17, 0.12, 0.15, 0.02, 0.01, 0.01, 0.01)
    p = np.array(prior) / sum(prior)
    marginal = p @ np.array(position_weights(14, 10, prior))
    assert np.allclose(marginal, 0.1, atol=0.005)


def test_window_contains_answer_at_drawn_position() -> None:
    rng = np.random.default_rng(0)
    prior = (1.0,) * 14
    seen = set()
    for _ in range(400):
        w = spread_window(5, 14, 10, prior, rng)
        assert 5 in w
        assert w.start >= 0
        assert w.stop <= 14
        assert len(w) == 10
        seen.add(5 - w.start)
    assert seen == set(range(1, 6))  # every feasible position (the window fits the scale) occurs
