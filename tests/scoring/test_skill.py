"""OpenMHC skill score on hand-computed fixtures (issue 15 acceptance: skill score)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from wearbench._errors import WearbenchError
from wearbench.scoring import (
    Scope,
    SkillErrors,
    SkillResult,
    Task,
    binary_error,
    collapse_binary,
    draw_matrix,
    draw_weights,
    forecast_scopes,
    imputation_scopes,
    participant_ranks,
    score_skill,
)


def _errors(
    methods: tuple[str, ...], values: list[list[list[float]]], tasks: tuple[Task, ...] | None = None
) -> SkillErrors:
    arr = np.array(values, dtype=float)
    tasks = tasks or tuple(Task("forecast", "Activity", f"c{i}") for i in range(arr.shape[1]))
    return SkillErrors(methods, tasks, tuple(f"u{i}" for i in range(arr.shape[2])), arr)


def _score(
    se: SkillErrors, scopes: tuple[Scope, ...] | None = None, seed: int = 0, n_boot: int = 200
) -> SkillResult:
    return score_skill(
        se, "ref", scopes or forecast_scopes(("Activity",)), rng=np.random.default_rng(seed), n_boot=n_boot
    )


def test_reference_scores_exactly_zero_against_itself() -> None:
    base = np.random.default_rng(3).uniform(0.2, 5.0, size=(1, 4, 9))
    se = SkillErrors(
        ("ref",),
        tuple(
            Task(a, k, "c")
            for a, k in [("a", "Activity"), ("a", "Sleep"), ("b", "Activity"), ("b", "Workout")]
        ),
        tuple(str(i) for i in range(9)),
        base,
    )
    res = _score(se, (Scope("Overall"), Scope("Sleep", None, ("Sleep",))))
    assert (res.skill == 0.0).all()
    assert (res.ci_low == 0.0).all()
    assert (res.ci_high == 0.0).all()
    assert (res.rank == 1.0).all()


def test_half_error_scores_exactly_half() -> None:
    base = np.array([[0.3, 1.7, 2.0, 5.5], [4.0, 0.9, 0.25, 3.0]])
    se = _errors(("ref", "half"), [base.tolist(), (base / 2).tolist()])
    res = _score(se)
    assert res.skill[1, 0] == 0.5  # log(0.5) summed over 4 participants is exact
    assert res.ci_low[1, 0] == 0.5
    assert res.ci_high[1, 0] == 0.5
    assert res.rank[:, 0].tolist() == [2.0, 1.0]


@pytest.mark.parametrize("n", [5, 9, 31, 57])
def test_half_error_is_half_up_to_rounding_at_any_size(n: int) -> None:
    base = np.random.default_rng(n).uniform(0.1, 3.0, size=(3, n))
    res = _score(_errors(("ref", "half"), [base.tolist(), (base / 2).tolist()]), n_boot=20)
    assert res.skill[1, 0] == pytest.approx(0.5, abs=1e-15)
    assert np.allclose(res.boot[1], 0.5, rtol=0, atol=1e-15)


def test_ratio_beyond_100_is_clipped() -> None:
    # ratios 1000 -> 100 and 1 -> 1: l = (log 100 + log 1) / 2 = log 10, S = 1 - 10 = -9
    se = _errors(("ref", "bad"), [[[1.0, 2.0]], [[1000.0, 2.0]]])
    assert _score(se).skill[1, 0] == pytest.approx(-9.0, abs=1e-12)
    # and a ratio below 0.01 at 0.01: l = (log 0.01 + 0) / 2, S = 1 - 0.1
    se = _errors(("ref", "good"), [[[1.0, 2.0]], [[0.0, 2.0]]])
    assert _score(se).skill[1, 0] == pytest.approx(0.9, abs=1e-12)


def test_zero_or_missing_reference_error_drops_the_participant() -> None:
    # u0: E_b = 0 (dropped), u1: E_b NaN (dropped), u2: ratio 1/4
    se = _errors(("ref", "m"), [[[0.0, math.nan, 4.0]], [[1.0, 1.0, 1.0]]])
    assert _score(se).skill[1, 0] == pytest.approx(0.75, abs=1e-15)


def test_tied_ranks_average() -> None:
    # u0 errors (1, 1, 2) -> ranks (1.5, 1.5, 3); u1 (3, 2, 1) -> (3, 2, 1)
    se = _errors(("ref", "a", "b"), [[[1.0, 3.0]], [[1.0, 2.0]], [[2.0, 1.0]]])
    assert participant_ranks(se.ranking)[:, 0, :].tolist() == [[1.5, 3.0], [1.5, 2.0], [3.0, 1.0]]
    assert _score(se).rank[:, 0].tolist() == [2.25, 1.75, 2.0]


def test_rank_uses_unfloored_binary_error() -> None:
    # AUC 0.999 and 0.998: both floor to 0.005 (equal skill), but rank on 1 - AUC
    auc = np.array([0.999, 0.998])
    se = SkillErrors(
        ("a", "ref"),
        (Task("x", "Sleep", "asleep"),),
        ("u0",),
        binary_error(auc).reshape(2, 1, 1),
        (1.0 - auc).reshape(2, 1, 1),
    )
    res = _score(se, (Scope("Overall"),))
    assert res.skill[:, 0].tolist() == [0.0, 0.0]
    assert res.rank[:, 0].tolist() == [1.0, 2.0]


def test_single_class_auroc_is_dropped() -> None:
    # u1's channel is single-class: AUC NaN for every method -> no error, no rank
    auc = np.array([[0.8, math.nan, 0.6], [0.9, math.nan, 0.8]])  # ref, m
    err = binary_error(auc)
    assert math.isnan(err[0, 1])
    se = SkillErrors(("ref", "m"), (Task("x", "Sleep", "asleep"),), ("u0", "u1", "u2"), err[:, None, :])
    res = _score(se, (Scope("Overall"),))
    # l = (log(0.1/0.2) + log(0.2/0.4)) / 2 = log 0.5
    assert res.skill[1, 0] == pytest.approx(0.5, abs=1e-15)
    assert res.rank[:, 0].tolist() == [2.0, 1.0]


def test_binary_error_floor() -> None:
    assert binary_error(np.array([0.999, 0.5, 0.0])).tolist() == pytest.approx([0.005, 0.5, 1.0])
    assert binary_error(0.9, eps=0.2).tolist() == pytest.approx(0.2)


def test_collapsed_binary_error_by_hand() -> None:
    auc = np.array([[0.9, 0.7, math.nan], [0.999, 0.998, math.nan], [math.nan, math.nan, math.nan]])
    err, rank_err = collapse_binary(auc)
    # (0.1 + 0.3) / 2; (0.001 + 0.002) / 2 = 0.0015 -> floor 0.005; no defined AUC -> NaN
    assert err[:2].tolist() == pytest.approx([0.2, 0.005])
    assert rank_err[:2].tolist() == pytest.approx([0.2, 0.0015])
    assert math.isnan(err[2])
    assert math.isnan(rank_err[2])


def test_scopes_by_hand_on_two_approach_toy() -> None:
    # approach A (structural): Activity {t1: ratio 1/2, t2: ratio 1/8}, Sleep {t3: ratio 1}
    # approach B (semantic): Activity {t4: ratio 1/4}
    tasks = (
        Task("A", "Activity", "t1"),
        Task("A", "Activity", "t2"),
        Task("A", "Sleep", "t3"),
        Task("B", "Activity", "t4"),
    )
    se = SkillErrors(
        ("ref", "m"),
        tasks,
        ("u0",),
        np.array([[[1.0], [1.0], [1.0], [1.0]], [[0.5], [0.125], [1.0], [0.25]]]),
    )
    scopes = imputation_scopes(structural=("A",), semantic=("B",))
    assert [s.name for s in scopes] == ["Overall", "Activity", "Physiology", "Sleep", "Workout", "Semantic"]
    res = _score(se, scopes, n_boot=10)
    # A: mean(Activity = -2 log 2, Sleep = 0) = -log 2; B: -2 log 2; Overall = -1.5 log 2
    expected = [1 - 2**-1.5, 0.75, math.nan, 0.0, math.nan, 0.75]
    np.testing.assert_allclose(res.skill[1], expected, rtol=0, atol=1e-15)
    assert res.to_dict()["methods"]["m"]["Workout"] == {
        "skill": None,
        "ci_low": None,
        "ci_high": None,
        "rank": None,
    }


def test_forecast_scopes_average_categories_then_channels() -> None:
    # Activity channels: ratios 1/2 and 1/8 -> -2 log 2; Sleep channel: ratio 1 -> 0; Overall: -log 2
    tasks = (Task("f", "Activity", "steps"), Task("f", "Activity", "hr"), Task("f", "Sleep", "asleep"))
    se = SkillErrors(("ref", "m"), tasks, ("u0",), np.array([[[1.0], [1.0], [1.0]], [[0.5], [0.125], [1.0]]]))
    res = _score(se, forecast_scopes(("Activity", "Sleep")), n_boot=10)
    np.testing.assert_allclose(res.skill[1], [0.5, 0.75, 0.0], rtol=0, atol=1e-15)


def test_bootstrap_is_reproducible_and_shares_one_draw_matrix() -> None:
    rng = np.random.default_rng(11)
    base = rng.uniform(0.5, 2.0, size=(1, 6))
    values = [base.tolist(), (base * rng.uniform(0.3, 1.5, size=(1, 6))).tolist(), (base * 1.3).tolist()]
    se = _errors(("ref", "a", "b"), values)
    first, second = _score(se, seed=5), _score(se, seed=5)
    assert np.array_equal(first.draws, second.draws)
    assert np.array_equal(first.boot, second.boot)
    assert np.array_equal(first.draws, draw_matrix(6, np.random.default_rng(5), 200))
    # every method's replicate b is the hand mean over the participants of draw row b
    ratios = np.log(np.clip(np.array(values)[:, 0, :] / base[0], 0.01, 100.0))
    for b in (0, 17, 199):
        rows = first.draws[b]
        assert first.boot[:, 0, b] == pytest.approx(1 - np.exp(ratios[:, rows].mean(axis=1)), abs=1e-13)
    # the same draws when only some methods are scored: the matrix does not depend on the methods
    alone = score_skill(
        SkillErrors(("ref", "b"), se.tasks, se.participants, se.errors[[0, 2]]),
        "ref",
        forecast_scopes(("Activity",)),
        rng=np.random.default_rng(5),
        n_boot=200,
    )
    assert np.array_equal(alone.draws, first.draws)
    assert np.array_equal(alone.boot[1], first.boot[2])
    # a given draw matrix is reused as is
    again = score_skill(se, "ref", forecast_scopes(("Activity",)), draws=first.draws)
    assert again.draws is first.draws
    assert np.array_equal(again.boot, first.boot)


def test_interval_brackets_the_point_and_differs_by_seed() -> None:
    rng = np.random.default_rng(2)
    base = rng.uniform(0.5, 2.0, size=(2, 30))
    se = _errors(("ref", "m"), [base.tolist(), (base * rng.uniform(0.4, 1.2, size=(2, 30))).tolist()])
    one, two = _score(se, seed=1), _score(se, seed=2)
    assert one.ci_low[1, 0] < one.skill[1, 0] < one.ci_high[1, 0]
    assert one.skill[1, 0] == two.skill[1, 0]
    assert one.ci_low[1, 0] != two.ci_low[1, 0]


def test_draw_weights_count_multiplicities() -> None:
    draws = np.array([[0, 0, 2], [1, 2, 1]])
    assert draw_weights(draws, 3).tolist() == [[2.0, 0.0, 1.0], [0.0, 2.0, 1.0]]


def test_method_without_errors_has_no_score() -> None:
    se = _errors(("ref", "none"), [[[1.0, 2.0]], [[math.nan, math.nan]]])
    res = _score(se)
    assert math.isnan(res.skill[1, 0])
    assert math.isnan(res.ci_low[1, 0])
    assert math.isnan(res.rank[1, 0])
    assert res.to_dict()["methods"]["ref"]["Overall"]["skill"] == 0.0


def test_from_rows_builds_the_dense_array() -> None:
    rows = [
        {
            "method": "ref",
            "approach": "a",
            "bucket": "Sleep",
            "task": "Sleep",
            "participant": "u1",
            "error": 0.2,
        },
        {
            "method": "m",
            "approach": "a",
            "bucket": "Sleep",
            "task": "Sleep",
            "participant": "u1",
            "error": 0.005,
            "rank_error": 0.001,
        },
        {
            "method": "m",
            "approach": "a",
            "bucket": "Activity",
            "task": "steps",
            "participant": "u2",
            "error": None,
        },
    ]
    se = SkillErrors.from_rows(rows)
    assert se.methods == ("ref", "m")
    assert se.tasks == (Task("a", "Sleep", "Sleep"), Task("a", "Activity", "steps"))
    assert se.participants == ("u1", "u2")
    assert se.errors[1, 0, 0] == 0.005
    assert se.ranking[1, 0, 0] == 0.001
    assert se.ranking[0, 0, 0] == 0.2
    assert np.isnan(se.errors[:, 1]).all()
    with pytest.raises(WearbenchError, match="duplicate error row"):
        SkillErrors.from_rows([rows[0], rows[0]])
    with pytest.raises(WearbenchError, match="'participant'"):
        SkillErrors.from_rows([{"method": "m", "approach": "a", "bucket": "b", "task": "t", "error": 1.0}])


def test_bad_inputs_raise_with_context() -> None:
    with pytest.raises(WearbenchError, match=r"expected \(methods, tasks, participants\) = \(1, 1, 2\)"):
        SkillErrors(("ref",), (Task("a", "b", "c"),), ("u0", "u1"), np.zeros((1, 1, 3)))
    with pytest.raises(WearbenchError, match="duplicate method"):
        SkillErrors(("m", "m"), (Task("a", "b", "c"),), ("u0",), np.zeros((2, 1, 1)))
    with pytest.raises(WearbenchError, match=">= 0"):
        SkillErrors(("m",), (Task("a", "b", "c"),), ("u0",), -np.ones((1, 1, 1)))
    se = _errors(("ref",), [[[1.0]]])
    with pytest.raises(WearbenchError, match="'locf' not among ref"):
        score_skill(se, "locf", forecast_scopes(), rng=np.random.default_rng(0))
    with pytest.raises(ValueError, match="seeded rng"):
        score_skill(se, "ref", forecast_scopes())
    with pytest.raises(ValueError, match="does not index 1 participants"):
        score_skill(se, "ref", forecast_scopes(), draws=np.array([[1]]))
    with pytest.raises(ValueError, match="level"):
        score_skill(se, "ref", forecast_scopes(), rng=np.random.default_rng(0), level=1.0)
    with pytest.raises(ValueError, match=">= 1 participant"):
        draw_matrix(0, np.random.default_rng(0))


def test_no_tasks_gives_null_cells() -> None:
    se = SkillErrors(("ref", "m"), (), ("u0", "u1"), np.zeros((2, 0, 2)))
    res = score_skill(se, "ref", imputation_scopes(), rng=np.random.default_rng(0), n_boot=5)
    empty = dict.fromkeys(("skill", "ci_low", "ci_high", "rank"))
    assert res.to_dict()["methods"] == {m: dict.fromkeys(res.scopes, empty) for m in ("ref", "m")}
