"""Per-participant imputation scoring (seed 004, F.3) on hand-computed cases."""

from __future__ import annotations

import numpy as np
import pytest

from wearbench.tracks._impute_score import auroc, fallback_values, score_imputation

C, T = 19, 1440


def test_auroc_hand_case_with_a_tie() -> None:
    y = np.array([False, False, True, True])
    # pairs (pos, neg): (0.35 > 0.1), (0.35 = 0.35 -> 1/2), (0.8 > 0.1), (0.8 > 0.35): 3.5 / 4
    assert auroc(y, np.array([0.1, 0.35, 0.35, 0.8])) == 0.875
    assert auroc(y, np.array([0.9, 0.8, 0.2, 0.1])) == 0.0
    with pytest.raises(ValueError, match="both classes"):
        auroc(np.array([True, True]), np.array([0.1, 0.2]))


def test_fallback_values_mean_and_majority_class() -> None:
    train = np.full((2, C, T), np.nan)
    train[0, 5, :2] = [60.0, 80.0]
    train[0, 7, :3] = [1.0, 1.0, 0.0]
    train[0, 9, :2] = [1.0, 0.0]  # exactly half: 0
    fb = fallback_values(train)
    assert fb[5] == 70.0
    assert fb[7] == 1.0
    assert fb[9] == 0.0
    assert fb[0] == 0.0  # no training data


def _case() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    x = np.zeros((3, C, T))
    a = np.zeros(x.shape, dtype=bool)
    x[:, 5] = 70.0
    a[0, 5, :2] = True  # participant p, day 0: HR truth 70, 70
    a[1, 5, :2] = True  # participant p, day 1
    a[2, 5, :1] = True  # participant q
    x_hat = np.array(x, copy=True)
    x_hat[0, 5, :2] = [72.0, 66.0]  # |2|, |4|
    x_hat[1, 5, :2] = [70.0, np.nan]  # 0, substituted by 60 -> 10
    x_hat[2, 5, 0] = np.inf  # substituted -> 10
    x[0, 7, :4] = [1.0, 0.0, 1.0, 0.0]  # asleep, participant p: two classes
    a[0, 7, :4] = True
    x_hat[0, 7, :4] = [0.9, 0.2, 0.4, 0.6]  # pairs: (0.9>0.2)(0.9>0.6)(0.4>0.2)(0.4<0.6): 3/4
    x[2, 8, :2] = 1.0  # in bed, participant q: single class -> dropped
    a[2, 8, :2] = True
    return x, a, x_hat, np.array(["p", "p", "q"])


def test_score_mae_auroc_single_class_dropped_and_substitution() -> None:
    x, a, x_hat, who = _case()
    fb = np.zeros(C)
    fb[5] = 60.0
    s = score_imputation(x, a, x_hat, who, fb, method="m", approach="random_noise")
    rows = {(e.participant, e.channel, e.kind): (e.value, e.n_cells) for e in s.errors}
    assert rows == {
        ("p", 5, "mae"): (16 / 4, 4),
        ("p", 7, "auroc"): (0.75, 4),
        ("q", 5, "mae"): (10.0, 1),
    }
    assert s.n_masked == 11
    assert s.n_substituted == 2
    assert s.substitution_rate == pytest.approx(2 / 11)
    assert next(e for e in s.errors if e.kind == "auroc").error == 0.25


def test_semantic_approaches_have_no_binary_scores() -> None:
    x, a, x_hat, who = _case()
    s = score_imputation(x, a, x_hat, who, np.zeros(C), method="m", approach="sleep_gap")
    assert {e.kind for e in s.errors} == {"mae"}
    assert s.n_masked == 11  # masked binary cells still count towards substitution


def test_mask_outside_observed_is_refused() -> None:
    x, a, x_hat, who = _case()
    x[0, 5, 0] = np.nan
    with pytest.raises(ValueError, match="must lie inside the observed mask"):
        score_imputation(x, a, x_hat, who, np.zeros(C), method="m", approach="random_noise")
