"""The AR(1) persistence kernel: hand-computed cases, a pure-Python reference, stationarity."""

import math

import numpy as np
import pytest

from wearbench.sources.synthetic._persistence import ar1


def reference(w: list[float], phi: float) -> list[float]:
    out: list[float] = []
    for t, x in enumerate(w):
        out.append(x if t == 0 else phi * out[-1] + math.sqrt(1.0 - phi**2) * x)
    return out


def test_hand_computed() -> None:
    w = np.array([[1.0, 0.0, 0.0], [1.0, 1.0, -1.0], [2.0, 3.0, 4.0]])
    s = ar1(w, np.array([0.5, 0.6, 0.0]))
    expected = [[1.0, 0.5, 0.25], [1.0, 1.4, 0.04], [2.0, 3.0, 4.0]]  # 0.6*1.4 - 0.8 = 0.04
    np.testing.assert_allclose(s, expected, atol=1e-12)


def test_matches_pure_python_reference() -> None:
    rng = np.random.default_rng(0)
    w = rng.standard_normal((5, 40))
    phi = np.array([0.0, 0.1, 0.45, 0.7, 0.95])
    s = ar1(w, phi)
    for i in range(5):
        np.testing.assert_allclose(s[i], reference(w[i].tolist(), float(phi[i])), rtol=1e-12, atol=1e-12)
    assert s.flags.c_contiguous


def test_stationary_unit_variance_and_lag1_autocorrelation() -> None:
    rng = np.random.default_rng(1)
    s = ar1(rng.standard_normal((20_000, 30)), np.full(20_000, 0.6))
    var = s.var(axis=0)
    assert np.abs(var - 1.0).max() < 0.05  # every day, the first included
    lag1 = np.mean(s[:, :-1] * s[:, 1:])
    assert abs(lag1 - 0.6) < 0.02


def test_edge_shapes() -> None:
    assert ar1(np.zeros((0, 5)), np.zeros(0)).shape == (0, 5)
    assert ar1(np.zeros((3, 0)), np.full(3, 0.5)).shape == (3, 0)
    np.testing.assert_array_equal(ar1(np.array([[2.0]]), np.array([0.9])), [[2.0]])


@pytest.mark.parametrize(
    ("w", "phi", "message"),
    [
        (np.zeros((2, 4)), np.array([0.5, 1.0]), r"phi must lie in \[0, 1\)"),
        (np.zeros((2, 4)), np.array([-0.1, 0.5]), r"phi must lie in \[0, 1\)"),
        (np.zeros((2, 4)), np.array([0.5]), "w must be"),
        (np.zeros(4), np.array([0.5]), "w must be"),
    ],
)
def test_bad_input_raises(w: np.ndarray, phi: np.ndarray, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        ar1(w, phi)
