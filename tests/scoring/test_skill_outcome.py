"""Outcome skill score by hand: domain skill, clip, rank, bootstrap sharing, and the metrics."""

from __future__ import annotations

import math

import numpy as np
import pytest

from wearbench.scoring import domain_rank, domain_skill, outcome_skill
from wearbench.tracks import OutcomePrediction, OutcomeTask, accuracy, auprc, pearson, spearman


def test_auprc_by_hand() -> None:
    # scores 0.9 (1), 0.8 (0), 0.7 (1), 0.1 (0): precision at the positives 1 and 2/3, recall steps 1/2.
    assert auprc([1, 0, 1, 0], [0.9, 0.8, 0.7, 0.1]) == pytest.approx(0.5 * 1 + 0.5 * 2 / 3)
    # a tie of one positive and one negative at the top: one threshold, precision 1/2 at recall 1/2.
    assert auprc([1, 0, 1], [0.5, 0.5, 0.2]) == pytest.approx(0.5 * 0.5 + 0.5 * 2 / 3)
    assert math.isnan(auprc([0, 0], [0.1, 0.2]))


def test_spearman_pearson_accuracy_by_hand() -> None:
    assert spearman([1, 2, 3, 4], [10, 20, 40, 30]) == pytest.approx(1 - 6 * 2 / (4 * 15))  # d^2 = 2
    assert spearman([0, 0, 1], [1, 2, 3]) == pytest.approx(math.sqrt(3) / 2)  # ranks (1.5,1.5,3) v (1,2,3)
    assert pearson([1, 2, 3], [2, 4, 7]) == pytest.approx(np.corrcoef([1, 2, 3], [2, 4, 7])[0, 1])
    assert math.isnan(pearson([1, 1, 1], [1, 2, 3]))
    assert accuracy([0, 1, 2, 2], [0, 1, 1, 2]) == 0.75


def test_domain_skill_half_error_and_clip() -> None:
    domains = {"a": "D1", "b": "D1", "c": "D2"}
    errors = {
        "linear": {"a": 0.4, "b": 0.2, "c": 0.5},
        "half": {"a": 0.2, "b": 0.1, "c": 0.25},
        "zero": {"a": 0.0, "b": 0.0, "c": 0.0},
    }
    s = domain_skill(errors, "linear", domains)
    assert s["linear"] == {"Overall": 0.0, "D1": 0.0, "D2": 0.0}
    assert s["half"]["D1"] == pytest.approx(0.5)
    assert s["half"]["Overall"] == pytest.approx(0.5)
    assert s["zero"]["D2"] == pytest.approx(1 - 0.01)  # ratio clipped at 0.01


def test_domain_rank_within_then_across() -> None:
    domains = {"a": "D1", "b": "D1", "c": "D2"}
    metrics = {"m1": {"a": 0.9, "b": 0.1, "c": 0.5}, "m2": {"a": 0.8, "b": 0.3, "c": 0.5}}
    r = domain_rank(metrics, domains)
    assert r["m1"] == {"D1": 1.5, "D2": 1.5, "Overall": 1.5}
    metrics["m1"]["c"] = 0.6
    assert domain_rank(metrics, domains)["m1"]["Overall"] == pytest.approx((1.5 + 1.0) / 2)


def _preds(method: str, shift: float) -> list[OutcomePrediction]:
    rng = np.random.default_rng(3)
    y = rng.normal(size=30)
    noise = rng.normal(size=30)
    return [
        OutcomePrediction(method, "t", f"u{i:02d}", float(y[i]), float(y[i] + shift * noise[i]), False)
        for i in range(30)
    ]


def test_outcome_skill_reference_zero_and_better_method() -> None:
    tasks = {"t": OutcomeTask("t", "D1", "regression", "x")}
    result, metrics = outcome_skill(
        _preds("linear", 2.0) + _preds("good", 0.2), "linear", tasks=tasks, n_boot=200
    )
    i, j = result.methods.index("linear"), result.methods.index("good")
    assert result.scopes == ("Overall", "D1")
    assert np.all(result.skill[i] == 0.0)
    assert np.all(result.boot[i] == 0.0)
    want = 1 - (1 - metrics["good"]["t"]) / (1 - metrics["linear"]["t"])
    assert result.skill[j, 1] == pytest.approx(want)
    assert result.ci_low[j, 0] > 0.0
    assert result.rank[j, 0] == 1.0
    assert result.draws.shape == (200, 30)
